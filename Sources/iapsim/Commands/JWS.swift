import Foundation
import IAPSimKit

struct JWS: CLICommand {
    static let spec = CommandSpec(
        name: "jws", abstract: "Signed data as the App Store signs it (JWS), and a decoder that checks it.",
        synopsis: "transaction <id> | renewal <product-id|original-id> | app-transaction | decode [JWS]",
        discussion: """
            Prints a compact JWS (ES256) exactly as Apple's servers and StoreKit's
            jwsRepresentation give it: JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload
            or the AppTransaction, dated now on the simulated clock. Sandbox, Production and
            LocalTesting data carry a three-certificate chain to iapsim's test root in x5c, so
            Apple's SignedDataVerifier accepts it when it trusts that root ('iapsim certs export');
            Xcode data is signed as Xcode does, with one self-signed certificate.
            The environment is --environment, else 'settings set environment' (default Sandbox);
            bundleId comes from 'settings set bundle-id', appAppleId from 'settings set app-apple-id'.
            'decode' prints header and payload and whether the signature and chain verify against
            this state's certificates (exit 0), or not (exit 65); the JWS may come on stdin. A
            JWS longer than 1 MiB (1048576 bytes) is refused at once (exit 65): signed data
            from the App Store is a few kilobytes.
            """,
        arguments: [.init("action", kind: .word(["transaction", "renewal", "app-transaction", "decode"]))],
        options: [
            .certs,
            .environment,
        ],
        examples: [
            "iapsim buy com.example.app.pro.monthly && iapsim jws transaction 1",
            "iapsim jws renewal com.example.app.pro.monthly --environment Production --json",
            "iapsim jws app-transaction | iapsim jws decode",
        ])

    let action: Action

    enum Action: Equatable {
        case transaction(UInt64)
        /// A subscription's renewal info, by product identifier or original transaction id.
        case renewal(String)
        case appTransaction
        /// Decode and check a JWS; nil reads it from standard input.
        case decode(String?)
    }

    init(_ words: ParsedWords) throws(UsageError) {
        let arguments = words.arguments
        switch arguments.first {
        case "transaction":
            guard arguments.count == 2 else { throw words.error("usage: iapsim jws transaction <transaction-id>") }
            action = .transaction(try words.transactionID(arguments[1]))
        case "renewal":
            guard arguments.count == 2 else {
                throw words.error("usage: iapsim jws renewal <product-id|original-transaction-id>")
            }
            action = .renewal(arguments[1])
        case "app-transaction":
            try words.expect(count: 1)
            action = .appTransaction
        case "decode":
            try words.expect(count: 2)
            action = .decode(arguments.count == 2 && arguments[1] != "-" ? arguments[1] : nil)
        case let other:
            throw words.error(
                "\(other.map { "unknown jws action '\($0)'" } ?? "missing jws action"); "
                    + "use transaction, renewal, app-transaction or decode")
        }
    }

    func run(in context: CommandContext) throws -> Report {
        if case .decode(let text) = action { return try decode(text, in: context) }
        let (_, session) = try context.catalogAndSession()
        let signer = try context.signer()
        let signed: SignedData
        switch action {
        case .transaction(let id): signed = try session.signedTransaction(id, signer: signer)
        case .renewal(let selector): signed = try session.signedRenewalInfo(selector, signer: signer)
        case .appTransaction: signed = try session.appTransaction(signer: signer)
        case .decode: preconditionFailure("handled above")
        }
        return Report(json: .object([("jws", .string(signed.jws)), ("payload", signed.payload)]), lines: [signed.jws])
    }
}

extension JWS {
    /// `jws decode`: the header and payload, and whether they verify against this state's
    /// certificates; exit 65 when they do not.
    private func decode(_ argument: String?, in context: CommandContext) throws -> Report {
        var text = argument ?? ""
        if argument == nil {
            switch context.console.readLine(atMost: JWSInspection.maximumLength) {
            case .line(let line): text = line
            case .tooLong: throw SigningError.jwsTooLarge(limit: JWSInspection.maximumLength)
            case .end: break
            }
        }
        guard !text.isEmpty else {
            throw UsageError("no JWS given: pass it as an argument or on standard input", command: Self.spec.name)
        }
        let directory = try context.certsDirectory()
        let inspection = try JWSInspection.inspect(text, trusting: try SigningIdentity.load(from: directory))
        let chain: String
        switch inspection.chain {
        case .trusted: chain = "trusted: leaf, intermediate and root in \(directory)"
        case .xcode: chain = "trusted: the Xcode certificate in \(directory)"
        case .untrusted(let reason): chain = "not trusted: \(reason)"
        }
        let signature = inspection.signatureIsValid ? "valid" : "INVALID"
        return Report(
            status: inspection.verifies ? .success : .dataError,
            json: .object([
                ("header", inspection.header), ("payload", inspection.payload),
                ("signatureIsValid", .bool(inspection.signatureIsValid)), ("chain", .string(chain)),
                ("verified", .bool(inspection.verifies)),
            ]),
            lines: ["Header:"] + inspection.header.indentedLines + ["Payload:"] + inspection.payload.indentedLines + [
                "Signature: \(signature)", "Chain: \(chain)",
            ])
    }
}
