/// The date and time field recorders write into their file names: AudioMoth's `20250612_053000.WAV`, a Song
/// Meter's `S4A12345_20250612_053000.wav`, any `PREFIX_20250612_053000.wav`, with or without the seconds
/// (`20250612_0530.wav`), `T` or `-` also accepted between date and time, and a suffix after the time
/// (AudioMoth's `T` for a triggered recording, `_1`) allowed.
///
/// The name is only read, never used to build a path. The zone is not in the name (AudioMoth writes UTC unless
/// told otherwise, other recorders local time), so the result carries none.
public enum FieldRecorderName {
    /// The date and time in `name` (a file name, or a path whose last component is read); nil when the name holds
    /// none, or only an impossible one (`20251332_250000`).
    public static func recordedTime(fromFileName name: String) -> RecordedDateTime? {
        let file = PathText.lastComponent(name)
        let bytes = Array(PathText.removingExtension(file).utf8.prefix(256))
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]) else {
                index += 1
                continue
            }
            let run = digitRun(bytes, from: index)
            defer { index = run.upperBound }
            let startsToken =
                index == 0 || bytes[index - 1] == UInt8(ascii: "_") || bytes[index - 1] == UInt8(ascii: "-")
            guard startsToken, run.count == 8, run.upperBound < bytes.count,
                [UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "T")].contains(bytes[run.upperBound]),
                run.upperBound + 1 < bytes.count, isDigit(bytes[run.upperBound + 1])
            else { continue }
            let time = digitRun(bytes, from: run.upperBound + 1)
            guard time.count == 4 || time.count == 6 else { continue }
            let value = { (range: Range<Int>) in bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
            let date = run.lowerBound
            let clock = time.lowerBound
            if let found = RecordedDateTime(
                year: value(date..<date + 4), month: value(date + 4..<date + 6), day: value(date + 6..<date + 8),
                hour: value(clock..<clock + 2), minute: value(clock + 2..<clock + 4),
                second: time.count == 6 ? value(clock + 4..<clock + 6) : nil)
            {
                return found
            }
        }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func digitRun(_ bytes: [UInt8], from start: Int) -> Range<Int> {
        var end = start
        while end < bytes.count, isDigit(bytes[end]) { end += 1 }
        return start..<end
    }
}
