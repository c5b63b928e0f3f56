import Foundation
import Testing

@testable import IAPSimCrypto

@Suite("Base64 and Base64URL")
struct Base64Tests {
    @Test("round trips agree with Foundation for every length up to 70")
    func roundTrips() throws {
        var generator = SeededGenerator(seed: 42)
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let standard = Base64.encode(bytes)
            #expect(standard == Data(bytes).base64EncodedString())
            #expect(try Base64.decode(standard) == bytes)
            let url = Base64URL.encode(bytes)
            #expect(
                url
                    == standard.replacingOccurrences(of: "+", with: "-")
                    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))
            #expect(try Base64URL.decode(url) == bytes)
        }
    }

    @Test(
        "Base64URL rejects padding, foreign characters, impossible lengths and stray bits",
        arguments: ["QQ==", "QQ=", "A", "AAAAA", "a+b/", "ab cd", "QR", "QUF", "QUJ", "Zm9v\n", "é"])
    func base64URLRejects(_ text: String) {
        #expect(throws: CryptoError.self) { try Base64URL.decode(text) }
    }

    @Test("Base64URL accepts canonical unpadded text")
    func base64URLAccepts() throws {
        #expect(try Base64URL.decode("") == [])
        #expect(try Base64URL.decode("QQ") == [0x41])
        #expect(try Base64URL.decode("QUI") == [0x41, 0x42])
        #expect(try Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test(
        "standard Base64 requires correct padding and canonical bits",
        arguments: ["QQ", "QQ=", "QR==", "Q===", "====", "QUJD=", "QU=D", "-_-_", "QUJD\n"])
    func base64Rejects(_ text: String) {
        #expect(throws: CryptoError.self) { try Base64.decode(text) }
    }
}
