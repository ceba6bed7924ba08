import FoundationEssentials

/// `quiz export FILE.csv`: each card's recordings as CSV rows (RFC 4180), for a spreadsheet or Anki's CSV import.
public enum QuizExport {
    public static let header = [
        "deck", "species", "english_name", "sound", "due", "reviews", "recording", "page", "audio", "recordist",
        "licence",
    ]

    /// The rows as CSV text, with the header first.
    public static func csv(_ rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    /// One field: API text is sanitised; a field that a spreadsheet would run as a formula (=, +, -, @) is
    /// prefixed with a quote mark; commas, quotes and line breaks are quoted.
    static func field(_ text: String) -> String {
        var value = TerminalText.sanitize(text)
        if let first = value.first, "=+-@".contains(first) { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacing("\"", with: "\"\"") + "\""
    }
}
