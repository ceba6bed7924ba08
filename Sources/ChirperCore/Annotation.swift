/// One box of v3's `annotation-set`: a stretch of time and a band of frequency, with the species and sound
/// type heard there. xeno-canto documents no field names for it (real replies so far carry empty sets), so the
/// box keeps every scalar field as sent and reads the usual names for each part; what it cannot read, it
/// shows as `key=value`. All text comes from the API: sanitise before printing.
public struct Annotation: Sendable, Hashable {
    /// The scalar fields as sent (kept whole, so a sidecar writes them back unchanged).
    public var fields: [String: String]

    public init(fields: [String: String]) {
        self.fields = fields
    }

    private func first(_ names: [String]) -> String? {
        for name in names {
            if let value = fields[name], !value.isEmpty { return value }
        }
        return nil
    }

    private static let startKeys = ["start", "start-time", "start_time", "startTime", "begin", "t_start", "from"]
    private static let endKeys = ["end", "end-time", "end_time", "endTime", "stop", "t_end", "to"]
    private static let lowKeys = [
        "freq-low", "freq_low", "low-freq", "low_freq", "low_frequency", "lowFreq", "fmin", "low",
    ]
    private static let highKeys = [
        "freq-high", "freq_high", "high-freq", "high_freq", "high_frequency", "highFreq", "fmax", "high",
    ]
    private static let speciesKeys = [
        "species", "sp", "scientific-name", "scientific_name", "sci", "name", "en", "taxon", "label",
    ]
    private static let typeKeys = ["sound-type", "sound_type", "soundType", "type", "vocalisation", "vocalization"]

    /// The box's time span in seconds, when both ends are numbers and the end is after the start.
    public var span: (start: Double, end: Double)? {
        guard let start = first(Self.startKeys).flatMap(Double.init),
            let end = first(Self.endKeys).flatMap(Double.init), start >= 0, end > start
        else { return nil }
        return (start, end)
    }

    /// The box's band in Hz, when both ends are numbers and the high end is above the low one.
    public var band: FrequencyBand? {
        guard let low = first(Self.lowKeys).flatMap(Double.init),
            let high = first(Self.highKeys).flatMap(Double.init), low >= 0, high > low
        else { return nil }
        return FrequencyBand(low: low, high: high)
    }

    /// e.g. `1.2-2.5 s · 2000-5400 Hz · Turdus merula · song`, then any other fields as `key=value`.
    public var summary: String {
        var parts: [String] = []
        let start = first(Self.startKeys)
        let end = first(Self.endKeys)
        if start != nil || end != nil { parts.append("\(start ?? "?")-\(end ?? "?") s") }
        let low = first(Self.lowKeys)
        let high = first(Self.highKeys)
        if low != nil || high != nil { parts.append("\(low ?? "?")-\(high ?? "?") Hz") }
        if let species = first(Self.speciesKeys) { parts.append(species) }
        if let type = first(Self.typeKeys) { parts.append(type) }
        let known = Set(
            Self.startKeys + Self.endKeys + Self.lowKeys + Self.highKeys + Self.speciesKeys + Self.typeKeys)
        let others = fields.keys.filter { !known.contains($0) }.sorted().prefix(8).map { "\($0)=\(fields[$0] ?? "")" }
        return (parts + others).joined(separator: " · ")
    }
}
