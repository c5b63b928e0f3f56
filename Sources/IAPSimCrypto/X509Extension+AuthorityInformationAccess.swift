/// authorityInfoAccess (RFC 5280 §4.2.2.1) with OCSP entries: where a relying party asks
/// whether the certificate is still good (RFC 6960).
extension X509Extension {
    /// authorityInfoAccess naming `ocspURLs` as OCSP responders (accessLocation a
    /// uniformResourceIdentifier, [6] IMPLICIT IA5String), non-critical as RFC 5280 requires.
    /// - Throws: `CryptoError.unencodableValue` for an empty list or a URL that is not
    ///   printable ASCII.
    public static func authorityInformationAccess(ocspURLs: [String]) throws(CryptoError) -> X509Extension {
        guard !ocspURLs.isEmpty else { throw .unencodableValue("authorityInfoAccess needs at least one URL") }
        for url in ocspURLs where url.isEmpty || !url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            throw .unencodableValue("\"\(url)\" is not a URL an IA5String holds")
        }
        var writer = DERWriter()
        writer.writeSequence { list in
            for url in ocspURLs {
                list.writeSequence { description in
                    description.writeObjectIdentifier(.ocspAccessMethod)
                    description.writeImplicit(tagNumber: 6, contents: Array(url.utf8))
                }
            }
        }
        return X509Extension(identifier: .authorityInformationAccess, isCritical: false, value: writer.bytes)
    }

    /// The OCSP responder URLs of an authorityInfoAccess value (other methods and name forms
    /// are skipped).
    public func ocspURLs() throws(CryptoError) -> [String] {
        var reader = DERReader(value)
        var list = try reader.readSequence()
        try reader.finish()
        var urls: [String] = []
        while !list.isAtEnd {
            var description = try list.readSequence()
            let method = try description.readObjectIdentifier()
            let location = try description.readElement()
            try description.finish()
            if method == .ocspAccessMethod, location.tag == DERTag.contextSpecific(6, constructed: false) {
                urls.append(String(decoding: location.contents, as: UTF8.self))
            }
        }
        return urls
    }
}
