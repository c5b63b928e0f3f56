import Foundation
import Testing

@testable import iapsim

/// `iapsim receipt` and `receipt decode` from the command line: where the bytes go, what is
/// refused, and the exit codes.
@Suite struct ReceiptCommandTests {
    @Test func binaryIsRefusedOnATerminalButBase64AndFilesAreNot() throws {
        let h = Harness()
        try h.installReceiptChainFixture()
        #expect(h.run("buy", "com.example.app.book", "--yes").status == 0)
        h.outputTerminal = true
        let refused = h.run("receipt")
        #expect(refused.status == 64 && refused.stderr.contains("--out FILE, or --base64"))
        let text = h.run("receipt", "--base64")
        #expect(
            text.status == 0 && Data(base64Encoded: text.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) != nil)
        let path = h.stateDirectory + "/receipt.der"
        let written = h.run("receipt", "--out", path)
        #expect(written.status == 0 && written.stdout.contains("1 in-app purchase receipt"))
        let decoded = h.run("receipt", "decode", path)
        #expect(decoded.status == 0 && decoded.stdout.contains("verified: signed by the test chain"))
        #expect(decoded.stdout.contains("com.example.app.book"))
        #expect(h.run("receipt", "--out", "/dev/null").status == 64)
    }

    @Test func decodeRefusesWhatIsNotAReceipt() throws {
        let h = Harness()
        try h.installReceiptChainFixture()
        let path = h.stateDirectory + "-junk"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        let result = h.run("receipt", "decode", path)
        #expect(result.status == 65 && result.stderr.contains("not an app receipt"))
        #expect(h.run("receipt", "decode", path + "-missing").status == 64)
        #expect(h.run("receipt", "decode", "--base64").status == 64)
        #expect(h.run("receipt", "--device-id", "nope").status == 64)
        #expect(h.run("receipt", "unknown").status == 64)
    }

    @Test func jsonGivesTheDecodedFieldsAndTheReceiptData() throws {
        let h = Harness()
        try h.installReceiptChainFixture()
        #expect(h.run("settings", "set", "finish-transactions", "manual").status == 0)
        #expect(h.run("buy", "com.example.app.coins100", "--yes").status == 0)
        let json = try h.json("receipt")
        let receipt = try #require(json["receipt"] as? [String: Any])
        let inApp = try #require(receipt["in_app"] as? [[String: Any]])
        #expect(inApp.first?["product_id"] as? String == "com.example.app.coins100")
        #expect(receipt["bundle_id"] as? String == "com.example.app")
        #expect((receipt["sha1_hash"] as? String)?.count == 40)
        #expect(json["receiptData"] is String)
        #expect(h.run("finish", "1").status == 0)
        let after = try #require(try h.json("receipt")["receipt"] as? [String: Any])
        #expect((after["in_app"] as? [Any])?.isEmpty == true)
    }
}
