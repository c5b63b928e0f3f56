import Foundation
import IAPSimCrypto
import IAPSimJSON
import IAPSimKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Receipt: CLICommand {
    static let spec = CommandSpec(
        name: "receipt", abstract: "Write the app receipt a StoreKit 1 app sends its server, or decode one.",
        synopsis: "[--out FILE] [--base64] [--device-id UUID] | decode [FILE]",
        discussion: """
            The account's app receipt (Bundle.main.appStoreReceiptURL) as Apple lays it out:
            PKCS #7 SignedData in DER over the ASN.1 set of receipt fields (bundle id, app
            version, opaque value, SHA-1 hash, creation date, original application version) and
            one in-app purchase receipt per transaction: consumables until the app finishes
            them, everything else for good. It is signed as Apple signs receipts, RSA with
            SHA-256 (sha256WithRSAEncryption), by the receipt leaf of the certs set ('iapsim
            certs': receipt-root.pem, receipt-intermediate.pem, receipt-leaf.pem), carrying its
            certificates leaf, intermediate, root as Apple's do: 'openssl cms -verify -CAfile
            receipt-root.pem' accepts it. It goes to standard output (refused on a terminal:
            use --out FILE or --base64, the text apps post to /verifyReceipt). --device-id
            is the identifierForVendor the SHA-1 hash binds it to (default
            00000000-0000-4000-8000-000000000000). --json prints the decoded fields as
            verifyReceipt's "receipt" object, with receiptData (Base64).
            'decode [FILE]' reads a receipt (DER, or Base64 text; FILE or standard input) and
            prints its fields and who signed it: exit 0 when iapsim's root vouches for it, 65
            for an altered receipt or another chain (a real App Store receipt decodes, and
            says its chain is not iapsim's).
            """,
        arguments: [.init("action", kind: .word(["decode"])), .init("file", kind: .text)],
        options: [
            .certs,
            .environment,
            .value("out", "FILE", help: "Write the receipt there (DER, or Base64 with --base64).", completes: .file),
            .flag("base64", help: "Base64 text, as apps send receipt-data to their servers."),
            .value("device-id", "UUID", help: "The device identifier the receipt's SHA-1 hash binds it to."),
        ],
        examples: [
            "iapsim receipt --out receipt.der", "iapsim receipt --base64",
            "iapsim certs export certs && iapsim receipt --out r.der && openssl cms -verify -inform DER -in r.der "
                + "-CAfile certs/receipt-root.pem -out payload.der",
            "iapsim receipt --base64 | iapsim receipt decode",
        ])

    enum Action: Equatable {
        case write(out: String?, base64: Bool, device: UUID)
        case decode(file: String?)
    }

    let action: Action

    init(_ words: ParsedWords) throws(UsageError) {
        if words.arguments.first == "decode" {
            try words.refuse(["out", "base64", "device-id"], with: "'iapsim receipt decode'")
            guard words.arguments.count <= 2 else { throw words.error("usage: iapsim receipt decode [FILE]") }
            let file = words.arguments.count == 2 && words.arguments[1] != "-" ? words.arguments[1] : nil
            action = .decode(file: file)
            return
        }
        if let verb = words.arguments.first { throw words.error("unknown receipt action '\(verb)'; use decode") }
        var device = StoreSession.ReceiptRequest.defaultDeviceIdentifier
        if let text = words.value("device-id") {
            guard let uuid = UUID(uuidString: text) else { throw words.error("--device-id \(text): expected a UUID") }
            device = uuid
        }
        action = .write(out: words.value("out"), base64: words.flag("base64"), device: device)
    }

    func run(in context: CommandContext) throws -> Report {
        switch action {
        case .write(let out, let base64, let device):
            return try write(out: out, base64: base64, device: device, in: context)
        case .decode(let file): return try decode(file, in: context)
        }
    }

    private func write(out: String?, base64: Bool, device: UUID, in context: CommandContext) throws -> Report {
        let (_, session) = try context.catalogAndSession()
        let signer = try context.signer()
        let receipt = try session.appReceipt(
            StoreSession.ReceiptRequest(deviceIdentifier: device, environment: signer.environment))
        let identity = try signer.identity.withReceiptChain(lockTimeout: try context.stateStore().location.lockTimeout)
        let der = try identity.signReceipt(receipt)
        let bytes = base64 ? Array((Data(der).base64EncodedString() + "\n").utf8) : der
        let summary =
            "\(receipt.inAppPurchases.count) in-app purchase receipt\(receipt.inAppPurchases.count == 1 ? "" : "s"), "
            + "\(der.count) bytes"
        if context.options.json {
            var report = Report(
                json: .object([
                    ("receipt", Self.receiptJSON(receipt, context: context)),
                    ("receiptData", .string(Data(der).base64EncodedString())),
                ]))
            if let out { report.notes = [try Self.save(bytes, to: out, in: context) + " (\(summary))"] }
            return report
        }
        if let out {
            let line = try Self.save(bytes, to: out, in: context)
            return Report(json: nil, lines: ["\(line): \(summary)."])
        }
        if !base64, context.console.outputIsTerminal {
            throw UsageError(
                "the receipt is binary DER: give --out FILE, or --base64 for text", command: Self.spec.name)
        }
        return Report(json: nil, text: { [.bytes(bytes)] })
    }

    private static func save(_ bytes: [UInt8], to out: String, in context: CommandContext) throws -> String {
        let path = context.absolutePath(out)
        // The file is replaced by a rename: never over a device, a pipe or a folder (/dev/null).
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG, info.st_mode & S_IFMT != S_IFLNK {
            throw UsageError(
                "--out \(out): not a regular file; give a file path, or leave --out out for standard output",
                command: Self.spec.name)
        }
        try OutsideFile.write(bytes, to: path)
        return "Wrote \(path)"
    }

    private static func receiptJSON(_ receipt: AppReceipt, context: CommandContext) -> JSON {
        var json = LegacyReceiptJSON.receipt(
            receipt, originalPurchaseDate: receipt.creationDate, requestDate: context.now(), appAppleID: nil)
        if case .object(var members) = json {
            // The fields only the ASN.1 form has (Apple, "Receipt Fields": JSON Field Name none).
            members.append(("opaque_value", .string(Data(receipt.opaqueValue).base64EncodedString())))
            members.append(("sha1_hash", .string(receipt.sha1Hash.map { String(format: "%02x", $0) }.joined())))
            json = .object(members)
        }
        return json
    }

    private func decode(_ file: String?, in context: CommandContext) throws -> Report {
        let bytes: [UInt8]
        if let file {
            let path = context.absolutePath(file)
            guard let data = FileManager().contents(atPath: path) else {
                throw UsageError("\(file): cannot read it", command: Self.spec.name)
            }
            bytes = Array(data)
        } else {
            switch context.console.readLine(atMost: ReceiptInspection.maximumLength) {
            case .line(let line): bytes = Array(line.utf8)
            case .tooLong: throw ReceiptError.malformed("standard input holds more than a receipt may")
            case .end: bytes = []
            }
        }
        guard !bytes.isEmpty else {
            throw UsageError(
                "no receipt given: pass a file, or its Base64 text on standard input", command: Self.spec.name)
        }
        let directory = try context.certsDirectory()
        let roots = try SigningIdentity.load(from: directory)?.receiptTrustAnchors ?? []
        let inspection = try ReceiptInspection.inspect(bytes, trusting: roots)
        let chain: String
        switch inspection.chain {
        case .iapsim: chain = "verified: signed by the test chain in \(directory)"
        case .badSignature: chain = "NOT verified: the signature does not match the content (altered)"
        case .foreign(let signer): chain = "NOT verified: its chain is not iapsim's (signer \(signer))"
        }
        let receipt = inspection.receipt
        var lines = [
            "Receipt: \(chain)",
            "Type: \(receipt.receiptType)  Bundle: \(receipt.bundleID)  Version: \(receipt.applicationVersion)",
            "Created: \(ISO8601Date.string(receipt.creationDate))  Signature: "
                + "\(Self.name(inspection.container.signatureAlgorithm)) (\(Self.name(inspection.container.digestAlgorithm)))",
            "In-app purchase receipts: \(receipt.inAppPurchases.count)",
        ]
        for purchase in receipt.inAppPurchases {
            var line =
                "  \(purchase.transactionID) \(purchase.productID) ×\(purchase.quantity) "
                + ISO8601Date.string(purchase.purchaseDate)
            if let expires = purchase.subscriptionExpirationDate { line += " expires \(ISO8601Date.string(expires))" }
            if let cancelled = purchase.cancellationDate { line += " cancelled \(ISO8601Date.string(cancelled))" }
            lines.append(line)
        }
        return Report(
            status: inspection.verifies ? .success : .dataError,
            json: .object([
                ("verified", .bool(inspection.verifies)), ("chain", .string(chain)),
                ("receipt", Self.receiptJSON(receipt, context: context)),
            ]), lines: lines)
    }

    /// An algorithm by the name openssl prints for it, or its dotted form when it is none of these.
    private static func name(_ algorithm: ASN1ObjectIdentifier) -> String {
        switch algorithm {
        case .sha256WithRSAEncryption: "sha256WithRSAEncryption"
        case .rsaEncryption: "rsaEncryption"
        case .ecdsaWithSHA256: "ecdsa-with-SHA256"
        case CMSSignedData.sha256: "SHA-256"
        default: algorithm.description
        }
    }
}
