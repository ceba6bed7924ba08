/// What `identify` heard, as the Raven selection table BirdNET-Analyzer writes for a file
/// (`<name>.BirdNET.selection.table.txt`): its header, its columns in its order, its number formats, so that
/// Raven opens it and the tools that merge BirdNET-Analyzer's tables read it as one of theirs.
///
/// A selection per detection, segment by segment, the most confident first within a segment; every selection
/// spans the whole band BirdNET listens to (0 Hz to its bandpass top, or the file's Nyquist frequency when
/// lower). A file where nothing is heard gets BirdNET-Analyzer's one `nocall` row, which says the file was
/// analysed when tables are merged by file.
///
/// Where the species were judged by where and when the recording was made (`PlaceCheck.judged`), a last column,
/// `Expected`, says `yes` or `no` for each: BirdNET-Analyzer leaves the unexpected out of its table, chirper-play
/// keeps and marks them, after the columns that tools read by name.
public enum BirdNETSelectionTable {
    public static let columns = [
        "Selection", "View", "Channel", "Begin Time (s)", "End Time (s)", "Low Freq (Hz)", "High Freq (Hz)",
        "Common Name", "Species Code", "Confidence", "Begin Path", "File Offset (s)",
    ]

    /// BirdNET-Analyzer's file name for the table of `audio` (a path relative to the folder analysed):
    /// its last extension replaced.
    public static func fileName(for audio: String) -> String {
        let slash = audio.lastIndex(of: "/")
        let name = slash.map { audio[audio.index(after: $0)...] } ?? audio[...]
        let stem = name.lastIndex(of: ".").map { name[..<$0] } ?? name
        let folder = slash.map { String(audio[...$0]) } ?? ""
        return folder + stem + ".BirdNET.selection.table.txt"
    }

    /// The top of BirdNET's bandpass, and so of every selection's band.
    public static let bandTop = 15_000

    /// The table's text: its header and a line per selection, each ending in a newline. `path` is what Raven
    /// opens (the file's path); `sampleRate` is the file's own (nil: taken to be above 30 kHz).
    public static func text(_ identification: Identification, path: String, sampleRate: Int?) -> String {
        var judged: ExpectedSpecies?
        if case .judged(let expected) = identification.placeCheck { judged = expected }
        var lines = [(columns + (judged == nil ? [] : ["Expected"])).joined(separator: "\t")]
        let high = highFrequency(sampleRate: sampleRate)
        let begin = field(path)
        for segment in identification.segments.sorted(by: { $0.start < $1.start }) {
            let start = seconds(segment.start)
            for detection in segment.detections {
                let expected = judged.map { [$0.expects(detection.species) ? "yes" : "no"] } ?? []
                lines.append(
                    ([
                        String(lines.count), "Spectrogram 1", "1", start, seconds(segment.end), "0", high,
                        field(detection.species.english),
                        field("\(detection.species.scientific)_\(detection.species.english)"),
                        RavenSelectionTable.fixed(detection.confidence, 4), begin, start,
                    ] + expected).joined(separator: "\t"))
            }
        }
        if lines.count == 1 {
            lines.append(
                (["1", "Spectrogram 1", "1", "0", "3", "0", high, "nocall", "nocall", "1.0", begin, "0"]
                    + (judged == nil ? [] : [""])).joined(separator: "\t"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The selections' top: the bandpass's, else half the file's rate written as BirdNET-Analyzer's Python
    /// writes a float (`11025.0`).
    static func highFrequency(sampleRate: Int?) -> String {
        guard let sampleRate, sampleRate > 0, Double(sampleRate) / 2 <= Double(bandTop) else {
            return String(bandTop)
        }
        return RavenSelectionTable.fixed(Double(sampleRate) / 2, 1)
    }

    /// A time as BirdNET-Analyzer writes it: rounded to tenths, written as Python writes such a float (`4.5`).
    static func seconds(_ value: Double) -> String { RavenSelectionTable.fixed(value, 1) }

    /// Text from a file's path or a label, kept to one field of one line: escape sequences and control
    /// characters go, tabs and line ends (Unicode's too) become spaces.
    static func field(_ text: String) -> String {
        String(TerminalText.sanitize(text).map { $0 == "\u{2028}" || $0 == "\u{2029}" ? " " : $0 })
    }
}
