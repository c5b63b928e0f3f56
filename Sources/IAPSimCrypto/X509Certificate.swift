import Foundation

/// A parsed X.509 certificate (RFC 5280): the signed TBS bytes, the signature, names,
/// validity, public key and extensions, with a check of the signature against an issuer key.
///
/// Parsing is strict DER and bounded; it does not judge the certificate's trustworthiness.
public struct X509Certificate: Sendable, Equatable {
    /// PEM label of a certificate.
    public static let pemLabel = "CERTIFICATE"

    /// The whole certificate.
    public let derRepresentation: [UInt8]
    /// The DER TBSCertificate: exactly the bytes the issuer signed.
    public let tbsCertificateBytes: [UInt8]
    /// 1, 2 or 3.
    public let version: Int
    /// The serial number's big-endian magnitude (serials must be positive).
    public let serialNumber: [UInt8]
    /// The signature algorithm (also required to match the one inside the TBS).
    public let signatureAlgorithm: ASN1ObjectIdentifier
    /// Whether the algorithm identifier carries parameters (ecdsa-with-SHA256 must not).
    let signatureAlgorithmHasParameters: Bool
    /// Whether those parameters, if any, are NULL (sha256WithRSAEncryption's may only be).
    let signatureAlgorithmParametersAreNullOrAbsent: Bool
    /// The signatureValue BIT STRING's bytes (for ECDSA, a DER ECDSA-Sig-Value).
    public let signature: [UInt8]
    /// The DER issuer Name, byte for byte as signed.
    public let issuerBytes: [UInt8]
    /// The DER subject Name, byte for byte as signed.
    public let subjectBytes: [UInt8]
    /// Start of the validity period.
    public let notBefore: Date
    /// End of the validity period (inclusive).
    public let notAfter: Date
    /// The DER SubjectPublicKeyInfo.
    public let subjectPublicKeyInfoBytes: [UInt8]
    /// The extensions, in certificate order.
    public let extensions: [X509Extension]

    /// Parses a DER certificate.
    /// - Throws: `CryptoError` for malformed DER or X.509 rule violations (mismatched
    ///   signature algorithms, duplicate extensions, extensions in a pre-v3 certificate).
    public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
        let bytes = Array(derRepresentation)
        var reader = DERReader(bytes)
        var certificate = try reader.readSequence()
        try reader.finish()

        let tbsElement = try certificate.readElement(tag: DERTag.sequence)
        let outerAlgorithm = try certificate.readElement(tag: DERTag.sequence)
        let signatureBits = try certificate.readBitString()
        try certificate.finish()
        guard signatureBits.unusedBitCount == 0 else {
            throw .invalidCertificate("the signature BIT STRING has unused bits")
        }

        var tbs = try tbsElement.childReader()
        var version: Int64 = 0
        if var versionField = try tbs.readOptionalExplicit(tagNumber: 0) {
            version = try versionField.readInteger()
            try versionField.finish()
            guard version == 1 || version == 2 else {
                throw .invalidCertificate("version field \(version) is not v2 or v3")
            }
        }
        let serial = try tbs.readUnsignedInteger()
        let innerAlgorithm = try tbs.readElement(tag: DERTag.sequence)
        // RFC 5280 §4.1.1.2: the outer and signed algorithm identifiers must be identical.
        guard innerAlgorithm.encoded.elementsEqual(outerAlgorithm.encoded) else {
            throw .invalidCertificate("the signature algorithm differs inside and outside the TBS")
        }
        var algorithm = try innerAlgorithm.childReader()
        let algorithmIdentifier = try algorithm.readObjectIdentifier()
        let hasParameters = !algorithm.isAtEnd
        var parametersAreNullOrAbsent = true
        if hasParameters {
            parametersAreNullOrAbsent = try algorithm.readElement().encoded.elementsEqual([0x05, 0x00])
        }
        try algorithm.finish()

        let issuer = try tbs.readElement(tag: DERTag.sequence)
        var validity = try tbs.readSequence()
        let notBefore = try validity.readTime()
        let notAfter = try validity.readTime()
        try validity.finish()
        let subject = try tbs.readElement(tag: DERTag.sequence)
        let spki = try tbs.readElement(tag: DERTag.sequence)
        _ = try tbs.readOptionalElement(tag: DERTag.contextSpecific(1, constructed: false))
        _ = try tbs.readOptionalElement(tag: DERTag.contextSpecific(2, constructed: false))
        var extensions = [X509Extension]()
        if var extensionsField = try tbs.readOptionalExplicit(tagNumber: 3) {
            guard version == 2 else { throw .invalidCertificate("extensions appear in a pre-v3 certificate") }
            var list = try extensionsField.readSequence()
            try extensionsField.finish()
            guard !list.isAtEnd else { throw .invalidCertificate("the extensions list is empty") }
            while !list.isAtEnd {
                var field = try list.readSequence()
                let identifier = try field.readObjectIdentifier()
                let critical = try field.readOptionalElement(tag: DERTag.boolean)?.booleanValue() ?? false
                let value = try field.readOctetString()
                try field.finish()
                guard !extensions.contains(where: { $0.identifier == identifier }) else {
                    throw .invalidCertificate("extension \(identifier) appears twice")
                }
                extensions.append(X509Extension(identifier: identifier, isCritical: critical, value: value))
            }
        }
        try tbs.finish()

