/// An X.501 Name as certificates use it: a sequence of single-attribute RDNs such as
/// O=iapsim TEST ONLY, CN=iapsim TEST ONLY Root CA (in encoding order, most significant first).
public struct DistinguishedName: Equatable, Sendable, CustomStringConvertible {
    /// One attribute such as CN=… with the string type it is (or will be) encoded as.
    public struct Attribute: Equatable, Sendable {
        /// The attribute type, e.g. `ASN1ObjectIdentifier.commonName`.
        public let type: ASN1ObjectIdentifier
        /// The attribute's text.
        public let value: String
        /// The DER string tag: UTF8String, except countryName, which RFC 5280 requires to be
        /// a PrintableString.
        public let stringTag: UInt8

        /// Creates an attribute, choosing the string type RFC 5280 prefers.
        public init(type: ASN1ObjectIdentifier, value: String) {
            self.type = type
            self.value = value
            stringTag =
                type == .countryName && DERWriter.isPrintableString(value)
                ? DERTag.printableString : DERTag.utf8String
        }

        init(type: ASN1ObjectIdentifier, value: String, stringTag: UInt8) {
            self.type = type
            self.value = value
            self.stringTag = stringTag
        }
    }

    /// The attributes in encoding order (a multi-valued RDN contributes each of its members).
    public let attributes: [Attribute]

    /// Creates a name from attributes in encoding order.
    public init(attributes: [Attribute]) {
        self.attributes = attributes
    }

    /// Creates a name from the usual fields, encoded in the conventional order C, O, OU, CN.
    public init(
        commonName: String, organization: String? = nil, organizationalUnit: String? = nil, country: String? = nil
    ) {
        var attributes = [Attribute]()
        if let country { attributes.append(Attribute(type: .countryName, value: country)) }
        if let organization { attributes.append(Attribute(type: .organizationName, value: organization)) }
        if let organizationalUnit {
            attributes.append(Attribute(type: .organizationalUnitName, value: organizationalUnit))
        }
        attributes.append(Attribute(type: .commonName, value: commonName))
        self.init(attributes: attributes)
    }

    /// The first value of the given attribute type, e.g. the common name.
    public func value(of type: ASN1ObjectIdentifier) -> String? {
        attributes.first { $0.type == type }?.value
    }

    /// RFC 4514 style text, least significant first: "CN=…, O=…".
    public var description: String {
        attributes.reversed().map { attribute in
            let name: String
            switch attribute.type {
            case .commonName: name = "CN"
            case .organizationName: name = "O"
            case .organizationalUnitName: name = "OU"
            case .countryName: name = "C"
            default: name = attribute.type.description
            }
            return "\(name)=\(attribute.value)"
        }.joined(separator: ", ")
    }

    /// The DER Name: SEQUENCE OF SET OF SEQUENCE { type, value }, one attribute per SET.
    public var derRepresentation: [UInt8] {
        var writer = DERWriter()
        writer.writeSequence { name in
            for attribute in attributes {
                name.writeSet { relative in
                    relative.writeSequence { pair in
                        pair.writeObjectIdentifier(attribute.type)
                        pair.writeElement(tag: attribute.stringTag, contents: Array(attribute.value.utf8))
                    }
                }
            }
        }
        return writer.bytes
    }

    /// Reads a DER Name whose values are UTF8String, PrintableString or IA5String.
    /// - Throws: `CryptoError` for malformed DER or other string types.
    public init(derRepresentation: some Collection<UInt8>) throws(CryptoError) {
        var reader = DERReader(Array(derRepresentation))
        var name = try reader.readSequence()
        try reader.finish()
        try self.init(reading: &name)
    }

    /// Reads the RDNs of a Name whose SEQUENCE has already been opened.
    init(reading name: inout DERReader) throws(CryptoError) {
        var attributes = [Attribute]()
        while !name.isAtEnd {
            var relative = try name.readSet()
            guard !relative.isAtEnd else { throw .derInvalidValue("a relative distinguished name is empty") }
            while !relative.isAtEnd {
                var pair = try relative.readSequence()
                let type = try pair.readObjectIdentifier()
                let element = try pair.readElement()
                try pair.finish()
                attributes.append(Attribute(type: type, value: try element.stringValue(), stringTag: element.tag))
            }
        }
        self.init(attributes: attributes)
    }
}
