import Foundation
import IAPSimCrypto

/// A receipt read back: its fields, its container, and whether iapsim's root vouches for it.
/// Any receipt is read — iapsim's, or a real one the App Store signed — and its chain judged.
public struct ReceiptInspection: Sendable {
    /// Who signed it.
    public enum Chain: Sendable, Equatable {
        /// The signature verifies and the signer's chain ends at iapsim's root.
        case iapsim
        /// The signer's chain is iapsim's but the signature does not verify: altered bytes.
        case badSignature
        /// Another chain (a real App Store receipt, or another tool's): the signer's subject.
        case foreign(signer: String)
    }

    public var receipt: AppReceipt
    public var container: CMSSignedData
    public var chain: Chain

    /// The most a receipt may hold: far past any real receipt, and what `serve` accepts.
    public static let maximumLength = 64 << 20

    /// Reads `bytes`: the DER (or BER) receipt, or its Base64 text.
    /// - Parameter roots: iapsim's roots (`SigningIdentity.receiptTrustAnchors`); empty when
    ///   the state has no certificates yet (then no chain is iapsim's).
    /// - Throws: `ReceiptError.malformed` for anything that is not a receipt.
    public static func inspect(_ bytes: [UInt8], trusting roots: [X509Certificate]) throws(ReceiptError) -> Self {
        guard bytes.count <= maximumLength else {
            throw .malformed("it is \(bytes.count) bytes, more than the \(maximumLength) a receipt may hold")
        }
        // Base64 text (what apps send their servers) unless it starts as a container does.
        if bytes.first != DERTag.sequence {
            guard let decoded = ReceiptText.decode(bytes[...], jsonEscaped: false) else {
                throw .malformed("it is neither a DER container nor Base64 text")
            }
            return try inspect(der: decoded, trusting: roots)
        }
        return try inspect(der: bytes, trusting: roots)
    }

    /// Reads a receipt's Base64 text as it lies inside a JSON string (`/verifyReceipt`'s
    /// `receipt-data`, escapes as sent), decoding it straight from there: no copy of the text.
    /// - Returns: nil when the text holds an escape other than `\/` and the line-break ones,
    ///   which the caller then decodes as a string first.
    /// - Throws: `ReceiptError.malformed` for anything that is not a receipt.
    public static func inspect(jsonStringContent text: ArraySlice<UInt8>, trusting roots: [X509Certificate])
        throws(ReceiptError) -> Self?
    {
        guard text.count <= maximumLength else {
            throw .malformed("it is \(text.count) bytes, more than the \(maximumLength) a receipt may hold")
        }
        guard !text.contains(UInt8(ascii: "\\")) || ReceiptText.hasOnlySimpleEscapes(text) else { return nil }
        guard let decoded = ReceiptText.decode(text, jsonEscaped: true) else {
            throw .malformed("it is not Base64 text")
        }
        return try inspect(der: decoded, trusting: roots)
    }

    private static func inspect(der: [UInt8], trusting roots: [X509Certificate]) throws(ReceiptError) -> Self {
        let container: CMSSignedData
        do {
            container = try CMSSignedData(derRepresentation: der)
        } catch {
            // Receipts written by other signers are often BER outside: read them once more.
            guard let normalized = try? BERNormalizer.definiteLengths(der),
                let reread = try? CMSSignedData(derRepresentation: normalized)
            else { throw .malformed("not a PKCS #7 SignedData container: \(error.localizedDescription)") }
            container = reread
        }
        guard container.contentType == CMSSignedData.dataType else {
            throw .malformed("the container's content is not data (id-data)")
        }
        var payload = container.content
        // Xcode's receipts wrap the payload in one more OCTET STRING (as Apple's
        // app-store-server-library notes in ReceiptUtility).
        if payload.first == DERTag.octetString {
            var reader = DERReader(payload)
            if let inner = try? reader.readOctetString(), reader.isAtEnd { payload = inner }
        }
        let receipt = try AppReceipt(payload: payload)
        return ReceiptInspection(receipt: receipt, container: container, chain: judge(container, roots: roots))
    }

    private static func judge(_ container: CMSSignedData, roots: [X509Certificate]) -> Chain {
        guard let signer = container.signerCertificate else { return .foreign(signer: "no signer certificate") }
        let subject = (try? signer.subject().description) ?? "an unreadable subject"
        // The signer, issued by an intermediate the container carries, issued by a root.
        let reachesRoot = roots.contains { root in
            signer.isIssued(by: root)
                || container.certificates.contains { $0 != signer && signer.isIssued(by: $0) && $0.isIssued(by: root) }
        }
        guard reachesRoot else { return .foreign(signer: subject) }
        return container.isSignatureValid ? .iapsim : .badSignature
    }

    /// Whether the receipt is iapsim's and intact.
    public var verifies: Bool { chain == .iapsim }
}
