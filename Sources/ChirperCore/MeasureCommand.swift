/// `select <n> <a-b> [lo-hi]`: a time section and a band of one row's recording.
public struct SelectionRequest: Sendable, Hashable {
    public var row: Int
    public var span: TimeSpan
    public var band: FrequencyBand?

    public init(row: Int, span: TimeSpan, band: FrequencyBand? = nil) {
        self.row = row
        self.span = span
        self.band = band
    }

    public static let usage = "select <n> <a-b> [lo-hi kHz] | select | select clear"

    /// Parses `<n> <a-b> [lo-hi]`.
    static func parse(_ words: [String], usage: String) throws(CommandError) -> SelectionRequest {
        guard words.count == 2 || words.count == 3 else {
            throw CommandError("give a row, a time section and maybe a band, e.g. 1 0:12-0:15 2-9; usage: \(usage)")
        }
        let digits = words[0].hasPrefix("#") ? String(words[0].dropFirst()) : words[0]
        guard digits.count <= 9, let row = Int(digits), row >= 1 else {
            throw CommandError("'\(SonogramRequest.shown(words[0]))' is not a row number; usage: \(usage)")
        }
        let span = try SonogramRequest.window(words[1])
        let band = words.count == 3 ? try SonogramRequest.band(words[2]) : nil
        return SelectionRequest(row: row, span: span, band: band)
    }
}

/// What `select …` asks for.
public enum SelectRequest: Sendable, Hashable {
    /// `select`: say the current selection.
    case show
    case set(SelectionRequest)
    case clear

    public static func parse(_ rest: String) throws(CommandError) -> SelectRequest {
        let words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.isEmpty { return .show }
        if words == ["clear"] { return .clear }
        return .set(try SelectionRequest.parse(words, usage: SelectionRequest.usage))
    }
}

/// What `measure …` asks for.
public enum MeasureRequest: Sendable, Hashable {
    /// `measure`: the current selection (the one chosen with `select`, else the loop of what plays).
    case current
    /// `measure <n> <a-b> [lo-hi]`.
    case selection(SelectionRequest)
    /// `measure list`: the session's table.
    case list
    /// `measure save FILE`: the table as a Raven selection table.
    case save(String)
    /// `measure detections`: each species of the last identification, measured over its best segment.
    case detections

    public static let usage =
        "measure | measure <n> <a-b> [lo-hi] | measure detections | measure list | measure save FILE"

    public static func parse(_ rest: String) throws(CommandError) -> MeasureRequest {
        let words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
        switch words.first?.lowercased() {
        case nil:
            return .current
        case "list":
            guard words.count == 1 else { throw CommandError("measure list takes nothing more; usage: \(usage)") }
            return .list
        case "detections":
            guard words.count == 1 else {
                throw CommandError("measure detections takes nothing more; usage: \(usage)")
            }
            return .detections
        case "save":
            guard words.count == 2 else {
                throw CommandError("measure save needs one file name, e.g. measure save calls.txt; usage: \(usage)")
            }
            return .save(words[1])
        default:
            return .selection(try SelectionRequest.parse(words, usage: usage))
        }
    }
}

/// One thing `compare` sets beside the others: a row's recording (from its start), or a measured selection.
public enum CompareItem: Sendable, Hashable {
    case row(Int)
    /// `sK`: row K of the session's selection table.
    case selection(Int)

    public static let usage = "compare <a> <b> [more]: rows (3) or measured selections (s1)"

    /// Parses the words after `compare`: two to four rows or selections.
    public static func parse(_ rest: String) throws(CommandError) -> [CompareItem] {
        let words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
        guard (2...4).contains(words.count) else {
            throw CommandError(
                "compare takes two to four rows or selections, e.g. compare 1 2 or compare s1 s2; usage: \(usage)")
        }
        return try words.map { word throws(CommandError) -> CompareItem in
            let lower = word.lowercased()
            let isSelection = lower.hasPrefix("s")
            let digits =
                isSelection ? String(lower.dropFirst()) : (lower.hasPrefix("#") ? String(lower.dropFirst()) : lower)
            guard digits.count <= 9, let number = Int(digits), number >= 1 else {
                throw CommandError(
                    "'\(SonogramRequest.shown(word))' is not a row (3) or a measured selection (s1); usage: \(usage)")
            }
            return isSelection ? .selection(number) : .row(number)
        }
    }
}

/// `ab <a> <b> [gap]`: two rows or measured selections heard in turn, with `gap` seconds between.
public struct ABRequest: Sendable, Hashable {
    public var sides: [CompareItem]
    public var gap: Double?

    public static let usage = "ab <a> <b> [gap-seconds]: rows (3) or measured selections (s1)"

    public static func parse(_ rest: String) throws(CommandError) -> ABRequest {
        var words = rest.split(whereSeparator: \.isWhitespace).map(String.init)
        var gap: Double?
        if words.count == 3 {
            let text = words.removeLast().lowercased()
            let number = text.hasSuffix("s") ? String(text.dropLast()) : text
            guard number.count <= 6, let seconds = Double(number), seconds.isFinite, (0...10).contains(seconds) else {
                throw CommandError("'\(SonogramRequest.shown(text))' is not a gap of 0-10 seconds; usage: \(usage)")
            }
            gap = seconds
        }
        guard words.count == 2 else {
            throw CommandError("ab takes two rows or selections and maybe a gap, e.g. ab s1 s2 0.5; usage: \(usage)")
        }
        return ABRequest(sides: try CompareItem.parse(words.joined(separator: " ")), gap: gap)
    }
}
