/// A JSON value as read by ``JSONValue/parse(_:)``: numbers keep the text the server wrote, objects keep their
/// members in the order written (duplicates included).
///
/// Search pages are read with this rather than `JSONDecoder`. The tolerant `Decodable` model before it tried
/// each field as a string, then as a number, a thrown `DecodingError` per miss, which made reading a page the
/// slowest step between `list: loading` and the page in a cold start.
enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number's literal text, e.g. `-3.20` or `1e3`, checked against JSON's number grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([Member])

    struct Member: Equatable, Sendable {
        var key: String
        var value: JSONValue
    }

    /// The value of the last member named `key` (as a dictionary would keep it); nil when absent or not an object.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// Why bytes are not JSON, with the byte offset where reading stopped.
    struct SyntaxError: Error, Equatable {
        var offset: Int
        var reason: String
    }

    /// Nesting deeper than this is refused: no page is that deep, and recursion must not exhaust the stack.
    static let maximumDepth = 256

    /// Reads one JSON text (RFC 8259): a value with optional white space around it and nothing after it. Inside
    /// strings it is lenient where strictness would only cost the user a page: invalid UTF-8 becomes U+FFFD, raw
    /// control characters and escapes JSON does not define are kept as written.
    static func parse(_ bytes: some Collection<UInt8>) throws(SyntaxError) -> JSONValue {
        // The failure in a local rather than a `Result<JSONValue, SyntaxError>`: that type is made at run time
        // from its mangled name, and its `Error` requirement cost a search of every conformance in the program
        // at the first page of a session.
        var failure: SyntaxError?
        let parsed: JSONValue?? = bytes.withContiguousStorageIfAvailable { buffer in
            do throws(SyntaxError) { return try parse(buffer: buffer) } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        if case .some(.some(let value)) = parsed { return value }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer throws(SyntaxError) in try parse(buffer: buffer) }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(SyntaxError) -> JSONValue {
        var reader = JSONReader(bytes: buffer)
        reader.skipWhiteSpace()
        let value = try reader.value(depth: 0)
        reader.skipWhiteSpace()
        guard reader.offset == buffer.count else { throw reader.error("text after the value") }
        return value
    }
}

/// The cursor of one parse, over bytes it does not own.
private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func error(_ reason: String) -> JSONValue.SyntaxError {
        JSONValue.SyntaxError(offset: offset, reason: offset < bytes.count ? reason : "the text ends early")
    }

    var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func skipWhiteSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): offset += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
        guard let byte = current else { throw error("a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("a value was expected")
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONValue.SyntaxError) -> JSONValue {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - offset >= expected.count,
            expected.indices.allSatisfy({ bytes[offset + $0] == expected[$0] })
        else { throw error("a value was expected") }
        offset += expected.count
        return value
    }

    private mutating func object(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw error("nested too deeply") }
        offset += 1
        var members: [JSONValue.Member] = []
        skipWhiteSpace()
        if current == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhiteSpace()
            guard current == UInt8(ascii: "\"") else { throw error("a member name was expected") }
            let key = try string()
            skipWhiteSpace()
            guard current == UInt8(ascii: ":") else { throw error("':' was expected") }
            offset += 1
            skipWhiteSpace()
            members.append(JSONValue.Member(key: key, value: try value(depth: depth)))
            skipWhiteSpace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return .object(members)
            default: throw error("',' or '}' was expected")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw error("nested too deeply") }
        offset += 1
        var elements: [JSONValue] = []
        skipWhiteSpace()
        if current == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            skipWhiteSpace()
            elements.append(try value(depth: depth))
            skipWhiteSpace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                return .array(elements)
            default: throw error("',' or ']' was expected")
            }
        }
    }

    /// A string from its opening quote. Runs without escapes are taken as they are (repairing invalid UTF-8, and
    /// keeping raw control characters, which every line printed is stripped of anyway); escapes are decoded, and a
    /// `\u` surrogate without its pair becomes U+FFFD.
    private mutating func string() throws(JSONValue.SyntaxError) -> String {
        offset += 1
        let start = offset
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                offset += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            offset += 1
        }
        var decoded = Array(bytes[start..<offset])
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                offset += 1
                escape(into: &decoded)
            default:
                decoded.append(byte)
                offset += 1
            }
        }
        throw error("a string is not closed")
    }

    /// One escape after its backslash. An escape JSON does not define (`\\q`, `\\u` without four hex digits) is
    /// kept as it was written.
    private mutating func escape(into decoded: inout [UInt8]) {
        guard let byte = current else { return }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            guard var scalar = hexQuad().map(UInt32.init) else {
                decoded.append(contentsOf: [UInt8(ascii: "\\"), byte])
                return
            }
            if (0xD800..<0xDC00).contains(scalar), bytes.count - offset >= 6, bytes[offset] == UInt8(ascii: "\\"),
                bytes[offset + 1] == UInt8(ascii: "u")
            {
                let resume = offset
                offset += 2
                if let low = hexQuad().map(UInt32.init), (0xDC00..<0xE000).contains(low) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    offset = resume  // not a pair: the high half alone is replaced, the next escape read as itself
                }
            }
            UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { decoded.append($0) }
        default:
            decoded.append(contentsOf: [UInt8(ascii: "\\"), byte])
        }
    }

    /// Four hex digits, consumed; nil (nothing consumed) when they are not there.
    private mutating func hexQuad() -> UInt16? {
        guard bytes.count - offset >= 4 else { return nil }
        var value: UInt16 = 0
        for index in offset..<offset + 4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        offset += 4
        return value
    }

    /// A number's text: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() throws(JSONValue.SyntaxError) -> String {
        let start = offset
        if current == UInt8(ascii: "-") { offset += 1 }
        if current == UInt8(ascii: "0") {
            offset += 1
        } else {
            guard digits() > 0 else { throw error("a number needs digits") }
        }
        if current == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw error("a number needs digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw error("a number needs digits in its exponent") }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
    }

    private mutating func digits() -> Int {
        let start = offset
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { offset += 1 }
        return offset - start
    }
}
