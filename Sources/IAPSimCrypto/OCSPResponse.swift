import Foundation

/// An OCSP response (RFC 6960 §4.2): a status, and for a successful one a BasicOCSPResponse
/// (id-pkix-ocsp-basic) whose ResponseData the responder signed. Built by a responder with
/// `signed(…)` or `unsuccessful(_:)`; parsed by its tests (`init(derRepresentation:)`).
public struct OCSPResponse: Sendable, Equatable {
    /// OCSPResponseStatus.
    public enum Status: UInt8, Sendable, Equatable {
        case successful = 0
        case malformedRequest = 1
        case internalError = 2
        case tryLater = 3
        case signatureRequired = 5
        /// The responder does not speak for the certificates asked about.
        case unauthorized = 6
    }

    /// CRLReason (RFC 5280 §5.3.1).
    public enum RevocationReason: UInt8, Sendable, Equatable {
        case unspecified = 0
        case keyCompromise = 1
        case caCompromise = 2
        case affiliationChanged = 3
        /// The certificate was replaced by a new one.
        case superseded = 4
        case cessationOfOperation = 5
        case certificateHold = 6
        case removeFromCRL = 8
        case privilegeWithdrawn = 9
        case aaCompromise = 10
    }

    /// CertStatus.
    public enum CertificateStatus: Sendable, Equatable {
        case good
        case revoked(at: Date, reason: RevocationReason?)
        /// The responder does not know the certificate.
        case unknown
    }

    /// SingleResponse: the answer about one CertID.
    public struct SingleResponse: Sendable, Equatable {
        public var certID: OCSPCertID
        public var status: CertificateStatus
        /// When the status was known to be correct.
        public var thisUpdate: Date
        /// When newer information will be available; clients refuse a response past it.
        public var nextUpdate: Date?

        public init(certID: OCSPCertID, status: CertificateStatus, thisUpdate: Date, nextUpdate: Date?) {
            self.certID = certID
            self.status = status
            self.thisUpdate = thisUpdate
            self.nextUpdate = nextUpdate
        }
    }

    public let status: Status
    /// ResponderID byKey: SHA-1 of the responder's subjectPublicKey bits (nil when byName).
    public let responderKeyHash: [UInt8]?
    /// ResponderID byName: the responder's DER Name (nil when byKey).
    public let responderName: [UInt8]?
    /// When the response was signed (successful responses only).
    public let producedAt: Date?
    public let responses: [SingleResponse]
    /// The nonce extension's value, as the request carried it.
    public let nonce: [UInt8]?
    /// The DER ResponseData: exactly the bytes signed.
    public let tbsResponseData: [UInt8]
    public let signatureAlgorithm: ASN1ObjectIdentifier?
    /// The signature BIT STRING's bytes (for ECDSA, a DER ECDSA-Sig-Value).
    public let signature: [UInt8]

    /// An OCSPResponse with no response bytes, for every status but `successful`.
    public static func unsuccessful(_ status: Status) -> [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { $0.writeElement(tag: DERTag.enumerated, contents: [status.rawValue]) }
        return writer.bytes
    }

    /// A successful id-pkix-ocsp-basic response about `responses`, signed by `key`, whose
    /// certificate `responder` is named byKey (RFC 6960 §4.2.2.3: the SHA-1 of its key). With
    /// the issuer of the certificates as `responder` no delegation certificate is needed, so
    /// `certs` is left out.
    /// - Throws: `CryptoError.unencodableValue` for a date outside years 0–9999.
    public static func signed(
        _ responses: [SingleResponse], responder: X509Certificate, key: some X509SigningKey, producedAt: Date,
        nonce: [UInt8]? = nil
    ) throws(CryptoError) -> [UInt8] {
        let keyHash = SHA1.hash(try responder.subjectPublicKeyBits())
        var data = DERWriter()
        try data.writeSequence { (tbs: inout DERWriter) throws(CryptoError) in
            tbs.writeExplicit(tagNumber: 2) { $0.writeOctetString(keyHash) }
            tbs.writeEncoded(try ASN1Time.encodeGeneralizedTime(producedAt))
            try tbs.writeSequence { (list: inout DERWriter) throws(CryptoError) in
                for response in responses { try response.write(to: &list) }
            }
            if let nonce {
                tbs.writeExplicit(tagNumber: 1) { field in
                    field.writeSequence {
                        X509Extension(identifier: .ocspNonce, isCritical: false, value: nonce).write(to: &$0)
                    }
                }
            }
        }
        var basic = DERWriter()
        basic.writeSequence { response in
            response.writeEncoded(data.bytes)
            response.writeEncoded(key.signatureAlgorithmIdentifier)
            response.writeBitString(bytes: key.signatureBytes(for: data.bytes))
        }
        var writer = DERWriter()
        writer.writeSequence { response in
            response.writeElement(tag: DERTag.enumerated, contents: [Status.successful.rawValue])
            response.writeExplicit(tagNumber: 0) { field in
                field.writeSequence { bytes in
                    bytes.writeObjectIdentifier(.ocspBasicResponse)
                    bytes.writeOctetString(basic.bytes)
                }
            }
        }
        return writer.bytes
    }

