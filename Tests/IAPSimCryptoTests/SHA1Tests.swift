import Foundation
import IAPSimTestSupport
import Testing

@testable import IAPSimCrypto

@Suite("SHA1")
struct SHA1Tests {
    struct KnownAnswers: Decodable {
        struct Vector: Decodable {
            let messageASCII: String
            let `repeat`: Int
            let sha1: String

            enum CodingKeys: String, CodingKey {
                case messageASCII = "message_ascii"
                case `repeat`, sha1
            }
        }
        let vectors: [Vector]
    }

    @Test("FIPS 180 known answers")
    func knownAnswers() throws {
        let file = try VectorFiles.decode(KnownAnswers.self, from: "sha1-known-answers.json")
        #expect(file.vectors.count == 5)
        #expect(file.vectors.contains { $0.repeat == 1_000_000 && $0.messageASCII == "a" })
        for vector in file.vectors {
            let unit = Array(vector.messageASCII.utf8)
            var whole = [UInt8]()
            whole.reserveCapacity(unit.count * vector.repeat)
            for _ in 0..<vector.repeat { whole.append(contentsOf: unit) }
            #expect(SHA1.hash(whole).hex == vector.sha1, "\(vector.messageASCII) × \(vector.repeat)")
        }
    }

    @Test("every length around the padding boundaries agrees with openssl")
    func lengthsAgreeWithOpenSSL() throws {
        try withTemporaryDirectory { directory in
            for length in [55, 56, 57, 63, 64, 65, 119, 120] {
                let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
                try directory.write(message, to: "m")
                let result = try OpenSSL.run(["dgst", "-sha1", "-r", "m"], in: directory)
                #expect(result.outputText.hasPrefix(SHA1.hash(message).hex), "length \(length)")
            }
        }
    }
}
