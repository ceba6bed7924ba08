/// Lays out rows of one's own files to the terminal's width: the file's name first (what the user knows a
/// recording by), its length, when it was recorded and where that came from, its sample rate and channels,
/// then the place and the device where the file says them. The name and the place share what is left.
struct FileRowTable {
    private let nameWidth: Int
    private let numberWidth: Int
    /// Nil when there is no room (or nothing to show) for the place and device.
    private let placeWidth: Int?
    private let seconds: Bool

    /// Columns besides the number, the name and the place: length, date and time, its source, kHz, channels.
    private static let lengthWidth = 7
    private static let sourceWidth = 5
    private static let rateWidth = 5
    private static let channelWidth = 2

    init(width: Int, recordings: [Recording], numberWidth: Int) {
        self.numberWidth = numberWidth
        let names = recordings.map { TerminalText.sanitize($0.id).count }.max() ?? 4
        let places = recordings.map { TerminalText.sanitize(Self.place($0)).count }.max() ?? 0
        // Seconds are shown when the files have them and there is room for them.
        let hasSeconds = recordings.contains { $0.time.count > 5 }
        var fixed = numberWidth + Self.lengthWidth + Self.sourceWidth + Self.rateWidth + Self.channelWidth + 2 * 6
        // Seconds only where the name and the place keep a useful width beside them.
        let dateWidth = hasSeconds && width - fixed - 19 >= 44 ? 19 : 16
        seconds = dateWidth == 19
        fixed += dateWidth
        let room = width - fixed
        let name = min(max(names, 4), 40)
        if places > 0, room - min(name, 20) - 2 >= 8 {
            let place = min(max(places, 5), room - min(name, 20) - 2)
            nameWidth = max(4, min(name, room - place - 2))
            placeWidth = room - nameWidth - 2 > 0 ? min(max(places, 5), room - nameWidth - 2) : nil
        } else {
            nameWidth = max(4, min(name, room))
            placeWidth = nil
        }
    }

    /// Place and device, as one column: coordinates where the file gives them, then the device.
    static func place(_ recording: Recording) -> String {
        let coordinates = [recording.latitude, recording.longitude].filter { !$0.isEmpty }.joined(separator: ",")
        return [coordinates, recording.device].filter { !$0.isEmpty }.joined(separator: " ")
    }

    var header: String {
        render(["#", "File", "Len", "Recorded", "from", "kHz", "ch", "Place, device"])
    }

    func line(number: Int, recording: Recording) -> String {
        let header = recording.ownFile?.header
        let rate = header?.sampleRate.map { Self.kilohertz($0) } ?? ""
        let channels = header?.channels.map(String.init) ?? ""
        let time = seconds ? recording.time : String(recording.time.prefix(5))
        let when = [recording.date, time].filter { !$0.isEmpty }.joined(separator: " ")
        return render([
            String(number), TerminalText.sanitize(recording.id), recording.length.isEmpty ? "?" : recording.length,
            when, recording.ownFile?.dateSource?.rawValue ?? "", rate, channels,
            TerminalText.sanitize(Self.place(recording)),
        ])
    }

    /// `48`, `44.1`, `384`, `22.05`.
    static func kilohertz(_ rate: Int) -> String {
        let whole = rate / 1000
        let rest = rate % 1000
        if rest == 0 { return String(whole) }
        var decimals = String(rest)
        decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(whole).\(decimals)"
    }

    private func render(_ values: [String]) -> String {
        let widths: [(Int, Bool)] = [
            (numberWidth, true), (nameWidth, false), (Self.lengthWidth, true), (seconds ? 19 : 16, false),
            (Self.sourceWidth, false), (Self.rateWidth, true), (Self.channelWidth, true), (placeWidth ?? 0, false),
        ]
        let shown = placeWidth == nil ? Array(zip(widths, values).dropLast()) : Array(zip(widths, values))
        return shown.map { column, value in
            let (width, right) = column
            let fitted = value.count > width ? String(value.prefix(max(0, width - 1))) + "…" : value
            let pad = String(repeating: " ", count: max(0, width - fitted.count))
            return right ? pad + fitted : fitted + pad
        }.joined(separator: "  ").trimmingTrailingSpaces()
    }
}
