/// The identifiers an OCSP exchange (RFC 6960) and the extension that points to its
/// responder (RFC 5280 §4.2.2.1) use.
extension ASN1ObjectIdentifier {
    /// id-pe-authorityInfoAccess: where to find the issuer's services, such as OCSP.
    public static let authorityInformationAccess = ASN1ObjectIdentifier(constant: 1, 3, 6, 1, 5, 5, 7, 1, 1)
    /// id-ad-ocsp: an access method naming an OCSP responder's URL.
    public static let ocspAccessMethod = ASN1ObjectIdentifier(constant: 1, 3, 6, 1, 5, 5, 7, 48, 1)
    /// id-pkix-ocsp-basic: the one response type every OCSP client understands.
    public static let ocspBasicResponse = ASN1ObjectIdentifier(constant: 1, 3, 6, 1, 5, 5, 7, 48, 1, 1)
    /// id-pkix-ocsp-nonce (RFC 8954): a request's nonce, echoed in the response.
    public static let ocspNonce = ASN1ObjectIdentifier(constant: 1, 3, 6, 1, 5, 5, 7, 48, 1, 2)
    /// id-sha1 (RFC 3279 §2.2.1): OCSP's default CertID hash.
    public static let sha1 = ASN1ObjectIdentifier(constant: 1, 3, 14, 3, 2, 26)
    /// id-sha256 (RFC 5754 §2.2).
    public static let sha256 = ASN1ObjectIdentifier(constant: 2, 16, 840, 1, 101, 3, 4, 2, 1)
}
