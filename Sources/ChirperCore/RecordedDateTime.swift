/// When a recording of one's own began, as its file says it (a GUANO `Timestamp`, a field recorder's file name):
/// a calendar date and a time of day, checked to exist, with the offset from UTC where the file gives one.
public struct RecordedDateTime: Sendable, Hashable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    /// Nil where the source names only hours and minutes.
    public let second: Int?
    /// Minutes east of UTC (`Z` is 0); nil where the source does not say (local time, or unknown).
    public let utcOffsetMinutes: Int?

    /// Nil for a date or time that cannot exist (13th month, 30 February, 24:00, 61 seconds) or a year outside
    /// 1900–2199 (a recorder whose clock was never set writes such years, and no recording was made then).
    public init?(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int? = nil, utcOffsetMinutes: Int? = nil
    ) {
        guard (1900...2199).contains(year), (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day), (0...23).contains(hour),
            (0...59).contains(minute)
        else { return nil }
        // A leap second (:60) is real in UTC; recorders never write it, but a file may.
        if let second, !(0...60).contains(second) { return nil }
        if let offset = utcOffsetMinutes, !(-18 * 60...18 * 60).contains(offset) { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    /// `2025-06-12`.
    public var dateText: String { "\(Self.digits(year, 4))-\(Self.digits(month, 2))-\(Self.digits(day, 2))" }

    /// `05:30:00`, or `05:30` where the source gave no seconds.
    public var timeText: String {
        "\(Self.digits(hour, 2)):\(Self.digits(minute, 2))" + (second.map { ":\(Self.digits($0, 2))" } ?? "")
    }

    /// `UTC`, `UTC+04:00`, `UTC-07:30`; nil where the zone is unknown.
    public var zoneText: String? {
        guard let offset = utcOffsetMinutes else { return nil }
        if offset == 0 { return "UTC" }
        let size = abs(offset)
        return "UTC\(offset < 0 ? "-" : "+")\(Self.digits(size / 60, 2)):\(Self.digits(size % 60, 2))"
    }

    /// `2025-06-12 05:30:00 UTC+04:00` (the zone only where known).
    public var description: String { "\(dateText) \(timeText)" + (zoneText.map { " \($0)" } ?? "") }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
