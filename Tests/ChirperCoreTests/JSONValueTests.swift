import Testing

@testable import ChirperCore

@Suite("Reading JSON")
struct JSONValueTests {
    @Test("objects keep their members in order, numbers keep the text the server wrote")
    func shapes() throws {
        let value = try JSONValue.parse(
            Array(#" {"a": [1, -0.50, 2e3, true, false, null], "b": {}, "a": "last"} "#.utf8))
        #expect(
            value
                == .object([
                    .init(
                        key: "a",
                        value: .array([
                            .number("1"), .number("-0.50"), .number("2e3"), .bool(true), .bool(false), .null,
                        ])),
                    .init(key: "b", value: .object([])),
                    .init(key: "a", value: .string("last")),
                ]))
        #expect(value["a"] == .string("last"), "a repeated member reads as its last value, as a dictionary keeps it")
    }

    @Test("escapes are decoded, surrogate pairs joined, a lone half replaced")
    func escapes() throws {
        let text = #""q\" b\\ s\/ \b\f\n\r\t \u00e9 \ud83d\ude00 \ud83d x""#
        #expect(try JSONValue.parse(Array(text.utf8)) == .string("q\" b\\ s/ \u{8}\u{C}\n\r\t é 😀 \u{FFFD} x"))
    }

    @Test("what a lenient server might send is kept rather than costing the page")
    func lenient() throws {
        #expect(try JSONValue.parse(Array(#""a\qb \u12 c""#.utf8)) == .string(#"a\qb \u12 c"#))
        #expect(try JSONValue.parse(Array("\"tab\there\"".utf8)) == .string("tab\there"))
        #expect(try JSONValue.parse([0x22, 0x57, 0xFF, 0x72, 0x22]) == .string("W\u{FFFD}r"))
    }

    @Test(
        "what is not JSON is refused",
        arguments: [
            "", " ", "{", "[1,]", "{\"a\" 1}", "{\"a\": 1,}", "{a: 1}", "01", "1.", "-", "1e", ".5", "+1", "tru",
            "nul", "\"open", "[1] 2", "<html>", "[\"a\" \"b\"]",
        ])
    func refused(text: String) {
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue.parse(Array(text.utf8)) }
    }

    @Test("nesting deeper than the limit is refused before the stack is at risk")
    func depth() throws {
        let limit = JSONValue.maximumDepth
        let fits = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try JSONValue.parse(Array(fits.utf8)) }
        let deeper = "[" + fits + "]"
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue.parse(Array(deeper.utf8)) }
    }
}
