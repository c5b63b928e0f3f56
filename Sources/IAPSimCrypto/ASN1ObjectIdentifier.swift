/// An ASN.1 OBJECT IDENTIFIER such as 1.2.840.10045.2.1.
public struct ASN1ObjectIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The arcs, most significant first.
    public let components: [UInt64]

    /// Creates an identifier from its arcs; nil unless X.660 allows them (at least two arcs,
    /// a first arc of 0, 1 or 2, and a second arc below 40 under 0 and 1).
    public init?(components: [UInt64]) {
        guard components.count >= 2, components[0] <= 2 else { return nil }
        guard components[0] == 2 || components[1] < 40 else { return nil }
        // The first two arcs share one subidentifier, which must still fit in 64 bits.
        guard components[1] <= UInt64.max - 80 else { return nil }
        self.components = components
    }

    /// Parses dotted-decimal text such as "2.5.4.3".
    public init?(dotted text: String) {
        var arcs = [UInt64]()
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                part.count == 1 || part.first != "0",
                let arc = UInt64(part)
            else { return nil }
            arcs.append(arc)
        }
        self.init(components: arcs)
    }

    /// For compile-time constants known to be valid.
    init(constant components: UInt64...) {
        self.components = components
    }

    /// Dotted-decimal text, e.g. "1.2.840.10045.4.3.2".
    public var description: String {
        components.map(String.init).joined(separator: ".")
    }

    /// The DER contents octets (without tag and length).
    var derContents: [UInt8] {
        var output = [UInt8]()
        let first = components[0] * 40 + components[1]
        Self.appendBase128(first, to: &output)
        for arc in components.dropFirst(2) {
            Self.appendBase128(arc, to: &output)
        }
        return output
    }

    private static func appendBase128(_ value: UInt64, to output: inout [UInt8]) {
        var groups = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            groups.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        output.append(contentsOf: groups.reversed())
    }

    /// Decodes DER contents octets, rejecting empty input, padded (0x80-led) subidentifiers,
    /// a dangling continuation bit and arcs over 64 bits.
    init(derContents contents: ArraySlice<UInt8>) throws(CryptoError) {
        guard !contents.isEmpty else { throw .derInvalidValue("an OBJECT IDENTIFIER is empty") }
        var arcs = [UInt64]()
        var value: UInt64 = 0
        var startOfArc = true
        for byte in contents {
            if startOfArc && byte == 0x80 {
                throw .derInvalidValue("an OBJECT IDENTIFIER arc is not minimally encoded")
            }
            guard value >> 57 == 0 else { throw .derInvalidValue("an OBJECT IDENTIFIER arc exceeds 64 bits") }
            value = value << 7 | UInt64(byte & 0x7F)
            startOfArc = byte & 0x80 == 0
            if startOfArc {
                if arcs.isEmpty {
                    let firstArc: UInt64 = value < 40 ? 0 : (value < 80 ? 1 : 2)
                    arcs.append(firstArc)
                    arcs.append(value - firstArc * 40)
                } else {
                    arcs.append(value)
                }
                value = 0
            }
        }
        guard startOfArc else { throw .derInvalidValue("an OBJECT IDENTIFIER ends inside an arc") }
        components = arcs
    }

    /// id-ecPublicKey (RFC 5480).
    public static let ecPublicKey = ASN1ObjectIdentifier(constant: 1, 2, 840, 10045, 2, 1)
    /// secp256r1, also called prime256v1 and P-256 (RFC 5480).
    public static let prime256v1 = ASN1ObjectIdentifier(constant: 1, 2, 840, 10045, 3, 1, 7)
    /// ecdsa-with-SHA256 (RFC 5758).
    public static let ecdsaWithSHA256 = ASN1ObjectIdentifier(constant: 1, 2, 840, 10045, 4, 3, 2)
    /// rsaEncryption (RFC 8017 appendix C): an RSA public key, parameters NULL.
    public static let rsaEncryption = ASN1ObjectIdentifier(constant: 1, 2, 840, 113_549, 1, 1, 1)
    /// sha256WithRSAEncryption (RFC 8017 appendix C, RFC 4055 §5): RSASSA-PKCS1-v1_5 with SHA-256.
    public static let sha256WithRSAEncryption = ASN1ObjectIdentifier(constant: 1, 2, 840, 113_549, 1, 1, 11)
    /// id-at-commonName.
    public static let commonName = ASN1ObjectIdentifier(constant: 2, 5, 4, 3)
    /// id-at-countryName.
    public static let countryName = ASN1ObjectIdentifier(constant: 2, 5, 4, 6)
    /// id-at-organizationName.
    public static let organizationName = ASN1ObjectIdentifier(constant: 2, 5, 4, 10)
    /// id-at-organizationalUnitName.
    public static let organizationalUnitName = ASN1ObjectIdentifier(constant: 2, 5, 4, 11)
    /// id-ce-subjectKeyIdentifier.
    public static let subjectKeyIdentifier = ASN1ObjectIdentifier(constant: 2, 5, 29, 14)
    /// id-ce-keyUsage.
    public static let keyUsage = ASN1ObjectIdentifier(constant: 2, 5, 29, 15)
    /// id-ce-basicConstraints.
    public static let basicConstraints = ASN1ObjectIdentifier(constant: 2, 5, 29, 19)
    /// id-ce-authorityKeyIdentifier.
    public static let authorityKeyIdentifier = ASN1ObjectIdentifier(constant: 2, 5, 29, 35)
    /// id-ce-subjectAltName.
    public static let subjectAlternativeName = ASN1ObjectIdentifier(constant: 2, 5, 29, 17)
    /// id-ce-extKeyUsage.
    public static let extendedKeyUsage = ASN1ObjectIdentifier(constant: 2, 5, 29, 37)
    /// id-kp-serverAuth: TLS server authentication (RFC 5280 §4.2.1.12).
    public static let serverAuthentication = ASN1ObjectIdentifier(constant: 1, 3, 6, 1, 5, 5, 7, 3, 1)
}
