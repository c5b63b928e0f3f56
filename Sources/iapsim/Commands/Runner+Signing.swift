import Foundation
import IAPSimCrypto
import IAPSimKit

extension Runner {
    /// `jws`: signed data as the App Store signs it, and a decoder that checks it.
    func jws(_ action: JWSAction) throws -> Report {
        if case .decode(let text) = action { return try decode(text) }
        let (_, session) = try catalogAndSession()
        let signer = try signer()
        let signed: SignedData
        switch action {
        case .transaction(let id): signed = try session.signedTransaction(id, signer: signer)
        case .renewal(let selector): signed = try session.signedRenewalInfo(selector, signer: signer)
        case .appTransaction: signed = try session.appTransaction(signer: signer)
        case .decode: preconditionFailure("handled above")
        }
        return Report(json: .object([("jws", .string(signed.jws)), ("payload", signed.payload)]), lines: [signed.jws])
    }

    /// `jws decode`: the header and payload, and whether they verify against this state's
    /// certificates; exit 65 when they do not.
    private func decode(_ argument: String?) throws -> Report {
        guard let text = argument ?? console.readLine(), !text.isEmpty else {
            throw UsageError("no JWS given: pass it as an argument or on standard input", command: .jws)
        }
        let directory = try certsDirectory()
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
            lines: [
                "Header:", String(decoding: inspection.header.bytes(), as: UTF8.self), "Payload:",
                String(decoding: inspection.payload.bytes(), as: UTF8.self), "Signature: \(signature)", "Chain: \(chain)",
            ])
    }

    /// `certs`: show, export or replace the test certificates.
    func certs(_ action: CertsAction) throws -> Report {
        let directory = try certsDirectory()
        let lockTimeout = try stateStore().location.lockTimeout
        switch action {
        case .show:
            let identity = try SigningIdentity.loadOrCreate(in: directory, lockTimeout: lockTimeout)
            return Self.describe(identity)
        case .rotate:
            let identity = try SigningIdentity.create(in: directory, replacing: true, lockTimeout: lockTimeout)
            var report = Self.describe(identity)
            report.notes = ["Note: a backend that trusted the old root must trust the new one (iapsim certs export DIR)."]
            return report
        case .export(let target):
            let identity = try SigningIdentity.loadOrCreate(in: directory, lockTimeout: lockTimeout)
            let folder = context.absolutePath(target)
            let written = try identity.export(to: folder)
            return Report(
                json: .object([("directory", .string(folder)), ("files", .array(written.map(JSON.string)))]),
                lines: written.map { "Wrote \($0)" })
        }
    }

    private static func describe(_ identity: SigningIdentity) -> Report {
        let certificates: [(String, X509Certificate, String)] = [
            ("root", identity.chain.root, "root.pem"), ("intermediate", identity.chain.intermediate, "intermediate.pem"),
            ("leaf", identity.chain.leaf, "leaf.pem"), ("xcode", identity.xcodeCertificate, "xcode.pem"),
        ]
        func fingerprint(_ certificate: X509Certificate) -> String {
            SHA256.hash(certificate.derRepresentation).map { String(format: "%02X", $0) }.joined(separator: ":")
        }
        return Report(
            json: .object([
                ("directory", .string(identity.directory)),
                (
                    "certificates",
                    .array(
                        certificates.map { role, certificate, file in
                            .object([
                                ("role", .string(role)), ("subject", .string((try? certificate.subject())?.description ?? "?")),
                                ("sha256", .string(fingerprint(certificate))),
                                ("path", .string(identity.directory + "/" + file)),
                            ])
                        })
                ),
            ]),
            lines: ["Test certificates in \(identity.directory) (TEST ONLY: they protect nothing):"]
                + certificates.flatMap { role, certificate, file in
                    [
                        "  \(role): \((try? certificate.subject())?.description ?? "?")",
                        "    SHA-256 \(fingerprint(certificate))", "    \(identity.directory)/\(file)",
                    ]
                })
    }
}
