/// A frequency band in Hz: from `low` to `high` (nil: the recording's Nyquist frequency).
public struct FrequencyBand: Sendable, Hashable {
    public var low: Double
    public var high: Double?

    public init(low: Double = 0, high: Double?) {
        self.low = low
        self.high = high
    }

    /// Where birds sing: what `sono` and the live strip draw unless asked for another band (cut at Nyquist).
    public static let birds = FrequencyBand(high: 12_000)
    /// The whole recording, up to its Nyquist frequency (`sono … max`).
    public static let whole = FrequencyBand(high: nil)
}

/// `sono [n] [lo-hi | max] [a-b] [--png FILE]`, parsed.
public struct SonogramDraw: Sendable, Hashable {
    /// The row to draw; nil for the recording playing (its loop's section while a loop is set).
    public var row: Int?
    public var band: FrequencyBand?
    /// The section of the recording, in recording time; nil for all of it.
    public var window: TimeSpan?
    /// Also write the picture as a PNG file here (as typed; `~` allowed).
    public var png: String?
    /// `--contrast auto|fixed` for this picture; nil for the session's (`--contrast` at launch).
    public var contrast: SonogramContrast?

    public init(
        row: Int?, band: FrequencyBand? = nil, window: TimeSpan? = nil, png: String? = nil,
        contrast: SonogramContrast? = nil
    ) {
        self.row = row
        self.band = band
        self.window = window
        self.png = png
        self.contrast = contrast
    }
}

/// What `sono …` asks for, parsed but not yet acted on (the REPL decides what it means now).
public enum SonogramRequest: Sendable, Hashable {
    /// Draw a sonogram.
    case draw(SonogramDraw)
    /// `sono on [lines] [lo-hi]` / `sono off`: the live strip while playing (nil: the defaults).
    case strip(on: Bool, lines: Int? = nil, band: FrequencyBand? = nil)

    /// The usage line for errors and help.
    public static let usage =
        "sono [n] [lo-hi|top|max] [a-b] [--png FILE] [--contrast auto|fixed] | sono on [lines] [lo-hi] | sono off"

    /// Lines the live strip may take.
    public static let stripLines = 2...40

    /// Parses the words after `sono`; a bad one gets one line saying what to type.
    public static func parse(_ rest: String) throws(CommandError) -> SonogramRequest {
        var words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
        switch words.first?.lowercased() {
        case "off":
            guard words.count == 1 else { throw CommandError("sono off takes nothing more; usage: \(usage)") }
            return .strip(on: false)
        case "on":
            return try strip(Array(words.dropFirst()))
        default:
            break
        }
        var draw = SonogramDraw(row: nil)
        if let first = words.first, first.allSatisfy({ $0.isNumber || $0 == "#" }) {
            let digits = first.hasPrefix("#") ? String(first.dropFirst()) : first
            guard digits.count <= 9, let row = Int(digits), row >= 1 else {
                throw CommandError("'\(shown(first))' is not a row number; usage: \(usage)")
            }
            draw.row = row
            words.removeFirst()
        }
        while !words.isEmpty {
            let word = words.removeFirst()
            if word == "--png" {
                guard !words.isEmpty else { throw CommandError("--png needs a file name, e.g. --png wren.png") }
                draw.png = words.removeFirst()
            } else if word == "--contrast" {
                switch words.first?.lowercased() {
                case "auto": draw.contrast = .auto
                case "fixed": draw.contrast = .fixedDefault
                default: throw CommandError("--contrast takes auto or fixed, e.g. sono 1 --contrast fixed")
                }
                words.removeFirst()
            } else if draw.band == nil && draw.window == nil && word.lowercased() == "max" {
                draw.band = .whole
            } else if draw.band == nil && draw.window == nil && !isTime(word) {
                draw.band = try band(word)
            } else if draw.window == nil {
                draw.window = try window(word)
            } else {
                throw CommandError("too many words after sono ('\(shown(word))'); usage: \(usage)")
            }
        }
        return .draw(draw)
    }

    private static func strip(_ words: [String]) throws(CommandError) -> SonogramRequest {
        var lines: Int?
        var band: FrequencyBand?
        for word in words {
            if lines == nil, band == nil, let count = Int(word) {
                guard stripLines.contains(count) else {
                    throw CommandError(
                        "the strip takes \(stripLines.lowerBound)-\(stripLines.upperBound) lines, not \(shown(word))")
                }
                lines = count
            } else if band == nil {
                band = try self.band(word)
            } else {
                throw CommandError("too many words after sono on; usage: \(usage)")
            }
        }
        return .strip(on: true, lines: lines, band: band)
    }

    /// A time, or a span of times (`0:12-0:15`, `12s-15s`): it has a colon or a seconds suffix.
    private static func isTime(_ word: String) -> Bool {
        word.contains(":") || word.lowercased().hasSuffix("s")
    }

    /// `lo-hi` or `max`, in kHz (`2-9`, `2-9kHz`, `10`).
    static func band(_ word: String) throws(CommandError) -> FrequencyBand {
        let lower = word.lowercased()
        let text =
            lower.hasSuffix("khz") ? String(lower.dropLast(3)) : lower.hasSuffix("k") ? String(lower.dropLast()) : lower
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        let numbers = parts.map { part -> Double? in
            guard part.count <= 12, let value = Double(part), value.isFinite, value >= 0, value <= 1000 else {
                return nil
            }
            return value
        }
        switch numbers.count {
        case 1:
            guard let high = numbers[0], high > 0 else {
                throw CommandError(
                    "'\(shown(word))' is not a band in kHz: lo-hi or a top (0-1000], e.g. 2-9 or 10; usage: \(usage)")
            }
            return FrequencyBand(high: high * 1000)
        case 2:
            guard let low = numbers[0], let high = numbers[1] else {
                throw CommandError("'\(shown(word))' is not a band in kHz, e.g. 2-9; usage: \(usage)")
            }
            guard low < high else {
                throw CommandError("the band \(shown(word)) kHz is empty: the low end must be below the high end")
            }
            return FrequencyBand(low: low * 1000, high: high * 1000)
        default:
            throw CommandError("'\(shown(word))' is not a band in kHz, e.g. 2-9; usage: \(usage)")
        }
    }

    /// `a-b` in recording time, as `seek` takes it (`0:12-0:15`, `12-15.5`, `12s-15s`).
    static func window(_ word: String) throws(CommandError) -> TimeSpan {
        let text = word.lowercased().replacingSecondsSuffix()
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, case .success(.absolute(let start)) = TimeInput.parse(String(parts[0])),
            case .success(.absolute(let end)) = TimeInput.parse(String(parts[1]))
        else {
            throw CommandError(
                "'\(shown(word))' is not a time window: a-b as seek takes times, e.g. 0:12-0:15; usage: \(usage)")
        }
        guard start < end else {
            throw CommandError("the window \(shown(word)) is empty: its start must come before its end")
        }
        return TimeSpan(start: start, end: end)
    }

    static func shown(_ text: String) -> String {
        TerminalText.sanitize(String(text.prefix(20)))
    }
}

extension String {
    /// `12s-15s` → `12-15`.
    fileprivate func replacingSecondsSuffix() -> String {
        split(separator: "-", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("s") ? String($0.dropLast()) : String($0) }
            .joined(separator: "-")
    }
}
