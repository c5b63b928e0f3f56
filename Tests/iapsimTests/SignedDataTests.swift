import Foundation
import IAPSimCrypto
import IAPSimKit
import IAPSimTestSupport
import Testing

@testable import iapsim

/// Signed data from the shell: `jws`, `certs`, `--jws`, and the checks `jws decode` makes.
/// Apple's own library judges the same output in Tests/e2e/apple.sh.
@Suite struct SignedDataTests {
    let harness = Harness()

    init() {
        _ = harness.run("buy", "com.example.app.pro.monthly")
    }

    private func payload(_ jws: String) throws -> [String: Any] {
        let segment = String(jws.split(separator: ".")[1])
        let bytes = try Base64URL.decode(segment)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func aTransactionIsSignedWithApplesFieldsAndVerifies() throws {
        let signed = harness.run("jws", "transaction", "1")
        #expect(signed.status == 0)
        let jws = signed.stdout.trimmingCharacters(in: .newlines)
        let fields = try payload(jws)
        #expect(fields["transactionId"] as? String == "1")
        #expect(fields["productId"] as? String == "com.example.app.pro.monthly")
        #expect(fields["type"] as? String == "Auto-Renewable Subscription")
        #expect(fields["environment"] as? String == "Sandbox")
        #expect(fields["bundleId"] as? String == "com.example.app")
        #expect(fields["storefrontId"] as? String == "143441")
        #expect(fields["offerDiscountType"] as? String == "FREE_TRIAL")
        #expect(fields["purchaseDate"] as? Int == 1_768_478_400_000)
        #expect(fields["signedDate"] as? Int == 1_768_478_400_000)
        let decoded = harness.run("jws", "decode", jws)
        #expect(decoded.status == 0)
        #expect(decoded.stdout.contains("Signature: valid"))
        #expect(decoded.stdout.contains("Chain: trusted"))
    }

    @Test func anAlteredPayloadOrAnotherRootFailsDecode() throws {
        let jws = harness.run("jws", "transaction", "1").stdout.trimmingCharacters(in: .newlines)
        var parts = jws.split(separator: ".").map(String.init)
        var bytes = try Base64URL.decode(parts[1])
        bytes[bytes.count / 2] ^= 0x01
        parts[1] = Base64URL.encode(bytes)
        let altered = harness.run("jws", "decode", parts.joined(separator: "."))
        #expect(altered.status == 65)
        #expect(altered.stdout.contains("Signature: INVALID"))
        let stranger = Harness()
        #expect(stranger.run("jws", "decode", jws).stdout.contains("Chain: not trusted: no iapsim certificates"))
        _ = stranger.run("certs")
        let elsewhere = stranger.run("jws", "decode", jws)
        #expect(elsewhere.status == 65)
        #expect(elsewhere.stdout.contains("Chain: not trusted: the root is not this state's iapsim root"))
        #expect(harness.run("jws", "decode", "not.a-jws").status == 65)
    }

    @Test func xcodeDataIsSignedAsXcodeSignsIt() throws {
        let jws = harness.run("jws", "app-transaction", "--environment", "xcode").stdout
        let header = try #require(
            try JSONSerialization.jsonObject(with: Data(try Base64URL.decode(String(jws.split(separator: ".")[0]))))
                as? [String: Any])
        #expect(header["kid"] as? String == "Apple_Xcode_Key")
        #expect(header["typ"] as? String == "JWT")
        #expect((header["x5c"] as? [String])?.count == 1)
        #expect(try payload(jws)["receiptType"] as? String == "Xcode")
        #expect(
            harness.run("jws", "decode", jws.trimmingCharacters(in: .newlines)).stdout.contains("Xcode certificate"))
    }

    @Test func renewalInfoAndTheEnvironmentSetting() throws {
        #expect(harness.run("settings", "set", "environment", "production").status == 0)
        let renewal = try payload(harness.run("jws", "renewal", "com.example.app.pro.monthly").stdout)
        #expect(renewal["environment"] as? String == "Production")
        #expect(renewal["autoRenewStatus"] as? Int == 1)
        #expect(renewal["renewalPrice"] as? Int == 2990)
        #expect(harness.run("jws", "renewal", "com.example.app.book").status == 64)
        #expect(harness.run("jws", "transaction", "99").status == 64)
        #expect(harness.run("jws", "transaction", "1", "--environment", "Staging").status == 64)
    }

    @Test func listsCarryJWSRepresentationsWhenAsked() throws {
        let transactions = try #require(try harness.json("transactions", "--jws")["transactions"] as? [[String: Any]])
        let jws = try #require(transactions.first?["jwsRepresentation"] as? String)
        #expect(try payload(jws)["transactionId"] as? String == "1")
        let status = try harness.json("status", "--jws")
        #expect(((status["entitlements"] as? [[String: Any]])?.first?["jwsRepresentation"] as? String) != nil)
        #expect(harness.run("transactions", "--jws").status == 64)  // --jws goes with --json
    }

    /// `certs rotate` makes a whole new set, the RSA receipt chain included: the one test of
    /// the command line that makes RSA keys (seconds in a debug build).
    @Test func certificatesAreTestOnlyKeptPrivateExportedAndRotated() throws {
        let first = harness.run("certs")
        #expect(first.status == 0 && first.stderr.contains("no RSA receipt chain yet"), "\(first.stderr)")
        try harness.installReceiptChainFixture()
        let shown = harness.run("certs")
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("CN=iapsim TEST ONLY Root CA"))
        #expect(shown.stdout.contains("CN=iapsim TEST ONLY Receipt Root CA"))
        let certs = harness.stateDirectory + "/certs"
        for name in SigningIdentity.fileNames + ReceiptSigningChain.fileNames where name.hasSuffix(".key") {
            // The name is a link through `current` to the set folder; the key file itself is 0600.
            let file = URL(fileURLWithPath: certs + "/" + name).resolvingSymlinksInPath().path
            let mode = try FileManager().attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name)")
        }
        let export = harness.stateDirectory + "/exported"
        #expect(harness.run("certs", "export", export).status == 0)
        #expect(FileManager().fileExists(atPath: export + "/root.der"))
        #expect(FileManager().fileExists(atPath: export + "/receipt-root.der"))
        #expect(!FileManager().fileExists(atPath: export + "/leaf.key"))
        #expect(!FileManager().fileExists(atPath: export + "/receipt-leaf.key"))
        let before = try String(contentsOfFile: certs + "/root.pem", encoding: .utf8)
        let receiptRootBefore = try String(contentsOfFile: certs + "/receipt-root.pem", encoding: .utf8)
        let jws = harness.run("jws", "transaction", "1").stdout.trimmingCharacters(in: .newlines)
        #expect(harness.run("certs", "rotate").status == 0)
        #expect(try String(contentsOfFile: certs + "/root.pem", encoding: .utf8) != before)
        #expect(try String(contentsOfFile: certs + "/receipt-root.pem", encoding: .utf8) != receiptRootBefore)
        let rotated = try #require(try SigningIdentity.load(from: certs)?.receiptChain)
        #expect(rotated.leafKey.publicKey.bitCount == 2048)
        #expect(harness.run("jws", "decode", jws).status == 65)  // signed by the old chain
    }

    @Test func aPinnedFolderIsSharedAndABrokenOneIsNamed() throws {
        let pinned = harness.stateDirectory + "/pinned"
        let other = Harness(environment: ["IAPSIM_CERTS_DIR": pinned])
        _ = other.run("buy", "com.example.app.book")
        let jws = other.run("jws", "transaction", "1").stdout.trimmingCharacters(in: .newlines)
        #expect(harness.run("jws", "decode", jws, "--certs", pinned).status == 0)
        try "garbage".write(toFile: pinned + "/leaf.pem", atomically: true, encoding: .utf8)
        let broken = other.run("jws", "transaction", "1")
        #expect(broken.status == 65)
        #expect(broken.stderr.contains(pinned + "/leaf.pem"))
    }
}

/// The chain iapsim writes passes OpenSSL's strict verification, at the dates the simulated
/// clock can reach.
@Suite struct SigningIdentityOpenSSLTests {
    @Test func theExportedChainVerifiesStrictly() throws {
        let openssl = try External.executable("/usr/bin/openssl")
        let folder = FileManager().temporaryDirectory.appendingPathComponent("iapsim-pki-" + UUID().uuidString).path
        defer { try? FileManager().removeItem(atPath: folder) }
        let identity = try SigningIdentity.loadOrCreate(in: folder + "/certs", lockTimeout: 5)
        _ = try identity.export(to: folder + "/out")
        for date in [nil, "157766400", "16725225600"] {  // now, 1975, 2500
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments =
                ["verify", "-x509_strict", "-CAfile", folder + "/out/root.pem"]
                + ["-untrusted", folder + "/out/intermediate.pem"]
                + (date.map { ["-attime", $0] } ?? []) + [folder + "/out/leaf.pem"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(date ?? "now"): \(text)")
        }
        #expect(try SigningIdentity.load(from: folder + "/certs")?.chain.root == identity.chain.root)
    }
}
