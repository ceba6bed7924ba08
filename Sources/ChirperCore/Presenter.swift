import FoundationEssentials

/// Turns the two state machines' changes into the lines the user sees. This is the one place that decides
/// what is shown: the REPL passes every change through here and prints the result.
///
/// Two styles: `.script` for pipes (one stable, parseable line per state change, no escapes) and `.terminal`
/// for people (readable lines, rows fitted to the width, optional colour, and a live status line).
public struct Presenter: Sendable {
    public enum Style: Sendable, Hashable {
        case script
        case terminal(color: Bool)
    }

    public var style: Style
    /// Terminal columns, for fitting rows and the status line.
    public var width: Int
    /// "xeno-canto" or "the demo catalog", for messages.
    public var sourceName: String
    /// The terminal takes 24-bit colour (`COLORTERM=truecolor`); else the 256-colour palette.
    public var trueColor: Bool
    /// A search that finds something in the source (`RecordingSource.exampleSearch`), for the hints that say
    /// to search first.
    public var exampleSearch: String

    public init(
        style: Style, width: Int = 80, sourceName: String, trueColor: Bool = false, exampleSearch: String = "en:wren"
    ) {
        self.style = style
        self.width = max(20, width)
        self.sourceName = sourceName
        self.trueColor = trueColor
        self.exampleSearch = exampleSearch
    }

    /// What the hints say to type first.
    public var searchFirst: String { SearchQuery.searchFirst(example: exampleSearch) }

    /// The answer to `search` alone.
    public var searchNeedsWords: String {
        "search needs words or tags, e.g. search \(exampleSearch) (help tags lists the tags)"
    }

    var isScript: Bool { style == .script }
    var color: Bool { style == .terminal(color: true) }

    // MARK: - Messages

    /// A command that did nothing, or a bad line: one line, said plainly.
    public func refusal(_ text: String) -> String {
        isScript ? "error: \(quote(text))" : warn(clean(text))
    }

    /// Sanitised API text.
    func clean(_ text: String) -> String { TerminalText.sanitize(text) }

    /// A value for a script line: sanitised and always quoted, with `"` and `\` escaped.
    func quote(_ text: String) -> String {
        if Self.isPlain(text) { return "\"" + text + "\"" }
        // By scalar, not by character: a quote followed by a combining mark is one character, and still a quote.
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in clean(text).unicodeScalars {
            if scalar == "\"" || scalar == "\\" { quoted.append("\\") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }

    /// Appends `text` quoted, as `quote` gives it, to `line`.
    func appendQuoted(_ text: String, to line: inout String) {
        guard Self.isPlain(text) else {
            line += quote(text)
            return
        }
        line += "\""
        line += text
        line += "\""
    }

    /// Printable ASCII without a quote or a backslash: nothing to clean or escape.
    private static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x20...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }
    }

    /// The first lines on a terminal: the version, where the recordings come from (`source`), and how to get
    /// help.
    public func banner(version: String, source: String) -> [String] {
        wrapped("chirper-play \(version) · \(source) · type help for commands")
    }

    /// Plain `text` broken between words into rows that fit the terminal, with one column left free as for the
    /// list's rows; rows after the first start with `indent` spaces. A word wider than a row stays whole, for the
    /// terminal to wrap (a web address is better whole than cut). In script style, one line.
    func wrapped(_ text: String, indent: Int = 2) -> [String] {
        wrapped(words: text.split(separator: " ").map(String.init), indent: indent)
    }

    /// `words` joined by spaces and broken between them as `wrapped(_:indent:)` breaks a text; a word may hold
    /// spaces (a licence's name), and is never broken.
    func wrapped(words: [String], indent: Int = 2) -> [String] {
        let columns = width - 1
        let text = words.joined(separator: " ")
        guard !isScript, text.count > columns else { return [text] }
        let pad = String(repeating: " ", count: indent)
        var rows: [String] = []
        var row = ""
        var rowIsEmpty = true
        for word in words {
            if !rowIsEmpty, row.count + 1 + word.count > columns {
                rows.append(row)
                row = pad
                rowIsEmpty = true
            }
            row += (rowIsEmpty ? "" : " ") + word
            rowIsEmpty = false
        }
        return rows + [row]
    }

    private func sgr(_ code: String, _ text: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    func bold(_ text: String) -> String { sgr("1", text) }
    func dim(_ text: String) -> String { sgr("2", text) }
    func bad(_ text: String) -> String { sgr("31", text) }
    func warn(_ text: String) -> String { sgr("33", text) }
}

extension String {
    /// One decimal place, e.g. "12.8".
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}

extension Array where Element: Hashable {
    func removingDuplicates() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
