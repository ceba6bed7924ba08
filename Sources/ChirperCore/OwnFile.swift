/// A recording of the user's own, opened from disk (`open`, or paths at launch): where it is, what its header
/// says, and where its date and time came from. Carried by the row's `Recording`, whose fields hold what the
/// list, `info` and the matcher read.
public struct OwnFile: Sendable, Hashable {
    /// Where a row's date and time came from, said beside it.
    public enum DateSource: String, Sendable, Hashable {
        /// A field recorder's file name (`20250612_053000.WAV`).
        case fileName = "name"
        /// The file's GUANO `Timestamp`.
        case guano = "GUANO"
        /// The file's last modification, in UTC: nothing in the file says when it was recorded.
        case modified = "mtime"
    }

    /// The absolute path, as the user's folder spells it (shown sanitised, never taken from the file's text).
    public var path: String
    public var header: AudioFileHeader
    public var dateSource: DateSource?
    /// When it was recorded, with the zone where the source gives one.
    public var recorded: RecordedDateTime?

    public init(path: String, header: AudioFileHeader, dateSource: DateSource?, recorded: RecordedDateTime? = nil) {
        self.path = path
        self.header = header
        self.dateSource = dateSource
        self.recorded = recorded
    }

    /// The file's name, the last part of its path.
    public var name: String { PathText.lastComponent(path) }
}

/// A file that `open` passed over, and why, in one line.
public struct SkippedFile: Error, Sendable, Hashable {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

extension Recording {
    /// The row of a file of one's own: its name as the id, its length, date and time, sample rate, place and
    /// device from its header (`FileMetadata`), else the date from the field recorder's name, else `modified`
    /// (seconds since 1970, shown in UTC).
    public init(ownFile path: String, header: AudioFileHeader, modified: Double?) {
        let name = PathText.lastComponent(path)
        var source: OwnFile.DateSource?
        var when: RecordedDateTime?
        if let stamp = header.metadata.guano?.timestamp {
            (source, when) = (.guano, stamp)
        } else if let named = FieldRecorderName.recordedTime(fromFileName: name) {
            (source, when) = (.fileName, named)
        } else if let modified, let time = RecordedDateTime(secondsSince1970: modified) {
            (source, when) = (.modified, time)
        }
        let guano = header.metadata.guano
        let position = guano?.position
        self.init(
            id: name,
            englishName: guano?.speciesManualID ?? "",
            recordist: header.metadata.artist ?? "",
            latitude: position.map { Self.degrees($0.latitude) } ?? "",
            longitude: position.map { Self.degrees($0.longitude) } ?? "",
            altitude: guano?.elevation.map { String(Int($0.rounded())) } ?? "",
            length: header.duration.map(Self.clock) ?? "",
            date: when?.dateText ?? "",
            time: when?.timeText ?? "",
            remarks: header.metadata.comment ?? "",
            sampleRate: header.sampleRate.map(String.init) ?? "",
            device: header.metadata.device ?? "",
            audio: .playable(.local(path: path)),
            ownFile: OwnFile(path: path, header: header, dateSource: source, recorded: when))
    }

    /// Seconds as `m:ss` or `h:mm:ss`, rounded to the second (a file of 0.4 s is `0:00`).
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }

    private static func degrees(_ value: Double) -> String {
        let scaled = (value * 10000).rounded() / 10000
        return String(scaled)
    }
}

extension RecordedDateTime {
    /// The UTC date and time `seconds` after 1970 began.
    public init?(secondsSince1970 seconds: Double) {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return nil }
        let whole = Int(seconds.rounded(.down))
        let days = whole >= 0 ? whole / 86400 : (whole - 86399) / 86400
        let rest = whole - days * 86400
        // Howard Hinnant's days-to-civil.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.init(
            year: year, month: month, day: day, hour: rest / 3600, minute: rest / 60 % 60, second: rest % 60,
            utcOffsetMinutes: 0)
    }
}
