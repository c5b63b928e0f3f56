import Foundation
import IAPSimCrypto

/// A signing set `iapsim certs rotate` replaced, kept so `serve`'s OCSP responder answers
/// `revoked` for its intermediate and leaf, signed as RFC 6960 wants by their issuers — so
/// the old root and intermediate keep their keys here (test keys, mode 0600 like the set's).
///
/// One file per replaced set in the certs folder's `replaced/`, named after the leaf's
/// serial number: a `Replaced-At:` line (seconds since 1970, on the simulated clock of the
/// rotate) and the PEM blocks root, root key, intermediate, intermediate key, leaf. Written
/// before the new set is switched in, so a crash between leaves a record of the set still
/// current, which the responder ignores (the current set is good whatever a record says).
public struct ReplacedCertificateSet: Sendable {
    public static let folderName = "replaced"

    public let root: X509Certificate
    public let rootKey: P256PrivateKey
    public let intermediate: X509Certificate
    public let intermediateKey: P256PrivateKey
    public let leaf: X509Certificate
    /// When the set was replaced: its certificates' revocationTime.
    public let replacedAt: Date

    /// Records `chain` as replaced at `date` in `directory` (the certs folder).
    static func record(_ chain: TestCertificateChain, at date: Date, in directory: String) throws {
        let folder = directory + "/" + folderName
        do {
            try POSIXFile.makeDirectory(folder)
            let text =
                "Replaced-At: \(Int64(date.timeIntervalSince1970.rounded(.down)))\n"
                + [
                    chain.root.pemRepresentation, chain.rootKey.pemRepresentation,
                    chain.intermediate.pemRepresentation, chain.intermediateKey.pemRepresentation,
                    chain.leaf.pemRepresentation,
                ].joined()
            try POSIXFile.writeAtomically(Data(text.utf8), to: folder + "/" + fileName(for: chain.leaf))
        } catch {
            throw error.storeError
        }
    }

    /// Every set recorded in `directory` (the certs folder); a file that does not hold one is
    /// skipped, since a responder answers `unknown` rather than fail for it.
    static func all(in directory: String) -> [ReplacedCertificateSet] {
        let folder = directory + "/" + folderName
        guard let names = try? FileManager().contentsOfDirectory(atPath: folder) else { return [] }
        return names.sorted().filter { $0.hasSuffix(".pem") }.compactMap { name in
            guard let data = try? POSIXFile.readIfPresent(folder + "/" + name) else { return nil }
            return ReplacedCertificateSet(text: String(decoding: data, as: UTF8.self))
        }
    }

    private init?(text: String) {
        guard let first = text.split(separator: "\n").first, first.hasPrefix("Replaced-At: "),
            let seconds = Int64(first.dropFirst("Replaced-At: ".count)),
            let blocks = try? PEMDocument.parseAll(text), blocks.count == 5,
            let root = try? X509Certificate(derRepresentation: blocks[0].derBytes),
            let rootKey = try? P256PrivateKey(pemRepresentation: blocks[1].pemString),
            let intermediate = try? X509Certificate(derRepresentation: blocks[2].derBytes),
            let intermediateKey = try? P256PrivateKey(pemRepresentation: blocks[3].pemString),
            let leaf = try? X509Certificate(derRepresentation: blocks[4].derBytes),
            (try? root.publicKey()) == rootKey.publicKey, (try? intermediate.publicKey()) == intermediateKey.publicKey,
            intermediate.isIssued(by: root), leaf.isIssued(by: intermediate)
        else { return nil }
        (self.root, self.rootKey, self.intermediate, self.intermediateKey, self.leaf) = (
            root, rootKey, intermediate, intermediateKey, leaf
        )
        replacedAt = Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func fileName(for leaf: X509Certificate) -> String {
        leaf.serialNumber.map { String(format: "%02x", $0) }.joined() + ".pem"
    }
}
