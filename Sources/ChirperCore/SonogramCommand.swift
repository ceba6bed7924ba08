/// What `sono …` asks for, parsed but not yet acted on (the REPL decides what it means now).
public enum SonogramRequest: Sendable, Hashable {
    /// `sono <n> [max-kHz]`: draw row n's sonogram, up to `maxKHz` (nil: the recording's Nyquist).
    case draw(row: Int, maxKHz: Double?)
    /// `sono on` / `sono off`: the live strip while playing.
    case strip(on: Bool)

    /// The usage line for errors and help.
    public static let usage = "sono <n> [max-kHz] | sono on | sono off"

    /// Parses the words after `sono`; a bad one gets one line saying what to type.
    public static func parse(_ rest: String) throws(CommandError) -> SonogramRequest {
        let words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first else {
            throw CommandError("sono needs a row number, e.g. sono 1 (or sono on/off); usage: \(usage)")
        }
        switch first.lowercased() {
        case "on", "off":
            guard words.count == 1 else {
                throw CommandError("sono \(first.lowercased()) takes nothing more; usage: \(usage)")
            }
            return .strip(on: first.lowercased() == "on")
        default:
            break
        }
        let digits = first.hasPrefix("#") ? String(first.dropFirst()) : first
        guard digits.count <= 9, let row = Int(digits), row >= 1 else {
            throw CommandError("'\(shown(first))' is not a row number; usage: \(usage)")
        }
        guard words.count <= 2 else { throw CommandError("too many words after sono; usage: \(usage)") }
        guard words.count == 2 else { return .draw(row: row, maxKHz: nil) }
        let text = words[1].lowercased().hasSuffix("khz") ? String(words[1].dropLast(3)) : words[1]
        guard text.count <= 12, let kHz = Double(text), kHz.isFinite, kHz > 0, kHz <= 1000 else {
            throw CommandError(
                "'\(shown(words[1]))' is not a top frequency in kHz (0-1000], e.g. sono \(row) 10; usage: \(usage)")
        }
        return .draw(row: row, maxKHz: kHz)
    }

    private static func shown(_ text: String) -> String {
        TerminalText.sanitize(String(text.prefix(20)))
    }
}