        self.derRepresentation = bytes
        tbsCertificateBytes = Array(tbsElement.encoded)
        self.version = Int(version) + 1
        serialNumber = serial
        signatureAlgorithm = algorithmIdentifier
        signatureAlgorithmHasParameters = hasParameters
        signatureAlgorithmParametersAreNullOrAbsent = parametersAreNullOrAbsent
        signature = signatureBits.bytes
        issuerBytes = Array(issuer.encoded)
        subjectBytes = Array(subject.encoded)
        self.notBefore = notBefore
        self.notAfter = notAfter
        subjectPublicKeyInfoBytes = Array(spki.encoded)
        self.extensions = extensions
    }

    /// Parses the first "CERTIFICATE" block of `pemRepresentation`.
    public init(pemRepresentation: String) throws(CryptoError) {
        try self.init(derRepresentation: PEMDocument(pemString: pemRepresentation, label: Self.pemLabel).derBytes)
    }

    /// Parses every "CERTIFICATE" block of a PEM bundle, in order.
    public static func certificates(fromPEM text: String) throws(CryptoError) -> [X509Certificate] {
        var certificates = [X509Certificate]()
        for block in try PEMDocument.parseAll(text) where block.label == pemLabel {
            certificates.append(try X509Certificate(derRepresentation: block.derBytes))
        }
        return certificates
    }

    /// The certificate as "CERTIFICATE" PEM text.
    public var pemRepresentation: String {
        PEMDocument(label: Self.pemLabel, derBytes: derRepresentation).pemString
    }

    /// The parsed issuer name.
    public func issuer() throws(CryptoError) -> DistinguishedName {
        try DistinguishedName(derRepresentation: issuerBytes)
    }

    /// The parsed subject name.
    public func subject() throws(CryptoError) -> DistinguishedName {
        try DistinguishedName(derRepresentation: subjectBytes)
    }

    /// The subject's P-256 public key.
    /// - Throws: `CryptoError` when the key is not a valid P-256 key.
    public func publicKey() throws(CryptoError) -> P256PublicKey {
        try P256PublicKey(derRepresentation: subjectPublicKeyInfoBytes)
    }

    /// The extension with the given identifier, if present.
    public func `extension`(_ identifier: ASN1ObjectIdentifier) -> X509Extension? {
        extensions.first { $0.identifier == identifier }
    }

    /// Whether `date` lies within [notBefore, notAfter].
    public func isValid(at date: Date) -> Bool {
        date >= notBefore && date <= notAfter
    }

    /// Whether the certificate's ecdsa-with-SHA256 signature verifies under `issuerKey`.
    /// Any other signature algorithm, or a malformed signature, is simply not valid.
    public func isSignatureValid(issuerKey: P256PublicKey) -> Bool {
        guard signatureAlgorithm == .ecdsaWithSHA256, !signatureAlgorithmHasParameters,
            let parsed = try? ECDSASignature(derRepresentation: signature)
        else { return false }
        return issuerKey.isValidSignature(parsed, for: tbsCertificateBytes)
    }

    /// The subject's RSA public key.
    /// - Throws: `CryptoError` when the key is not a valid rsaEncryption key.
    public func rsaPublicKey() throws(CryptoError) -> RSAPublicKey {
        try RSAPublicKey(derRepresentation: subjectPublicKeyInfoBytes)
    }

    /// Whether the certificate's sha256WithRSAEncryption signature verifies under `issuerKey`
    /// (RFC 4055 §5: the parameters are NULL, or absent, which readers must accept).
    public func isSignatureValid(issuerKey: RSAPublicKey) -> Bool {
        guard signatureAlgorithm == .sha256WithRSAEncryption, signatureAlgorithmParametersAreNullOrAbsent else {
            return false
        }
        return issuerKey.isValidSignature(signature, for: tbsCertificateBytes)
    }

    /// Whether `issuerCertificate` issued this one: the names chain and its key, P-256 or
    /// RSA, verifies this signature. (Validity dates and extensions are the caller's to check.)
    public func isIssued(by issuerCertificate: X509Certificate) -> Bool {
        guard issuerBytes == issuerCertificate.subjectBytes else { return false }
        if let key = try? issuerCertificate.publicKey() { return isSignatureValid(issuerKey: key) }
        if let key = try? issuerCertificate.rsaPublicKey() { return isSignatureValid(issuerKey: key) }
        return false
    }
}
