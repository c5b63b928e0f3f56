/// Rewrites BER as the definite-length form `DERReader` reads: indefinite lengths become
/// definite, and a constructed OCTET STRING becomes one primitive OCTET STRING of its parts.
/// Signed containers written by other tools (App Store receipts among them) are often BER
/// on the outside; the signed parts inside (certificates) are DER already and come out
/// unchanged. Bounded: nesting is limited, every length is checked against the input.
public enum BERNormalizer {
    /// The definite-length form of one BER element filling `bytes`.
    /// - Throws: `CryptoError` for truncation, trailing bytes, nesting deeper than
    ///   `maximumDepth` or a tag in the high-number form.
    public static func definiteLengths(_ bytes: [UInt8], maximumDepth: Int = 32) throws(CryptoError) -> [UInt8] {
        var position = 0
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        let element = try read(bytes, &position, depth: 0, maximumDepth: maximumDepth)
        guard position == bytes.count else { throw .derTrailingBytes(count: bytes.count - position) }
        write(element, to: &output)
        return output
    }

    private indirect enum Element {
        case primitive(tag: UInt8, contents: ArraySlice<UInt8>)
        case constructed(tag: UInt8, children: [Element])
    }

    private static func read(_ bytes: [UInt8], _ position: inout Int, depth: Int, maximumDepth: Int)
        throws(CryptoError) -> Element
    {
        guard depth <= maximumDepth else { throw .derNestingTooDeep(limit: maximumDepth) }
        let start = position
        guard position + 2 <= bytes.count else { throw .derTruncated(offset: start) }
        let tag = bytes[position]
        guard tag & 0x1F != 0x1F else { throw .derUnsupportedTag(offset: start) }
        let first = bytes[position + 1]
        position += 2
        let constructed = tag & DERTag.constructedBit != 0
        if first == 0x80 {
            guard constructed else { throw .derInvalidLength(offset: start) }
            var children: [Element] = []
            while true {
                guard position + 2 <= bytes.count else { throw .derTruncated(offset: start) }
                if bytes[position] == 0, bytes[position + 1] == 0 {
                    position += 2
                    break
                }
                children.append(try read(bytes, &position, depth: depth + 1, maximumDepth: maximumDepth))
            }
            return try element(tag: tag, children: children, offset: start)
        }
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count <= 4 else { throw .derInvalidLength(offset: start) }
            guard position + count <= bytes.count else { throw .derTruncated(offset: start) }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
        }
        guard bytes.count - position >= length else { throw .derTruncated(offset: start) }
        let end = position + length
        guard constructed else {
            defer { position = end }
            return .primitive(tag: tag, contents: bytes[position..<end])
        }
        var children: [Element] = []
        while position < end {
            children.append(try read(bytes, &position, depth: depth + 1, maximumDepth: maximumDepth))
        }
        guard position == end else { throw .derInvalidLength(offset: start) }
        return try element(tag: tag, children: children, offset: start)
    }

    /// A constructed OCTET STRING (0x24) becomes the primitive one of its parts.
    private static func element(tag: UInt8, children: [Element], offset: Int) throws(CryptoError) -> Element {
        guard tag == DERTag.octetString | DERTag.constructedBit else {
            return .constructed(tag: tag, children: children)
        }
        var joined: [UInt8] = []
        for child in children {
            guard case .primitive(DERTag.octetString, let contents) = child else {
                throw .derInvalidValue("a constructed OCTET STRING holds something other than OCTET STRINGs")
            }
            joined.append(contentsOf: contents)
        }
        return .primitive(tag: DERTag.octetString, contents: joined[...])
    }

    private static func write(_ element: Element, to output: inout [UInt8]) {
        switch element {
        case .primitive(let tag, let contents):
            var writer = DERWriter()
            writer.writeElement(tag: tag, contents: contents)
            output.append(contentsOf: writer.bytes)
        case .constructed(let tag, let children):
            var inner: [UInt8] = []
            for child in children { write(child, to: &inner) }
            var writer = DERWriter()
            writer.writeElement(tag: tag, contents: inner)
            output.append(contentsOf: writer.bytes)
        }
    }
}
