/// The extensions a TLS server certificate needs before clients accept it: the host names it
/// covers and the purpose it is for. Clients (curl, Python, browsers) match host names only
/// against subjectAltName, never the common name.
extension X509Extension {
    /// subjectAltName with dNSName entries ([2] IMPLICIT IA5String), non-critical because
    /// the subject name is not empty (RFC 5280 §4.2.1.6).
    /// - Throws: `CryptoError.unencodableValue` for an empty list or a name that is not
    ///   printable ASCII.
    public static func subjectAlternativeName(dnsNames: [String]) throws(CryptoError) -> X509Extension {
        guard !dnsNames.isEmpty else { throw .unencodableValue("subjectAltName needs at least one name") }
        var writer = DERWriter()
        for name in dnsNames {
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw .unencodableValue("\"\(name)\" is not a DNS name")
            }
        }
        writer.writeSequence { names in
            for name in dnsNames { names.writeImplicit(tagNumber: 2, contents: Array(name.utf8)) }
        }
        return X509Extension(identifier: .subjectAlternativeName, isCritical: false, value: writer.bytes)
    }

    /// extendedKeyUsage listing `purposes` (such as `.serverAuthentication`), non-critical.
    public static func extendedKeyUsage(_ purposes: [ASN1ObjectIdentifier]) -> X509Extension {
        var writer = DERWriter()
        writer.writeSequence { list in
            for purpose in purposes { list.writeObjectIdentifier(purpose) }
        }
        return X509Extension(identifier: .extendedKeyUsage, isCritical: false, value: writer.bytes)
    }

    /// The dNSName entries of a subjectAltName value (other name forms are skipped).
    public func subjectAlternativeDNSNames() throws(CryptoError) -> [String] {
        var reader = DERReader(value)
        var sequence = try reader.readSequence()
        try reader.finish()
        var names = [String]()
        while !sequence.isAtEnd {
            let element = try sequence.readElement()
            if element.tag == DERTag.contextSpecific(2, constructed: false) {
                names.append(String(decoding: element.contents, as: UTF8.self))
            }
        }
        return names
    }
}
