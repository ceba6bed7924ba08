/// A time typed by the user for `seek` and `loop`, before it is checked against the recording.
///
/// Forms: `m:ss` or `h:mm:ss` (each part after the first below 60, seconds may have a fraction, e.g.
/// `1:05.5`), plain seconds (`12`, `12.5`), and steps from the current position (`+5`, `-2.5`).
public enum TimeInput: Sendable, Hashable {
    /// A position in recording time, in seconds from the start.
    case absolute(Double)
    /// A step from the current position, in seconds (negative goes back).
    case relative(Double)

    /// Parses `text`; one clear line for anything else.
    public static func parse(_ text: String) -> Result<TimeInput, TimeInputError> {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let trimmed = String(String(text.drop(while: blank).reversed()).drop(while: blank).reversed())
        guard !trimmed.isEmpty else { return .failure(.unreadable(text)) }
        if let sign = trimmed.first, sign == "+" || sign == "-" {
            guard let seconds = parseSeconds(String(trimmed.dropFirst())) else {
                return .failure(.unreadable(text))
            }
            return .success(.relative(sign == "-" ? -seconds : seconds))
        }
        guard let seconds = parseSeconds(trimmed) else { return .failure(.unreadable(text)) }
        return .success(.absolute(seconds))
    }

    /// The position this input names, given where playback is and how long the recording lasts (if known).
    /// A step back past the start lands on the start; any other time outside the recording is an error.
    public func resolve(current: Double, duration: Double?) -> Result<Double, TimeInputError> {
        let target: Double
        switch self {
        case .absolute(let seconds): target = seconds
        case .relative(let step): target = max(0, current + step)
        }
        if let duration, target >= duration {
            return .failure(.pastEnd(target, duration: duration))
        }
        return .success(target)
    }

    /// `ss`, `ss.s`, `m:ss`, `h:mm:ss`: digits only (no signs, exponents or `nan`), later parts below 60.
    private static func parseSeconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            guard let value = parseNumber(part, allowFraction: isLast) else { return nil }
            if index > 0 && value >= 60 { return nil }
            total = total * 60 + value
        }
        return total.isFinite ? total : nil
    }

    private static func parseNumber(_ part: Substring, allowFraction: Bool) -> Double? {
        guard !part.isEmpty, part.count <= 12 else { return nil }
        var dots = 0
        for character in part {
            if character == "." {
                dots += 1
            } else if !("0"..."9").contains(character) {
                return nil
            }
        }
        guard dots == 0 || (dots == 1 && allowFraction), part != "." else { return nil }
        return Double(part)
    }
}

/// Why a typed time cannot be used: each case is one line telling the user what to type instead.
public enum TimeInputError: Error, Sendable, Hashable {
    /// Not a time at all (garbage, a negative absolute time, an empty argument).
    case unreadable(String)
    /// At or past the end of the recording.
    case pastEnd(Double, duration: Double)
    /// A loop whose end is not after its start.
    case emptyLoop(start: Double, end: Double)

    public var message: String {
        switch self {
        case .unreadable(let text):
            "'\(text.prefix(20))' is not a time: use m:ss, seconds (12.5), or +N/-N seconds from here"
        case .pastEnd(let target, let duration):
            "\(Self.format(target)) is past the end of the recording (\(Self.format(duration))); pick an earlier time"
        case .emptyLoop(let start, let end):
            "the loop end \(Self.format(end)) is not after its start \(Self.format(start)); give a then b, a < b"
        }
    }

    /// `m:ss.s`, the form the user types.
    public static func format(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        let minutes = tenths / 600
        let rest = tenths % 600
        let secondsPart = rest / 10
        return "\(minutes):\(secondsPart < 10 ? "0" : "")\(secondsPart).\(rest % 10)"
    }
}

/// A section of the recording to repeat, `start..<end` in recording time; or, `once`, to play one time and
/// end there (A/B listening).
public struct LoopSection: Sendable, Hashable {
    public var start: Double
    public var end: Double
    /// Play the section once: the track ends at `end` instead of wrapping.
    public var once: Bool
    /// Play only this band of it (a band-pass filter).
    public var band: FrequencyBand?

    public init(start: Double, end: Double, once: Bool = false, band: FrequencyBand? = nil) {
        self.start = start
        self.end = end
        self.once = once
        self.band = band
    }

    /// Resolves `loop a b` against the current position and the duration: both ends inside the recording
    /// (the end may be the recording's end exactly), end after start.
    public static func resolve(
        _ a: TimeInput, _ b: TimeInput, current: Double, duration: Double?
    ) -> Result<LoopSection, TimeInputError> {
        let start: Double
        switch a.resolve(current: current, duration: duration) {
        case .success(let value): start = value
        case .failure(let error): return .failure(error)
        }
        let end: Double
        switch b {
        case .absolute(let value): end = value
        case .relative(let step): end = max(0, current + step)
        }
        if let duration, end > duration { return .failure(.pastEnd(end, duration: duration)) }
        guard end > start else { return .failure(.emptyLoop(start: start, end: end)) }
        return .success(LoopSection(start: start, end: end))
    }
}

extension LoopSection {
    /// The loop's ends as frames at `sampleRate` (start rounded down, end rounded to nearest).
    public func frames(sampleRate: Int) -> Range<Int> {
        let start = Int((start * Double(sampleRate)).rounded(.down))
        let end = max(start + 1, Int((end * Double(sampleRate)).rounded()))
        return start..<end
    }

    /// How much of a decoded chunk to play: `frames` frames starting at recording frame `first`. Returns the
    /// frames to keep (from the chunk's start) and whether the loop end was reached, i.e. the Player plays
    /// the kept part, then seeks to `start` (inside what is held: no request) and drops nothing more, so the
    /// seam is gap-free and exact to the frame on WAV and on MP3 inside the frame index.
    public func cut(first: Int, frames: Int, sampleRate: Int) -> (keep: Int, wrap: Bool) {
        let end = self.frames(sampleRate: sampleRate).upperBound
        if first + frames < end { return (frames, false) }
        return (max(0, end - first), true)
    }
}
