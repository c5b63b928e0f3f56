import Foundation
import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("SHA256")
struct SHA256Tests {
    struct KnownAnswers: Decodable {
        struct Vector: Decodable {
            let messageASCII: String
            let `repeat`: Int
            let sha256: String

            enum CodingKeys: String, CodingKey {
                case messageASCII = "message_ascii"
                case `repeat`, sha256
            }
        }
        let vectors: [Vector]
    }

    @Test("FIPS 180 known answers, one-shot and streamed")
    func knownAnswers() throws {
        let file = try VectorFiles.decode(KnownAnswers.self, from: "sha256-known-answers.json")
        #expect(file.vectors.count == 5)
        #expect(file.vectors.contains { $0.repeat == 1_000_000 && $0.messageASCII == "a" })
        for vector in file.vectors {
            let unit = Array(vector.messageASCII.utf8)
            var whole = [UInt8]()
            whole.reserveCapacity(unit.count * vector.repeat)
            for _ in 0..<vector.repeat { whole.append(contentsOf: unit) }
            // Streamed in chunks of an odd size, so updates straddle block boundaries.
            var hasher = SHA256()
            var start = 0
            while start < whole.count {
                let end = min(start + 997, whole.count)
                hasher.update(whole[start..<end])
                start = end
            }
            #expect(hasher.finalize().hex == vector.sha256, "\(vector.messageASCII) × \(vector.repeat)")
            #expect(SHA256.hash(whole).hex == vector.sha256)
        }
    }

    @Test("every split point of a 200-byte message gives the one-shot digest")
    func splitsAgree() {
        let message = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let expected = SHA256.hash(message)
        for split in 0...message.count {
            var hasher = SHA256()
            hasher.update(message[..<split])
            hasher.update(message[split...])
            #expect(hasher.finalize() == expected, "split at \(split)")
        }
    }

    @Test("finalize leaves the hasher usable and non-contiguous input hashes the same")
    func finalizeIsNonDestructive() {
        var hasher = SHA256()
        hasher.update(Array("ab".utf8))
        _ = hasher.finalize()
        hasher.update(Array("c".utf8))
        #expect(hasher.finalize().hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash("abc".utf8.lazy.map { $0 }) == SHA256.hash(Array("abc".utf8)))
        #expect(SHA256.hash(Data("abc".utf8)) == SHA256.hash(Array("abc".utf8)))
    }
}
