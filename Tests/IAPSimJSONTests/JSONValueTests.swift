import Foundation
import Testing

@testable import IAPSimJSON

@Suite struct JSONValueTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func parsesWhatXcodeWrites() throws {
        let value = try parse(#"{ "a" : [ 1, -2.5e3, true, false, null ], "b" : "x\"\\\/\n\u00e9\ud83d\ude00" }"#)
        #expect(
            value
                == .object([
                    (key: "a", value: .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null])),
                    (key: "b", value: .string("x\"\\/\né😀")),
                ]))
        #expect(try parse("[\n\n  ]") == .array([]))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "[1] x", "\"\u{01}\"", "tru", "\"\\x\"", "-", "{\"a\":}", "\"\\ud800\\u0041\"",
    ])
    func rejectsMalformedJSON(text: String) {
        #expect(throws: JSONValue.SyntaxError.self) { try parse(text) }
    }

    @Test func boundsNestingInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = try? #require(throws: JSONValue.SyntaxError.self) { try parse(deep) }
        #expect(error?.message.contains("nested deeper") == true)
        #expect(throws: Never.self) {
            try parse(String(repeating: "[", count: 500) + String(repeating: "]", count: 500))
        }
    }

    /// The writer checks a string eight bytes at a time: a character to escape is escaped at
    /// every place, in the first block, a later one or the tail, and the text reads back.
    @Test(arguments: ["\"", "\\", "\n", "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}"])
    func escapesACharacterWhereverItIs(special: String) throws {
        let escaped = try #require(
            [
                "\"": #"\""#, "\\": #"\\"#, "\n": #"\n"#, "\u{1F}": #"\u001f"#, "\u{7F}": #"\u007f"#,
                "\u{2028}": #"\u2028"#, "\u{2029}": #"\u2029"#,
            ][special])
        for length in [0, 1, 15, 16, 17, 31, 32, 33, 40] {
            for place in 0...length {
                let text =
                    String(repeating: "a", count: place) + special + String(repeating: "b", count: length - place)
                let written = String(decoding: JSONValue.string(text).bytes(compact: true), as: UTF8.self)
                #expect(written.contains(escaped), "\(written)")
                #expect(try parse(written) == .string(text))
            }
        }
        let plain = String(repeating: "eyJhbGciOiJFUzI1NiJ9.", count: 7) + "é"
        #expect(JSONValue.string(plain).bytes(compact: true) == Array(("\"" + plain + "\"").utf8))
    }

    @Test func readerErrorsNameThePlace() throws {
        let reader = try Reader(try parse(#"{"products":[{"productID":7}]}"#), at: "")
        let error = try #require(throws: Reader.Failure.self) {
            try reader.required("products").array { item throws(Reader.Failure) in
                try item.required("productID").string()
            }
        }
        #expect(error.message == "products[0].productID: expected a string, found a number")
    }

    /// A listing writes each row member by member under names spelled once (`JSONKey`): the
    /// bytes are those of the whole value, at every depth (past the indents kept ready too)
    /// and with names that need escaping.
    @Test func aRowWrittenByMembersIsTheWholeValue() {
        let members: [(String, JSONValue)] = [
            ("id", .int(7)), ("name \"quoted\"\n", .string("é\u{2028}")), ("nested", .object([("a", .array([.null]))])),
            ("empty", .object([])),
        ]
        for depth in [0, 1, 2, 15, 16, 17, 40] {
            var whole: JSONValue = .object(members)
            for _ in 0..<depth { whole = .array([whole]) }
            var bytes: [UInt8] = []
            var stream = JSONStream { bytes += $0 }
            for _ in 0..<depth { stream.beginArray() }
            stream.beginObject()
            for (name, value) in members { stream.value(value, JSONKey(name)) }
            stream.end()
            stream.finish()
            #expect(bytes == whole.bytes() + [0x0A], "at depth \(depth)")
        }
    }
}
