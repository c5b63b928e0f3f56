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

    @Test func readerErrorsNameThePlace() throws {
        let reader = try Reader(try parse(#"{"products":[{"productID":7}]}"#), at: "")
        let error = try #require(throws: Reader.Failure.self) {
            try reader.required("products").array { item throws(Reader.Failure) in
                try item.required("productID").string()
            }
        }
        #expect(error.message == "products[0].productID: expected a string, found a number")
    }
}
