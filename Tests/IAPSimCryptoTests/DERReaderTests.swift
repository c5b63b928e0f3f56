import Foundation
import Testing

@testable import IAPSimCrypto

@Suite("DER reader and writer")
struct DERReaderTests {
    /// An identifier with arcs of one, two and three bytes (Apple's App Store signing marker).
    private static let multiByteArcs = ASN1ObjectIdentifier(dotted: "1.2.840.113635.100.6.11.1")!

    /// Walks every element recursively, decoding primitives by tag, as a generic consumer
    /// of untrusted DER would. Errors are expected; traps are not.
    private func walk(_ reader: inout DERReader) throws {
        while !reader.isAtEnd {
            let element = try reader.readElement()
            if element.isConstructed {
                var child = try element.childReader()
                try walk(&child)
                continue
            }
            switch element.tag {
            case DERTag.boolean: _ = try element.booleanValue()
            case DERTag.integer: _ = try element.unsignedIntegerValue()
            case DERTag.bitString: _ = try element.bitStringValue()
            case DERTag.null: try element.nullValue()
            case DERTag.objectIdentifier: _ = try element.objectIdentifierValue()
            case DERTag.utf8String, DERTag.printableString, DERTag.ia5String: _ = try element.stringValue()
            case DERTag.utcTime, DERTag.generalizedTime: _ = try element.timeValue()
            default: break
            }
        }
    }

    /// Feeds `bytes` to every reader in the library; returns how many accepted it.
    @discardableResult
    private func feedEverywhere(_ bytes: [UInt8]) -> Int {
        var accepted = 0
        var reader = DERReader(bytes)
        if (try? walk(&reader)) != nil { accepted += 1 }
        if (try? X509Certificate(derRepresentation: bytes)) != nil { accepted += 1 }
        if (try? P256PrivateKey(derRepresentation: bytes)) != nil { accepted += 1 }
        if (try? P256PrivateKey(sec1DERRepresentation: bytes)) != nil { accepted += 1 }
        if (try? P256PublicKey(derRepresentation: bytes)) != nil { accepted += 1 }
        if (try? ECDSASignature(derRepresentation: bytes)) != nil { accepted += 1 }
        if (try? DistinguishedName(derRepresentation: bytes)) != nil { accepted += 1 }
        let text = String(decoding: bytes, as: UTF8.self)
        if (try? PEMDocument.parseAll(text)) != nil { accepted += 1 }
        if (try? Base64.decode(text)) != nil { accepted += 1 }
        if (try? Base64URL.decode(text)) != nil { accepted += 1 }
        return accepted
    }