    /// Parses an OCSPResponse; a successful one must be id-pkix-ocsp-basic.
    /// - Throws: `CryptoError` for malformed DER or another response type.
    public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
        var reader = DERReader(Array(derRepresentation))
        var outer = try reader.readSequence()
        try reader.finish()
        let statusElement = try outer.readElement(tag: DERTag.enumerated)
        guard statusElement.contents.count == 1, let code = statusElement.contents.first,
            let status = Status(rawValue: code)
        else { throw .derInvalidValue("unknown OCSPResponseStatus") }
        self.status = status
        guard var field = try outer.readOptionalExplicit(tagNumber: 0) else {
            try outer.finish()
            guard status != .successful else { throw .derInvalidValue("a successful OCSP response has no bytes") }
            (responderKeyHash, responderName, producedAt, responses, nonce) = (nil, nil, nil, [], nil)
            (tbsResponseData, signatureAlgorithm, signature) = ([], nil, [])
            return
        }
        try outer.finish()
        var bytes = try field.readSequence()
        try field.finish()
        guard try bytes.readObjectIdentifier() == .ocspBasicResponse else {
            throw .unsupportedAlgorithm("an OCSP response type other than id-pkix-ocsp-basic")
        }
        var basicReader = DERReader(try bytes.readOctetString())
        try bytes.finish()
        var basic = try basicReader.readSequence()
        try basicReader.finish()
        let dataElement = try basic.readElement(tag: DERTag.sequence)
        var algorithm = try basic.readSequence()
        signatureAlgorithm = try algorithm.readObjectIdentifier()
        let bits = try basic.readBitString()
        _ = try basic.readOptionalExplicit(tagNumber: 0)  // certs
        try basic.finish()
        signature = bits.bytes
        tbsResponseData = Array(dataElement.encoded)

        var data = try dataElement.childReader()
        _ = try data.readOptionalExplicit(tagNumber: 0)  // version
        if var byName = try data.readOptionalExplicit(tagNumber: 1) {
            responderName = Array(try byName.readElement(tag: DERTag.sequence).encoded)
            responderKeyHash = nil
        } else {
            guard var byKey = try data.readOptionalExplicit(tagNumber: 2) else {
                throw .derInvalidValue("the OCSP response has no responder ID")
            }
            responderKeyHash = try byKey.readOctetString()
            responderName = nil
        }
        producedAt = try data.readElement(tag: DERTag.generalizedTime).timeValue()
        var list = try data.readSequence()
        var responses: [SingleResponse] = []
        while !list.isAtEnd { responses.append(try SingleResponse(reading: &list)) }
        self.responses = responses
        var nonce: [UInt8]?
        if var extensionsField = try data.readOptionalExplicit(tagNumber: 1) {
            var extensions = try extensionsField.readSequence()
            while !extensions.isAtEnd {
                var item = try extensions.readSequence()
                let identifier = try item.readObjectIdentifier()
                _ = try item.readOptionalElement(tag: DERTag.boolean)
                let value = try item.readOctetString()
                if identifier == .ocspNonce { nonce = value }
            }
        }
        self.nonce = nonce
        try data.finish()
    }

    /// Whether the ecdsa-with-SHA256 signature over the ResponseData verifies under `key`.
    public func isSignatureValid(key: P256PublicKey) -> Bool {
        guard signatureAlgorithm == .ecdsaWithSHA256, let parsed = try? ECDSASignature(derRepresentation: signature)
        else { return false }
        return key.isValidSignature(parsed, for: tbsResponseData)
    }
}

extension OCSPResponse.SingleResponse {
    func write(to writer: inout DERWriter) throws(CryptoError) {
        let thisUpdate = try ASN1Time.encodeGeneralizedTime(thisUpdate)
        let nextUpdate = try nextUpdate.map { (date: Date) throws(CryptoError) in
            try ASN1Time.encodeGeneralizedTime(date)
        }
        var revocation: [UInt8]?
        if case .revoked(let date, _) = status { revocation = try ASN1Time.encodeGeneralizedTime(date) }
        writer.writeSequence { single in
            single.writeEncoded(certID.derRepresentation)
            switch status {
            case .good: single.writeImplicit(tagNumber: 0, contents: [])
            case .revoked(_, let reason):
                single.writeConstructed(tag: DERTag.contextSpecific(1, constructed: true)) { info in
                    info.writeEncoded(revocation ?? [])
                    if let reason {
                        info.writeExplicit(tagNumber: 0) {
                            $0.writeElement(tag: DERTag.enumerated, contents: [reason.rawValue])
                        }
                    }
                }
            case .unknown: single.writeImplicit(tagNumber: 2, contents: [])
            }
            single.writeEncoded(thisUpdate)
            if let nextUpdate { single.writeExplicit(tagNumber: 0) { $0.writeEncoded(nextUpdate) } }
        }
    }

    init(reading list: inout DERReader) throws(CryptoError) {
        var single = try list.readSequence()
        certID = try OCSPCertID(derRepresentation: try single.readElement(tag: DERTag.sequence).encoded)
        let statusElement = try single.readElement()
        switch statusElement.tag {
        case DERTag.contextSpecific(0, constructed: false): status = .good
        case DERTag.contextSpecific(2, constructed: false): status = .unknown
        case DERTag.contextSpecific(1, constructed: true):
            var info = try statusElement.childReader()
            let date = try info.readElement(tag: DERTag.generalizedTime).timeValue()
            var reason: OCSPResponse.RevocationReason?
            if var field = try info.readOptionalExplicit(tagNumber: 0) {
                let element = try field.readElement(tag: DERTag.enumerated)
                reason = element.contents.count == 1 ? element.contents.first.flatMap { .init(rawValue: $0) } : nil
            }
            try info.finish()
            status = .revoked(at: date, reason: reason)
        default: throw .derInvalidValue("unknown CertStatus")
        }
        thisUpdate = try single.readElement(tag: DERTag.generalizedTime).timeValue()
        if var field = try single.readOptionalExplicit(tagNumber: 0) {
            nextUpdate = try field.readElement(tag: DERTag.generalizedTime).timeValue()
        } else {
            nextUpdate = nil
        }
        _ = try single.readOptionalExplicit(tagNumber: 1)
        try single.finish()
    }
}
