import Foundation

/// Assembles and signs an X.509 v3 certificate with ECDSA P-256 / SHA-256 or, for an RSA
/// issuer key, sha256WithRSAEncryption; the certified key may be either kind.
public struct X509CertificateBuilder: Sendable {
    /// The serial number's big-endian magnitude: must be positive and at most 20 bytes.
    public var serialNumber: [UInt8]
    /// The issuer name (the subject, for a self-signed certificate).
    public var issuer: DistinguishedName
    /// The subject name.
    public var subject: DistinguishedName
    /// Start of validity; encoded as UTCTime before 2050 and GeneralizedTime after.
    public var notBefore: Date
    /// End of validity, encoded the same way.
    public var notAfter: Date
    /// The key being certified.
    public var subjectPublicKey: any X509SubjectPublicKey
    /// Extensions, in the order they will be written.
    public var extensions: [X509Extension]

    /// Creates a builder with every field given.
    public init(
        serialNumber: [UInt8], issuer: DistinguishedName, subject: DistinguishedName,
        notBefore: Date, notAfter: Date, subjectPublicKey: any X509SubjectPublicKey, extensions: [X509Extension] = []
    ) {
        self.serialNumber = serialNumber
        self.issuer = issuer
        self.subject = subject
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.subjectPublicKey = subjectPublicKey
        self.extensions = extensions
    }

    /// Signs the certificate with the issuer's key and returns it parsed.
    /// - Throws: `CryptoError.unencodableValue` for a zero or over-long serial, dates outside
    ///   years 0–9999 or notAfter before notBefore, or duplicate extensions.
    public func sign(with issuerKey: some X509SigningKey) throws(CryptoError) -> X509Certificate {
        let magnitude = Array(serialNumber.drop(while: { $0 == 0 }))
        guard !magnitude.isEmpty else { throw .unencodableValue("the serial number must be positive") }
        // RFC 5280 §4.1.2.2 allows 20 content octets, the 0x00 sign octet included.
        guard magnitude.count + (magnitude[0] & 0x80 != 0 ? 1 : 0) <= 20 else {
            throw .unencodableValue("the serial number is longer than 20 octets")
        }
        guard notBefore <= notAfter else { throw .unencodableValue("notAfter is before notBefore") }
        let notBeforeElement = try ASN1Time.encodeTime(notBefore)
        let notAfterElement = try ASN1Time.encodeTime(notAfter)
        var seen = Set<ASN1ObjectIdentifier>()
        for item in extensions where !seen.insert(item.identifier).inserted {
            throw .unencodableValue("extension \(item.identifier) appears twice")
        }

        let algorithm = issuerKey.signatureAlgorithmIdentifier

        var tbsWriter = DERWriter()
        tbsWriter.writeSequence { tbs in
            tbs.writeExplicit(tagNumber: 0) { $0.writeInteger(2) }
            tbs.writeUnsignedInteger(bigEndian: magnitude)
            tbs.writeEncoded(algorithm)
            tbs.writeEncoded(issuer.derRepresentation)
            tbs.writeSequence { validity in
                validity.writeEncoded(notBeforeElement)
                validity.writeEncoded(notAfterElement)
            }
            tbs.writeEncoded(subject.derRepresentation)
            tbs.writeEncoded(subjectPublicKey.derRepresentation)
            if !extensions.isEmpty {
                tbs.writeExplicit(tagNumber: 3) { field in
                    field.writeSequence { list in
                        for item in extensions { item.write(to: &list) }
                    }
                }
            }
        }
        let tbsBytes = tbsWriter.bytes
        let signature = issuerKey.signatureBytes(for: tbsBytes)

        var certificateWriter = DERWriter()
        certificateWriter.writeSequence { certificate in
            certificate.writeEncoded(tbsBytes)
            certificate.writeEncoded(algorithm)
            certificate.writeBitString(bytes: signature)
        }
        return try X509Certificate(derRepresentation: certificateWriter.bytes)
    }
}
