import Foundation
import IAPSimCrypto
import IAPSimKit

struct Certs: CLICommand {
    static let spec = CommandSpec(
        name: "certs", abstract: "Show, export or replace the test certificates signed data uses.",
        synopsis: "[export DIR | rotate] [--certs DIR]",
        discussion: """
            A root CA, an intermediate (OID 1.2.840.113635.100.6.2.1) and a leaf (OID
            1.2.840.113635.100.6.11.1), P-256, valid 1970–9999, for signed JWS; an Xcode-style
            self-signed certificate; and the same three-level shape in RSA-2048 with
            sha256WithRSAEncryption (receipt-root.pem …), for app receipts, as Apple signs them:
            made on first use in the state folder's certs (or --certs DIR, IAPSIM_CERTS_DIR, to
            pin one set across CI jobs), keys mode 0600. The RSA chain joins a set the first
            time a receipt is signed, or at 'export' or 'rotate'. Every subject says iapsim TEST ONLY:
            they protect nothing. 'export DIR' writes root.pem, root.der, intermediate.pem,
            leaf.pem, xcode.pem, receipt-root.pem, receipt-root.der, receipt-intermediate.pem,
            receipt-leaf.pem and tls-root.pem for a backend's tests to trust, each through a new
            file renamed into place: a symlink at DIR or at one of them is refused (exit 73),
            never written through; 'rotate' makes a new set. The intermediate and the leaf
            name iapsim's OCSP responder, http://ocsp.iapsim.test/, which 'serve' answers as an
            HTTP proxy for verifiers with online checks on: good for the current set, revoked
            for a set 'rotate' replaced (kept, keys included, in the certs folder's replaced/).
            A set made by an iapsim before that names no responder and verifies with online
            checks off only: 'rotate' gives one that does. tls-root.pem is the TLS root that
            issues the certificate 'serve' answers Apple's host names with inside a CONNECT
            tunnel (tls-root.pem, tls-server.pem and their keys in the certs folder, valid
            2000–9999, not rotated): trust it with REQUESTS_CA_BUNDLE, SSL_CERT_FILE,
            NODE_EXTRA_CA_CERTS or curl --cacert.
            """,
        arguments: [.init("action", kind: .word(["export", "rotate"]))],
        options: [
            .certs
        ],
        examples: [
            "iapsim certs", "iapsim certs export ./trusted && openssl x509 -in trusted/root.pem -noout -subject",
        ])

    let action: Action

    enum Action: Equatable {
        case show
        case export(directory: String)
        case rotate
    }

    init(_ words: ParsedWords) throws(UsageError) {
        let arguments = words.arguments
        switch arguments.first {
        case nil: action = .show
        case "export":
            guard arguments.count == 2 else { throw words.error("usage: iapsim certs export DIR") }
            action = .export(directory: arguments[1])
        case "rotate":
            try words.expect(count: 1)
            action = .rotate
        case let other?:
            throw words.error("unknown certs action '\(other)'; use export or rotate")
        }
    }

    func run(in context: CommandContext) throws -> Report {
        let directory = try context.certsDirectory()
        let lockTimeout = try context.stateStore().location.lockTimeout
        switch action {
        case .show:
            let identity = try SigningIdentity.loadOrCreate(in: directory, lockTimeout: lockTimeout)
            var report = Self.describe(identity)
            if identity.receiptChain == nil {
                report.notes = [
                    "Note: no RSA receipt chain yet: the first 'iapsim receipt' or 'iapsim certs export' makes it."
                ]
            }
            return report
        case .rotate:
            // The replaced set's certificates are revoked as of now on the simulated clock,
            // the one serve answers with (its OCSP responder says so).
            let now = (try? context.session().clockReading().now) ?? context.now()
            let identity = try SigningIdentity.create(
                in: directory, replacing: true, lockTimeout: lockTimeout,
                receiptChain: { try ReceiptSigningChain.generate() }, replacedAt: now)
            var report = Self.describe(identity)
            report.notes = [
                "Note: a backend that trusted the old root must trust the new one (iapsim certs export DIR)."
            ]
            return report
        case .export(let target):
            let identity = try SigningIdentity.loadOrCreate(in: directory, lockTimeout: lockTimeout)
                .withReceiptChain(lockTimeout: lockTimeout)
            let folder = context.absolutePath(target)
            var written = try identity.export(to: folder)
            // The root a backend's HTTPS client trusts to reach serve's tunnel (REQUESTS_CA_BUNDLE).
            written.append(
                try TLSServerChain.loadOrCreate(in: directory, lockTimeout: lockTimeout).exportRoot(to: folder))
            return Report(
                json: .object([("directory", .string(folder)), ("files", .array(written.map(JSON.string)))]),
                lines: written.map { "Wrote \($0)" })
        }
    }
}

extension Certs {
    private static func describe(_ identity: SigningIdentity) -> Report {
        var certificates: [(String, X509Certificate, String)] = [
            ("root", identity.chain.root, "root.pem"),
            ("intermediate", identity.chain.intermediate, "intermediate.pem"),
            ("leaf", identity.chain.leaf, "leaf.pem"), ("xcode", identity.xcodeCertificate, "xcode.pem"),
        ]
        if let receipt = identity.receiptChain {
            certificates += [
                ("receipt-root", receipt.root, "receipt-root.pem"),
                ("receipt-intermediate", receipt.intermediate, "receipt-intermediate.pem"),
                ("receipt-leaf", receipt.leaf, "receipt-leaf.pem"),
            ]
        }
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
                                ("role", .string(role)),
                                ("subject", .string((try? certificate.subject())?.description ?? "?")),
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
