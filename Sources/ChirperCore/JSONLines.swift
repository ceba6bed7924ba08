/// `--json`: each line of the pipe protocol as one JSON object. The line `kind: word word key=value
/// key="text" flag` becomes `{"type":"kind", <the words under their names>, "key":value, …, "flag":true}`: the
/// words after the kind are named per kind, or per kind and first word (`playback: playing XC1` →
/// `"state":"playing","id":"XC1","xc":1`); a bare word past them is a flag (`muted` → `"muted":true`); a value
/// that reads as a number is a number; quoted text is a string, unescaped; a list or record is written in the
/// line as JSON (`choices=[{"n":1,…}]`) and kept whole. No free text is ever split into words: every line the
/// presenter writes quotes its text. `xc` is added beside an `id` that is a xeno-canto number.
/// Text from the API stays escaped (control characters as `\u00XX`).
public enum JSONLines {
    /// What the words after a kind are called, in order.
    static let positional: [String: [String]] = [
        "list": ["state"],
        "playback": ["state", "id"],
        "attribution": ["id"],
        "queue": ["event", "id"],
        "save": ["event", "id"],
        "cache": ["event"],
        "cite": ["id"],
        "settings": [],
        "quiz": ["event"],
        "ab": [],
        "compare": ["section"],
        "measure": [],
        "identify": ["id"],
        "select": ["state"],
        "sono": ["id", "band", "window"],
        "info": [],
        "row": [],
        "error": ["message"],
    ]

    /// Where a kind's first word says what the others are (`kind word`).
    static let positionalByEvent: [String: [String]] = [
        "quiz answer": ["event", "verdict"],
        "queue queued": ["event", "ids"],
        "queue autoplay": ["event", "autoplay"],
        // A sonogram's annotation box line (`sono: box n=1 …`).
        "sono box": ["part"],
        // A detection of the last identification drawn over it (`sono: detection begin=… en=…`).
        "sono detection": ["part"],
        // `identify`'s summary per species, its check against the recordist's list, and its end.
        "identify species": ["event", "id"],
        "identify listed": ["event", "id"],
        "identify place": ["event", "id"],
        "identify done": ["event", "id"],
        // `identify on`: a segment heard while playing, and listening turned on or off.
        "identify live": ["event", "id"],
        "identify listening": ["event", "state"],
    ]

    /// The JSON object for one script line.
    public static func object(for line: String) -> String {
        guard let colon = line.firstIndex(of: ":"), !line[..<colon].contains(" ") else {
            return encode([("type", .string("text")), ("text", .string(line))])
        }
        let kind = String(line[..<colon])
        let rest = line[line.index(after: colon)...].drop { $0 == " " }
        if kind == "sono", !rest.contains("=") {
            return encode([("type", .string(kind)), ("row", .string(String(rest)))])
        }
        var fields: [(String, Value)] = [("type", .string(kind))]
        let parts = tokens(String(rest))
        var names = positional[kind] ?? []
        if case .word(let first, quoted: false)? = parts.first, let byEvent = positionalByEvent["\(kind) \(first)"] {
            names = byEvent
        }
        var extra: [Value] = []
        for token in parts {
            switch token {
            case .pair(let key, let value, let quoted):
                // A row's `type=` (the sound type) would clash with the object's type.
                let name = key == "type" ? "sound_type" : key
                fields.append((name, quoted ? .string(value) : typed(value)))
                if name == "id" { fields += xc(value) }
            case .structured(let key, let json):
                fields.append((key, .json(json)))
            case .word(let word, let quoted):
                let value: Value = quoted ? .string(word) : typed(word)
                if !names.isEmpty {
                    let name = names.removeFirst()
                    if name.hasSuffix("ids") {
                        fields.append((name, .array(word.split(separator: ",").map { .string(String($0)) })))
                    } else {
                        fields.append((name, value))
                    }
                    if name == "id" { fields += xc(word) }
                } else if !quoted, (try? /[a-z][a-z_-]*/.wholeMatch(in: word)) != nil {
                    fields.append((word, .bool(true)))
                } else {
                    extra.append(value)
                }
            }
        }
        if !extra.isEmpty { fields.append(("args", .array(extra))) }
        return encode(fields)
    }

