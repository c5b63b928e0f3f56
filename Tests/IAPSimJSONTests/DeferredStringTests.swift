import Testing

@testable import IAPSimJSON

/// `JSONValue.parse(_:deferringString:)`: a large member read where it lies, not copied.
@Suite struct DeferredStringTests {
    @Test func theMembersBytesAreReturnedAndTheRestParsed() throws {
        let bytes = Array(#"{"a":1,"big":"xy\/z\n","c":{"big":"inner"},"big":"second"}"#.utf8)
        let (value, range) = try JSONValue.parse(bytes, deferringString: "big")
        let found = try #require(range)
        #expect(String(decoding: bytes[found], as: UTF8.self) == "second", "the last, as the subscript reads")
        #expect(value["a"] == .int(1))
        #expect(value["c"]?["big"] == .string("inner"), "only the top level's member is deferred")
        #expect(value["big"] == .string(""))
    }

    @Test func aMissingOrNonStringMemberDefersNothing() throws {
        #expect(try JSONValue.parse(Array(#"{"big":1}"#.utf8), deferringString: "big").deferred == nil)
        #expect(try JSONValue.parse(Array(#"["big"]"#.utf8), deferringString: "big").deferred == nil)
    }

    @Test(arguments: [#"{"big":"a"#, #"{"big":"\q"}"#, "{\"big\":\"a\u{1}\"}", #"{"big":"\u12"}"#, #"{"big":"a"} x"#])
    func aMalformedDeferredStringIsASyntaxError(text: String) {
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue.parse(Array(text.utf8), deferringString: "big") }
    }
}
