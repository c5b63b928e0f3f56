import Foundation

/// A PKCS #7 / CMS `SignedData` (RFC 5652) with its content attached and one signer: what
/// `openssl cms -sign -nodetach -binary -noattr` writes, and the container App Store receipts use.
///
/// `sign` writes it in DER with an RSA (sha256WithRSAEncryption, as App Store receipts are
/// signed) or ECDSA P-256 / SHA-256 signer and no signed attributes (the signature covers the
/// content itself). Reading takes any strict-DER `SignedData` — any
/// algorithms, certificates of any key type — so a container that is not iapsim's is still
/// read and shown; `isSignatureValid` checks only what this code can verify.
public struct CMSSignedData: Sendable, Equatable {
    /// id-signedData, 1.2.840.113549.1.7.2.
    public static let signedDataType = ASN1ObjectIdentifier(constant: 1, 2, 840, 113_549, 1, 7, 2)
    /// id-data, 1.2.840.113549.1.7.1.
    public static let dataType = ASN1ObjectIdentifier(constant: 1, 2, 840, 113_549, 1, 7, 1)
    /// id-sha256, 2.16.840.1.101.3.4.2.1.
    public static let sha256 = ASN1ObjectIdentifier(constant: 2, 16, 840, 1, 101, 3, 4, 2, 1)
    /// id-messageDigest, the signed attribute holding the content's digest.
    static let messageDigest = ASN1ObjectIdentifier(constant: 1, 2, 840, 113_549, 1, 9, 4)

    /// The encapsulated content's type (id-data for a receipt).
    public let contentType: ASN1ObjectIdentifier
    /// The encapsulated content's bytes.
    public let content: [UInt8]
    /// The certificates the container carries, in its order.
    public let certificates: [X509Certificate]
    /// The signer's digest algorithm.
    public let digestAlgorithm: ASN1ObjectIdentifier
    /// The signer's signature algorithm (ecdsa-with-SHA256, sha256WithRSAEncryption …).
    public let signatureAlgorithm: ASN1ObjectIdentifier
    /// The signature's bytes.
    public let signature: [UInt8]
    /// The signer's issuer Name (DER) and serial number, which name its certificate.
    public let signerIssuer: [UInt8]
    public let signerSerialNumber: [UInt8]
    /// The signed attributes' SET, re-tagged as the signature covers it; nil when there are none.
    public let signedAttributes: [UInt8]?

    /// Signs `content` (as id-data) with `key`, the key of `signer`, carrying `certificates`.
    /// - Returns: the DER ContentInfo.
    public static func sign(
        content: [UInt8], signer: X509Certificate, key: some X509SigningKey, certificates: [X509Certificate]
    ) throws(CryptoError) -> [UInt8] {
        // The signer is named by issuer and serial number, both read from its certificate.
        var reader = DERReader(signer.derRepresentation)
        var certificate = try reader.readSequence()
        var tbs = try certificate.readSequence()
        if try tbs.readOptionalExplicit(tagNumber: 0) != nil {}
        let serial = try tbs.readElement(tag: DERTag.integer)
        let signature = key.signatureBytes(for: content)
        // In the order given (leaf, intermediate, root), as Apple's receipts carry them: a
        // validator that takes the first certificate as the signer's must find the leaf. DER
        // would sort a SET OF; Apple's receipts are BER and do not, and every reader takes
        // them so (RFC 5652's CertificateSet order carries no meaning).
        let sorted = certificates.map(\.derRepresentation)
        var writer = DERWriter()
        writer.writeSequence { info in
            info.writeObjectIdentifier(signedDataType)
            info.writeExplicit(tagNumber: 0) { explicit in
                explicit.writeSequence { signed in
                    signed.writeInteger(1)
                    signed.writeSet { $0.writeSequence { $0.writeObjectIdentifier(sha256) } }
                    signed.writeSequence { encapsulated in
                        encapsulated.writeObjectIdentifier(dataType)
                        encapsulated.writeExplicit(tagNumber: 0) { $0.writeOctetString(content) }
                    }
                    signed.writeConstructed(tag: DERTag.contextSpecific(0, constructed: true)) { set in
                        for der in sorted { set.writeEncoded(der) }
                    }
                    signed.writeSet { infos in
                        infos.writeSequence { signerInfo in
                            signerInfo.writeInteger(1)
                            signerInfo.writeSequence { sid in
                                sid.writeEncoded(signer.issuerBytes)
                                sid.writeEncoded(serial.encoded)
                            }
                            signerInfo.writeSequence { $0.writeObjectIdentifier(sha256) }
                            signerInfo.writeEncoded(key.signatureAlgorithmIdentifier)
                            signerInfo.writeOctetString(signature)
                        }
                    }
                }
            }
        }
        return writer.bytes
    }

