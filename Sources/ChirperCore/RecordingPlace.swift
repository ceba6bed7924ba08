/// Where and when a recording was made, as BirdNET's location/week meta-model takes it: latitude and longitude in
/// degrees, and BirdNET's week of the year.
public struct RecordingPlace: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// BirdNET's week, 1 to 48 (four to a month); nil when the date is unknown, for the species of the whole
    /// year (the meta-model's week −1).
    public var week: Int?

    public init(latitude: Double, longitude: Double, week: Int?) {
        self.latitude = latitude
        self.longitude = longitude
        self.week = week
    }

    /// The place of `recording`: an archive row's `lat`, `lon` and `date`, or an own file's GUANO `Loc Position`
    /// with the date of its GUANO `Timestamp` or its field recorder's name. nil without a usable latitude and
    /// longitude. A file's modification time is not when it was recorded, so it gives no week.
    public init?(recording: Recording) {
        guard let latitude = Self.degrees(recording.latitude, limit: 90),
            let longitude = Self.degrees(recording.longitude, limit: 180)
        else { return nil }
        let dated = recording.ownFile.map { $0.dateSource != .modified } ?? true
        self.init(
            latitude: latitude, longitude: longitude, week: dated ? Self.week(dateText: recording.date) : nil)
    }

    /// The meta-model's input row: latitude, longitude, week (−1 for the whole year).
    public var modelInput: [Float] { [Float(latitude), Float(longitude), Float(week ?? -1)] }

    /// BirdNET's week of a date: the day of the year as a share of 48, rounded up, as birdnetlib computes it
    /// from a date for the meta-model.
    public static func week(year: Int, month: Int, day: Int) -> Int {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let before = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334][month - 1]
        let dayOfYear = before + day + (leap && month > 2 ? 1 : 0)
        let days = leap ? 366 : 365
        return max(1, min(48, (dayOfYear * 48 + days - 1) / days))
    }

    /// The week of an archive date `YYYY-MM-DD`. A day the archive gives as `00` is taken as the month's 15th:
    /// its week is then at most two off, where no week at all would let a summer visitor pass in winter. nil for
    /// an unknown month or a date that is not one.
    static func week(dateText: String) -> Int? {
        let parts = dateText.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            year > 0, (1...12).contains(month), (0...31).contains(day)
        else { return nil }
        return week(year: year, month: month, day: day == 0 ? 15 : day)
    }

    private static func degrees(_ text: String, limit: Double) -> Double? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 1, let value = Double(words[0]), value.isFinite, abs(value) <= limit else { return nil }
        return value
    }
}
