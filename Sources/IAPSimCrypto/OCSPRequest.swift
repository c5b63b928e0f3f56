/// An OCSP request (RFC 6960 §4.1.1): the certificates a client asks about, and the nonce it
/// wants echoed (RFC 8954). A signature, if the client added one, is not checked: a
/// responder that answers anyone has no use for it.
public struct OCSPRequest: Sendable, Equatable {
    /// The certificates asked about, in request order.
    public var certIDs: [OCSPCertID]
    /// The nonce extension's extnValue contents as sent (an OCTET STRING), to echo; nil
    /// without one.
    public var nonce: [UInt8]?

    /// A request for `certIDs`, with an optional nonce extension whose value is `nonce`
    /// wrapped in an OCTET STRING (RFC 8954 §2.1).
    public init(certIDs: [OCSPCertID], nonce: [UInt8]? = nil) {
        self.certIDs = certIDs
        self.nonce = nonce.map { value in
            var writer = DERWriter()
            writer.writeOctetString(value)
            return writer.bytes
        }
    }

    /// Parses a DER OCSPRequest.
    /// - Throws: `CryptoError` for malformed DER, a version other than v1, or no request.
    public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
        var reader = DERReader(Array(derRepresentation))
        var request = try reader.readSequence()
        try reader.finish()
        var tbs = try request.readSequence()
        _ = try request.readOptionalExplicit(tagNumber: 0)  // optionalSignature
        try request.finish()
        if var version = try tbs.readOptionalExplicit(tagNumber: 0) {
            guard try version.readInteger() == 0 else { throw .derInvalidValue("the OCSP request is not version 1") }
            try version.finish()
        }
        _ = try tbs.readOptionalExplicit(tagNumber: 1)  // requestorName
        var list = try tbs.readSequence()
        var certIDs: [OCSPCertID] = []
        while !list.isAtEnd {
            var single = try list.readSequence()
            certIDs.append(try OCSPCertID(derRepresentation: try single.readElement(tag: DERTag.sequence).encoded))
            _ = try single.readOptionalExplicit(tagNumber: 0)  // singleRequestExtensions
            try single.finish()
        }
        guard !certIDs.isEmpty else { throw .derInvalidValue("the OCSP request asks about no certificate") }
        var nonce: [UInt8]?
        if var field = try tbs.readOptionalExplicit(tagNumber: 2) {
            var extensions = try field.readSequence()
            try field.finish()
            while !extensions.isAtEnd {
                var item = try extensions.readSequence()
                let identifier = try item.readObjectIdentifier()
                _ = try item.readOptionalElement(tag: DERTag.boolean)
                let value = try item.readOctetString()
                try item.finish()
                if identifier == .ocspNonce { nonce = value }
            }
        }
        try tbs.finish()
        self.certIDs = certIDs
        self.nonce = nonce
    }

    /// The request's DER (unsigned, version 1 left out as DER requires for a default).
    public var derRepresentation: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { request in
            request.writeSequence { tbs in
                tbs.writeSequence { list in
                    for id in certIDs { list.writeSequence { $0.writeEncoded(id.derRepresentation) } }
                }
                if let nonce {
                    tbs.writeExplicit(tagNumber: 2) { field in
                        field.writeSequence { extensions in
                            X509Extension(identifier: .ocspNonce, isCritical: false, value: nonce)
                                .write(to: &extensions)
                        }
                    }
                }
            }
        }
        return writer.bytes
    }
}