    /// Reads a DER ContentInfo holding a SignedData with one signer.
    /// - Throws: `CryptoError` for anything else, or for bytes that are not strict DER.
    public init(derRepresentation bytes: [UInt8]) throws(CryptoError) {
        var reader = DERReader(bytes)
        var info = try reader.readSequence()
        try reader.finish()
        guard try info.readObjectIdentifier() == Self.signedDataType else {
            throw .derInvalidValue("the container is not PKCS #7 SignedData")
        }
        guard var explicit = try info.readOptionalExplicit(tagNumber: 0) else {
            throw .derInvalidValue("the SignedData has no content")
        }
        try info.finish()
        var signed = try explicit.readSequence()
        try explicit.finish()
        _ = try signed.readInteger()
        _ = try signed.readSet()
        var encapsulated = try signed.readSequence()
        contentType = try encapsulated.readObjectIdentifier()
        guard var eContent = try encapsulated.readOptionalExplicit(tagNumber: 0) else {
            throw .derInvalidValue("the SignedData's content is detached")
        }
        content = try eContent.readOctetString()
        try eContent.finish()
        try encapsulated.finish()
        var certificates: [X509Certificate] = []
        if let element = try signed.readOptionalElement(tag: DERTag.contextSpecific(0, constructed: true)) {
            var set = try element.childReader()
            while !set.isAtEnd {
                certificates.append(try X509Certificate(derRepresentation: try set.readElement().encoded))
            }
        }
        self.certificates = certificates
        _ = try signed.readOptionalElement(tag: DERTag.contextSpecific(1, constructed: true))  // CRLs
        var signerInfos = try signed.readSet()
        try signed.finish()
        var signerInfo = try signerInfos.readSequence()
        guard signerInfos.isAtEnd else { throw .derInvalidValue("the SignedData has more than one signer") }
        _ = try signerInfo.readInteger()
        var sid = try signerInfo.readSequence()
        signerIssuer = Array(try sid.readElement(tag: DERTag.sequence).encoded)
        signerSerialNumber = try sid.readUnsignedInteger()
        try sid.finish()
        var digest = try signerInfo.readSequence()
        digestAlgorithm = try digest.readObjectIdentifier()
        if let attributes = try signerInfo.readOptionalElement(tag: DERTag.contextSpecific(0, constructed: true)) {
            // RFC 5652 §5.4: the signature covers the attributes with their SET tag.
            signedAttributes = [DERTag.set] + Array(attributes.encoded.dropFirst())
        } else {
            signedAttributes = nil
        }
        var algorithm = try signerInfo.readSequence()
        signatureAlgorithm = try algorithm.readObjectIdentifier()
        signature = try signerInfo.readOctetString()
    }

    /// The certificate the signer names, if the container carries it.
    public var signerCertificate: X509Certificate? {
        certificates.first { $0.issuerBytes == signerIssuer && $0.serialNumber == signerSerialNumber }
    }

    /// Whether the signature verifies under the signer's certificate: RSASSA-PKCS1-v1_5 with
    /// SHA-256 (named sha256WithRSAEncryption or, as RFC 4056 §2 allows, rsaEncryption) or
    /// ECDSA P-256 with SHA-256, over the content, or over signed attributes whose message
    /// digest is the content's. Another algorithm or key type is simply not valid here.
    public var isSignatureValid: Bool {
        guard digestAlgorithm == Self.sha256, let signer = signerCertificate else { return false }
        let signed: [UInt8]
        if let signedAttributes {
            guard Self.messageDigest(in: signedAttributes) == SHA256.hash(content) else { return false }
            signed = signedAttributes
        } else {
            signed = content
        }
        switch signatureAlgorithm {
        case .ecdsaWithSHA256:
            guard let key = try? signer.publicKey(), let parsed = try? ECDSASignature(derRepresentation: signature)
            else { return false }
            return key.isValidSignature(parsed, for: signed)
        case .sha256WithRSAEncryption, .rsaEncryption:
            guard let key = try? signer.rsaPublicKey() else { return false }
            return key.isValidSignature(signature, for: signed)
        default:
            return false
        }
    }

    private static func messageDigest(in attributes: [UInt8]) -> [UInt8]? {
        var reader = DERReader(attributes)
        guard var set = try? reader.readSet() else { return nil }
        while !set.isAtEnd {
            guard var attribute = try? set.readSequence(), let type = try? attribute.readObjectIdentifier(),
                var values = try? attribute.readSet()
            else { return nil }
            if type == messageDigest { return try? values.readOctetString() }
        }
        return nil
    }
}