    @Test("random garbage, truncations and bit flips of real DER throw instead of trapping")
    func randomized() throws {
        var generator = SeededGenerator(seed: SeededGenerator.testSeed("DERReaderTests.randomized"))
        let chain = try CertificateChain.generate(using: &generator)
        let key = chain.leafKey
        let samples: [[UInt8]] = [
            chain.leaf.derRepresentation, chain.intermediate.derRepresentation,
            key.derRepresentation, key.sec1DERRepresentation, key.publicKey.derRepresentation,
            key.signature(for: [1, 2, 3]).derRepresentation,
        ]
        for _ in 0..<3000 {
            let length = Int.random(in: 0...96, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Start some inputs with a plausible tag so the readers get past the first byte.
            if !bytes.isEmpty && Bool.random(using: &generator) {
                bytes[0] = [0x30, 0x31, 0x02, 0x03, 0x04, 0xA0][Int.random(in: 0..<6, using: &generator)]
            }
            feedEverywhere(bytes)
        }
        for sample in samples {
            // Every proper prefix is incomplete DER and must be rejected by the typed readers.
            for cut in 0..<sample.count {
                let prefix = Array(sample[..<cut])
                #expect((try? X509Certificate(derRepresentation: prefix)) == nil)
                #expect((try? P256PublicKey(derRepresentation: prefix)) == nil)
                #expect((try? ECDSASignature(derRepresentation: prefix)) == nil)
                var reader = DERReader(prefix)
                if cut > 0 { #expect(throws: CryptoError.self) { try walk(&reader) } }
            }
            #expect(feedEverywhere(sample) >= 1)
            #expect((try? X509Certificate(derRepresentation: sample + [0])) == nil, "trailing byte accepted")
            for _ in 0..<300 {
                var mutated = sample
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let index = Int.random(in: 0..<mutated.count, using: &generator)
                    mutated[index] ^= UInt8.random(in: 1...255, using: &generator)
                }
                feedEverywhere(mutated)
            }
        }
    }

    @Test("deep nesting stops at the depth limit")
    func nesting() throws {
        var bytes: [UInt8] = [0x05, 0x00]
        for _ in 0..<100 {
            var writer = DERWriter()
            writer.writeElement(tag: DERTag.sequence, contents: bytes)
            bytes = writer.bytes
        }
        var reader = DERReader(bytes)
        #expect(throws: CryptoError.derNestingTooDeep(limit: DERReader.defaultMaximumDepth)) { try walk(&reader) }
        var shallow = DERReader(bytes, maximumDepth: 200)
        try walk(&shallow)
        feedEverywhere(bytes)
    }

    @Test(
        "strict DER: BER leniencies are rejected",
        arguments: [
            [0x30, 0x80, 0x00, 0x00],  // indefinite length
            [0x04, 0x81, 0x01, 0x00],  // long form for a short length
            [0x04, 0x82, 0x00, 0x01, 0x00],  // leading zero length octet
            [0x04, 0x85, 0x01, 0x00, 0x00, 0x00, 0x00],  // five length octets
            [0x04, 0x02, 0x00],  // truncated contents
            [0x1F, 0x81, 0x00],  // high tag number form
            [0x02, 0x00],  // empty INTEGER
            [0x02, 0x02, 0x00, 0x01],  // non-minimal INTEGER
            [0x02, 0x02, 0xFF, 0x80],  // non-minimal negative INTEGER
            [0x02, 0x01, 0x80],  // negative INTEGER read as unsigned
            [0x01, 0x01, 0x01],  // BOOLEAN neither 00 nor FF
            [0x05, 0x01, 0x00],  // NULL with contents
            [0x03, 0x00],  // BIT STRING without unused count
            [0x03, 0x02, 0x08, 0x00],  // unused count 8
            [0x03, 0x02, 0x01, 0x01],  // non-zero unused bit
            [0x03, 0x01, 0x01],  // empty BIT STRING with unused bits
            [0x06, 0x00],  // empty OID
            [0x06, 0x02, 0x80, 0x01],  // padded OID arc
            [0x06, 0x01, 0x81],  // OID ends mid-arc
            [0x17, 0x0B, 0x37, 0x30, 0x30, 0x31, 0x30, 0x31, 0x30, 0x30, 0x30, 0x30, 0x5A],  // UTCTime without seconds
            [0x17, 0x0D, 0x37, 0x30, 0x31, 0x33, 0x30, 0x31, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x5A],  // month 13
            // 2023-02-29 does not exist.
            [0x18, 0x0F, 0x32, 0x30, 0x32, 0x33, 0x30, 0x32, 0x32, 0x39, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x5A],
            [0x0C, 0x01, 0xFF],  // invalid UTF-8
            [0x13, 0x01, 0x40],  // '@' in PrintableString
        ] as [[UInt8]])
    func strictness(_ bytes: [UInt8]) {
        var reader = DERReader(bytes)
        #expect(throws: CryptoError.self) { try walk(&reader) }
    }

    @Test("writer output reads back: integers, OIDs, strings, times")
    func roundTrip() throws {
        var writer = DERWriter()
        writer.writeSequence { sequence in
            for value: Int64 in [0, 1, 127, 128, 255, 256, -1, -128, -129, .max, .min] {
                sequence.writeInteger(value)
            }
            sequence.writeUnsignedInteger(bigEndian: [0x00, 0x00, 0x80])
            sequence.writeUnsignedInteger(bigEndian: [])
            sequence.writeObjectIdentifier(Self.multiByteArcs)
            sequence.writeObjectIdentifier(ASN1ObjectIdentifier(dotted: "2.999.18446744073709551535")!)
            sequence.writeUTF8String("Grüße")
            sequence.writeBoolean(true)
            sequence.writeNull()
            sequence.writeBitString(DERBitString(bytes: [0xFF], unusedBitCount: 3))
            sequence.writeOctetString([UInt8](repeating: 7, count: 300))
            sequence.writeImplicit(tagNumber: 0, contents: [1, 2])
            sequence.writeExplicit(tagNumber: 3) { $0.writeNull() }
        }
        try writer.writePrintableString("Cupertino, CA")
        #expect(throws: CryptoError.self) { try writer.writePrintableString("a@b") }
        try writer.writeTime(Date(timeIntervalSince1970: 0))
        try writer.writeTime(Date(timeIntervalSince1970: 253_402_300_799))
        try writer.writeTime(Date(timeIntervalSince1970: 2_524_607_999))  // 2049-12-31T23:59:59Z
        try writer.writeTime(Date(timeIntervalSince1970: 2_524_608_000))  // 2050-01-01T00:00:00Z
        try writer.writeTime(Date(timeIntervalSince1970: -631_152_000))  // 1950-01-01
        #expect(throws: CryptoError.self) { try writer.writeTime(Date(timeIntervalSince1970: 253_402_300_800)) }

        var reader = DERReader(writer.bytes)
        var sequence = try reader.readSequence()
        for value: Int64 in [0, 1, 127, 128, 255, 256, -1, -128, -129, .max, .min] {
            #expect(try sequence.readInteger() == value)
        }
        #expect(try sequence.readUnsignedInteger() == [0x80])
        #expect(try sequence.readUnsignedInteger() == [0x00])
        #expect(try sequence.readObjectIdentifier() == Self.multiByteArcs)
        #expect(try sequence.readObjectIdentifier().description == "2.999.18446744073709551535")
        #expect(try sequence.readString() == "Grüße")
        #expect(try sequence.readBoolean())
        try sequence.readNull()
        #expect(try sequence.readBitString() == DERBitString(bytes: [0xF8], unusedBitCount: 3))
        #expect(try sequence.readOctetString().count == 300)
        #expect(Array(try sequence.readElement(tag: 0x80).contents) == [1, 2])
        var explicit = try #require(try sequence.readOptionalExplicit(tagNumber: 3))
        try explicit.readNull()
        try sequence.finish()
        #expect(try reader.readString() == "Cupertino, CA")
        let utc = try reader.readElement()
        #expect(utc.tag == DERTag.utcTime && Array(utc.contents) == Array("700101000000Z".utf8))
        let generalized = try reader.readElement()
        #expect(
            generalized.tag == DERTag.generalizedTime && Array(generalized.contents) == Array("99991231235959Z".utf8))
        #expect(try generalized.timeValue() == Date(timeIntervalSince1970: 253_402_300_799))
        let last2049 = try reader.readElement()
        #expect(last2049.tag == DERTag.utcTime && Array(last2049.contents) == Array("491231235959Z".utf8))
        let first2050 = try reader.readElement()
        #expect(first2050.tag == DERTag.generalizedTime && Array(first2050.contents) == Array("20500101000000Z".utf8))
        let y1950 = try reader.readElement()
        #expect(y1950.tag == DERTag.utcTime && Array(y1950.contents) == Array("500101000000Z".utf8))
        #expect(try y1950.timeValue() == Date(timeIntervalSince1970: -631_152_000))
        try reader.finish()
    }

    @Test(
        "OID text parsing rejects malformed arcs",
        arguments: ["", "1", "3.1", "1.40", "1..2", "1.02", "1.2.", "a.b", "1.2.18446744073709551616"])
    func oidText(_ text: String) {
        #expect(ASN1ObjectIdentifier(dotted: text) == nil)
    }
}
