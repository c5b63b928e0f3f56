import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("X25519")
struct X25519Tests {
    struct RFC7748: Decodable {
        struct Multiplication: Decodable {
            let scalar: String
            let u: String
            let output: String
        }
        struct Iteration: Decodable {
            let count: Int
            let output: String
        }
        struct DiffieHellman: Decodable {
            let alicePrivate: String
            let alicePublic: String
            let bobPrivate: String
            let bobPublic: String
            let shared: String
        }
        let multiplications: [Multiplication]
        let iterations: [Iteration]
        let diffieHellman: DiffieHellman
    }

    struct Wycheproof: Decodable {
        struct Group: Decodable {
            let curve: String
            let tests: [Case]
        }
        struct Case: Decodable {
            let tcId: Int
            let comment: String
            let flags: [String]
            let `public`: String
            let `private`: String
            let shared: String
            let result: String
        }
        let numberOfTests: Int
        let testGroups: [Group]
    }

    @Test("RFC 7748 §5.2: the two single multiplications")
    func multiplications() throws {
        let file = try VectorFiles.decode(RFC7748.self, from: "rfc7748-x25519.json")
        #expect(file.multiplications.count == 2)
        for vector in file.multiplications {
            let output = try X25519.scalarMultiply(scalar: [UInt8](hex: vector.scalar), point: [UInt8](hex: vector.u))
            #expect(output.hex == vector.output)
        }
    }

    /// k, u start at 9; each step sets k, u = X25519(k, u), k.
    @Test("RFC 7748 §5.2: the iterated function after 1 and 1,000 iterations")
    func iterations() throws {
        let file = try VectorFiles.decode(RFC7748.self, from: "rfc7748-x25519.json")
        #expect(file.iterations.map(\.count) == [1, 1000])
        var k = X25519.basePoint
        var u = X25519.basePoint
        var done = 0
        for vector in file.iterations {
            while done < vector.count {
                let next = try X25519.scalarMultiply(scalar: k, point: u)
                u = k
                k = next
                done += 1
            }
            #expect(k.hex == vector.output, "after \(vector.count) iterations")
        }
    }

    @Test("RFC 7748 §6.1: Alice's and Bob's public keys and their shared secret")
    func diffieHellman() throws {
        let dh = try VectorFiles.decode(RFC7748.self, from: "rfc7748-x25519.json").diffieHellman
        let alice = try [UInt8](hex: dh.alicePrivate)
        let bob = try [UInt8](hex: dh.bobPrivate)
        #expect(try X25519.publicKey(privateKey: alice).hex == dh.alicePublic)
        #expect(try X25519.publicKey(privateKey: bob).hex == dh.bobPublic)
        #expect(try X25519.sharedSecret(privateKey: alice, peerPublicKey: [UInt8](hex: dh.bobPublic)).hex == dh.shared)
        #expect(try X25519.sharedSecret(privateKey: bob, peerPublicKey: [UInt8](hex: dh.alicePublic)).hex == dh.shared)
    }

    /// Valid and acceptable cases (twist points, non-canonical u, low-order points) all give
    /// the published value from the raw function; where that value is all zeros, the
    /// key-exchange form refuses it, as TLS requires.
    @Test("Wycheproof x25519_test.json: all 518 cases")
    func wycheproof() throws {
        let file = try VectorFiles.decode(Wycheproof.self, from: "wycheproof/x25519_test.json")
        var counts = (valid: 0, acceptable: 0, zero: 0)
        for group in file.testGroups {
            #expect(group.curve == "curve25519")
            for test in group.tests {
                let privateKey = try [UInt8](hex: test.private)
                let publicKey = try [UInt8](hex: test.public)
                let output = try X25519.scalarMultiply(scalar: privateKey, point: publicKey)
                #expect(output.hex == test.shared, "tcId \(test.tcId) (\(test.comment))")
                let checked = try? X25519.sharedSecret(privateKey: privateKey, peerPublicKey: publicKey)
                if test.shared == String(repeating: "0", count: 64) {
                    counts.zero += 1
                    #expect(checked == nil, "tcId \(test.tcId): an all-zero secret must be refused")
                } else {
                    #expect(checked?.hex == test.shared, "tcId \(test.tcId)")
                }
                switch test.result {
                case "valid": counts.valid += 1
                case "acceptable": counts.acceptable += 1
                default: Issue.record("tcId \(test.tcId): unexpected result \(test.result)")
                }
            }
        }
        #expect(file.numberOfTests == 518)
        #expect(counts.valid == 264 && counts.acceptable == 254)
        #expect(counts.zero > 0)
    }

    @Test("inputs that are not 32 bytes are refused")
    func lengths() {
        #expect(throws: CryptoError.invalidKeyLength(31)) {
            try X25519.scalarMultiply(scalar: [UInt8](repeating: 1, count: 31), point: X25519.basePoint)
        }
        #expect(throws: CryptoError.invalidKeyLength(33)) {
            try X25519.scalarMultiply(scalar: X25519.basePoint, point: [UInt8](repeating: 1, count: 33))
        }
    }
}