    /// `xc` beside an id that is a xeno-canto number (`XC254462`); none for other catalogs' ids.
    private static func xc(_ id: String) -> [(String, Value)] {
        guard id.hasPrefix("XC"), let number = Int(id.dropFirst(2)), number >= 0 else { return [] }
        return [("xc", .number(String(number)))]
    }

    /// Whether the line is an error (in `--json` it goes to standard error).
    public static func isError(_ line: String) -> Bool { line.hasPrefix("error: ") }

    enum Value {
        case string(String)
        case number(String)
        case bool(Bool)
        case array([Value])
        /// JSON text, written as it is.
        case json(String)
    }

    enum Token {
        case word(String, quoted: Bool)
        case pair(String, String, quoted: Bool)
        /// `key=[…]` or `key={…}`: a list or record, as JSON.
        case structured(String, String)
    }

    /// Splits on spaces outside quotes; `key=value` pairs (the key plain, the value plain or quoted with `\"`
    /// and `\\` escapes).
    static func tokens(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var scalars = Array(text.unicodeScalars)[...]
        while !scalars.isEmpty {
            while scalars.first == " " { scalars = scalars.dropFirst() }
            guard !scalars.isEmpty else { break }
            var key: String?
            if let equals = scalars.firstIndex(of: "="),
                scalars[scalars.startIndex..<equals].allSatisfy({ $0 != " " && $0 != "\"" }),
                equals > scalars.startIndex
            {
                key = String(String.UnicodeScalarView(scalars[scalars.startIndex..<equals]))
                scalars = scalars[scalars.index(after: equals)...]
            }
            if let key, let open = scalars.first, open == "[" || open == "{",
                let json = balancedJSON(&scalars)
            {
                tokens.append(.structured(key, json))
                continue
            }
            let quoted = scalars.first == "\""
            var value = String.UnicodeScalarView()
            if quoted {
                scalars = scalars.dropFirst()
                while let scalar = scalars.first {
                    scalars = scalars.dropFirst()
                    if scalar == "\\", let next = scalars.first {
                        value.append(next)
                        scalars = scalars.dropFirst()
                    } else if scalar == "\"" {
                        break
                    } else {
                        value.append(scalar)
                    }
                }
            } else {
                while let scalar = scalars.first, scalar != " " {
                    value.append(scalar)
                    scalars = scalars.dropFirst()
                }
            }
            let text = String(value)
            tokens.append(key.map { .pair($0, text, quoted: quoted) } ?? .word(text, quoted: quoted))
        }
        return tokens
    }

    /// The JSON list or record at the start of `scalars`, up to its closing bracket (brackets inside its
    /// strings do not count), taken off `scalars`; nil (and `scalars` untouched) when it is not valid JSON.
    private static func balancedJSON(_ scalars: inout ArraySlice<Unicode.Scalar>) -> String? {
        var depth = 0
        var inString = false
        var escaped = false
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            index += 1
            if inString {
                if escaped {
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    inString = false
                }
                continue
            }
            switch scalar {
            case "\"": inString = true
            case "[", "{": depth += 1
            case "]", "}":
                depth -= 1
                if depth == 0 {
                    let text = String(String.UnicodeScalarView(scalars[scalars.startIndex..<index]))
                    guard (try? JSONValue.parse(Array(text.utf8))) != nil else { return nil }
                    scalars = scalars[index...]
                    return text
                }
            default: break
            }
        }
        return nil
    }

    /// A plain value: a number when it reads as one (JSON's grammar), `yes`/`no` as booleans, else a string.
    static func typed(_ text: String) -> Value {
        if text == "yes" { return .bool(true) }
        if text == "no" { return .bool(false) }
        let number = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/
        if (try? number.wholeMatch(in: text)) != nil { return .number(text) }
        return .string(text)
    }

    static func encode(_ fields: [(String, Value)]) -> String {
        "{" + fields.map { "\(string($0.0)):\(encode($0.1))" }.joined(separator: ",") + "}"
    }

    static func encode(_ value: Value) -> String {
        switch value {
        case .string(let text): return string(text)
        case .number(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .array(let values): return "[" + values.map(encode).joined(separator: ",") + "]"
        case .json(let text): return text
        }
    }

    /// A JSON string: quotes, backslashes and every control character escaped.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
