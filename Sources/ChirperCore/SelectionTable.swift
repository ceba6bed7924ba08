/// One measured selection of the session: what was measured (its section and band are the measurement's),
/// of which recording.
public struct MeasuredSelection: Sendable, Hashable {
    /// 1, 2, … in the order measured.
    public var number: Int
    public var recording: Recording
    public var measurement: SelectionMeasurement
    /// What the selection holds, when it came from a detection: the species' name.
    public var name: String?

    public init(number: Int, recording: Recording, measurement: SelectionMeasurement, name: String? = nil) {
        self.number = number
        self.recording = recording
        self.measurement = measurement
        self.name = name
    }

    /// The recording's label (`XC254462`).
    public var label: String { recording.label }
    /// Its file's name as xeno-canto names it, else the label.
    public var file: String { recording.fileName.isEmpty ? recording.label : recording.fileName }
    /// The band measured.
    public var band: FrequencyBand { FrequencyBand(low: measurement.low, high: measurement.high) }
    public var span: TimeSpan { TimeSpan(start: measurement.begin, end: measurement.end) }
}

/// The session's measurements as a Raven selection table: tab-separated, Raven's column names and units,
/// so that Raven, Rraven and warbleR's `imp_raven` read it.
public enum RavenSelectionTable {
    public static let columns = [
        "Selection", "View", "Channel", "Begin Time (s)", "End Time (s)", "Low Freq (Hz)", "High Freq (Hz)",
        "Peak Freq (Hz)", "Peak Time (s)", "Center Freq (Hz)", "Freq 5% (Hz)", "Freq 25% (Hz)", "Freq 75% (Hz)",
        "Freq 95% (Hz)", "BW 90% (Hz)", "BW 50% (Hz)", "Time 5% (s)", "Time 95% (s)", "Dur 90% (s)",
        "Avg Entropy (bits)", "PFC Avg Slope (Hz/ms)", "PFC Num Inf Pts", "Begin File", "XC",
    ]

    /// Raven's free-text column: the species of a selection made from a detection.
    public static let annotationColumn = "Annotation"

    /// The table's text: a header line and a line per selection, each ending in a newline. When a row is
    /// named (made from a detection) the table ends in an `Annotation` column, as Raven's own tables do.
    public static func text(_ rows: [MeasuredSelection]) -> String {
        let named = rows.contains { $0.name != nil }
        var text = (columns + (named ? [annotationColumn] : [])).joined(separator: "\t") + "\n"
        for row in rows {
            text += (values(row) + (named ? [field(row.name ?? "")] : [])).joined(separator: "\t") + "\n"
        }
        return text
    }

    /// One row's values, in the columns' order; text from the API made safe for a tab-separated file.
    public static func values(_ row: MeasuredSelection) -> [String] {
        let m = row.measurement
        func hz(_ value: Double) -> String { fixed(value, 1) }
        func s(_ value: Double) -> String { fixed(value, 6) }
        return [
            String(row.number), "Spectrogram 1", "1", s(m.begin), s(m.end), hz(m.low), hz(m.high), hz(m.peakFrequency),
            s(m.peakTime), hz(m.centerFrequency), hz(m.frequency5), hz(m.frequency25), hz(m.frequency75),
            hz(m.frequency95), hz(m.bandwidth90), hz(m.bandwidth50), s(m.time5), s(m.time95), s(m.duration90),
            fixed(m.averageEntropy, 3), fixed(m.contourSlope, 3), String(m.contourInflections), field(row.file),
            field(row.label),
        ]
    }

    /// `value` with `places` decimals (no locale, no exponent).
    static func fixed(_ value: Double, _ places: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled) - whole * Int(scale)
        let digits = String(fraction)
        let padded = String(repeating: "0", count: max(0, places - digits.count)) + digits
        return (value < 0 && scaled > 0 ? "-" : "") + String(whole) + (places > 0 ? "." + padded : "")
    }

    private static func field(_ text: String) -> String {
        String(TerminalText.sanitize(text).map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
