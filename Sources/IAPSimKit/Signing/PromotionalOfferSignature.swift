import Foundation
import IAPSimCrypto

/// The key a `.storekit` file's `subscriptionOffersKeyPair` holds: what Xcode signs and checks
/// promotional offers with in local testing, as a developer's server does with its App Store
/// Connect subscription key.
public struct OfferSigningKey: Sendable, Equatable {
    /// The key identifier (`keyIdentifier` in the signature's payload).
    public var id: String
    /// The private key as the file has it: base64 of PKCS #8 DER, or PEM.
    var privateKeyText: String

    public init(id: String, privateKey: String) {
        self.id = id
        self.privateKeyText = privateKey
    }

    /// The private key, read now: a file whose key is unusable still loads, and says so here.
    /// - Throws: `OfferSignatureError.unusableKey`.
    public func privateKey() throws(OfferSignatureError) -> P256PrivateKey {
        if let key = try? P256PrivateKey(pemRepresentation: privateKeyText) { return key }
        let compact = privateKeyText.filter { !$0.isWhitespace }
        if let der = Data(base64Encoded: compact), let key = try? P256PrivateKey(derRepresentation: der) { return key }
        throw .unusableKey(keyID: id)
    }
}

/// Why a promotional offer's signature was not made or not accepted.
public enum OfferSignatureError: Error, Equatable, Sendable {
    /// `subscriptionOffersKeyPair.privateKey` is not a P-256 key.
    case unusableKey(keyID: String)
    /// The text is not `KEY_ID:NONCE:TIMESTAMP:SIGNATURE`.
    case malformed(String)
    /// The catalog (its path) has no `subscriptionOffersKeyPair` to sign with.
    case noKeyPair(path: String)
    /// The product has no promotional offer of this identifier.
    case notAPromotionalOffer(offerID: String, productID: String)
}

extension OfferSignatureError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .unusableKey(let id):
            "subscriptionOffersKeyPair \(id): the privateKey is not a P-256 key (base64 PKCS #8 or PEM)"
        case .noKeyPair(let path):
            "\(path): no subscriptionOffersKeyPair to sign with (Xcode adds one when promotional offer signing is "
                + "set up)"
        case .notAPromotionalOffer(let offerID, let productID):
            "\(offerID): not a promotional offer of \(productID)"
        case .malformed(let text):
            "\(text): not KEY_ID:NONCE:TIMESTAMP:SIGNATURE (a UUID nonce, a timestamp in milliseconds, a base64 signature)"
        }
    }
}

/// A promotional offer's signature, as the app passes it to StoreKit
/// (`Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`,
/// `SKPaymentDiscount`), made as Apple's "Generating a signature for promotional offers"
/// describes: ECDSA P-256 with SHA-256 over the bundle identifier, key identifier, product
/// identifier, offer identifier, app account token (lowercase; empty when none), nonce
/// (lowercase UUID) and timestamp (milliseconds), joined by U+2063 INVISIBLE SEPARATOR; the
/// DER signature in base64.
public struct PromotionalOfferSignature: Sendable, Equatable {
    public var keyID: String
    /// A lowercase UUID, new for each signature.
    public var nonce: String
    /// Milliseconds since 1970 when it was signed.
    public var timestamp: Int64
    /// The DER-encoded ECDSA signature, base64.
    public var signature: String

    public init(keyID: String, nonce: String, timestamp: Int64, signature: String) {
        self.keyID = keyID
        self.nonce = nonce
        self.timestamp = timestamp
        self.signature = signature
    }

    /// `KEY_ID:NONCE:TIMESTAMP:SIGNATURE`, how `buy --offer-signature` takes it.
    public var text: String { "\(keyID):\(nonce):\(timestamp):\(signature)" }

    /// Reads `KEY_ID:NONCE:TIMESTAMP:SIGNATURE`.
    public init(text: String) throws(OfferSignatureError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, !parts[0].isEmpty, UUID(uuidString: parts[1]) != nil, let timestamp = Int64(parts[2]),
            timestamp >= 0, Data(base64Encoded: parts[3]) != nil
        else { throw .malformed(text) }
        self.init(keyID: parts[0], nonce: parts[1].lowercased(), timestamp: timestamp, signature: parts[3])
    }

    /// The bytes signed.
    static func payload(
        bundleID: String, keyID: String, productID: String, offerID: String, appAccountToken: String?, nonce: String,
        timestamp: Int64
    ) -> [UInt8] {
        let separator = "\u{2063}"
        return Array(
            [
                bundleID, keyID, productID, offerID, appAccountToken?.lowercased() ?? "", nonce.lowercased(),
                String(timestamp),
            ]
            .joined(separator: separator).utf8)
    }

    /// Signs an offer as a developer's server does.
    /// - Throws: `OfferSignatureError.unusableKey`.
    public static func sign(
        with key: OfferSigningKey, bundleID: String, productID: String, offerID: String, appAccountToken: String?,
        nonce: UUID, timestamp: Int64
    ) throws(OfferSignatureError) -> PromotionalOfferSignature {
        let nonceText = nonce.uuidString.lowercased()
        let bytes = payload(
            bundleID: bundleID, keyID: key.id, productID: productID, offerID: offerID,
            appAccountToken: appAccountToken, nonce: nonceText, timestamp: timestamp)
        let signature = try key.privateKey().signature(for: bytes)
        return PromotionalOfferSignature(
            keyID: key.id, nonce: nonceText, timestamp: timestamp,
            signature: Data(signature.derRepresentation).base64EncodedString())
    }

    /// Whether it is a signature by `key` over this offer for this buyer.
    public func isValid(
        for key: OfferSigningKey, bundleID: String, productID: String, offerID: String, appAccountToken: String?
    ) throws(OfferSignatureError) -> Bool {
        guard keyID == key.id, let der = Data(base64Encoded: signature),
            let parsed = try? ECDSASignature(derRepresentation: der)
        else { return false }
        let bytes = Self.payload(
            bundleID: bundleID, keyID: keyID, productID: productID, offerID: offerID, appAccountToken: appAccountToken,
            nonce: nonce, timestamp: timestamp)
        return try key.privateKey().publicKey.isValidSignature(parsed, for: bytes)
    }
}
