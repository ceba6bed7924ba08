/// The user's own files: what `open` and `filter` say while they list, the files passed over, `info` of a
/// file (everything its header and metadata say) and the line that starts one.
extension Presenter {
    /// While `open` walks its folders, or `filter` reads the opened files' headers.
    func ownFilesLoading(_ query: SearchQuery) -> String {
        switch query.scope {
        case .open(let paths): return "Opening \(clean(paths.joined(separator: " "))) …"
        case .files, .archive: return "Filtering the opened files: \(clean(query.text)) …"
        }
    }

    /// `filter` found nothing.
    func ownFilesEmpty(_ query: SearchQuery) -> String {
        "None of the opened files match \(clean(query.text)). Words match the path; the tags a file can say are"
            + " year: month: len: smp: dvc: rec: rmk: loc: nr: (list shows the files opened, open lists others)."
    }

    /// One line per file passed over: which file, and why.
    func skippedLines(_ files: [SkippedFile]) -> [String] {
        files.map { file in
            isScript
                ? "skipped: file=\(quote(file.path)) reason=\(quote(file.reason))"
                : wrapped("Skipped \(clean(file.path)): \(clean(file.reason))").map(warn).joined(separator: "\n")
        }
    }

    /// `info` of a file of one's own: its place on disk, its format, when it was recorded (and how that is
    /// known), and every field of its metadata, sanitised.
    func info(_ file: OwnFile, _ recording: Recording, row: Int) -> [String] {
        let header = file.header
        var shape = header.format.rawValue
        if let encoding = header.encoding { shape += ", \(encoding)" }
        let dateNote: String
        switch file.dateSource {
        case .fileName?: dateNote = " (from the file name)"
        case .guano?: dateNote = " (GUANO Timestamp)"
        case .modified?: dateNote = " (the file's last change: the file does not say when it was recorded)"
        case nil: dateNote = ""
        }
        let when = file.recorded?.description ?? ""
        var fields: [(String, String)] = [
            ("file", "\(file.name) (row \(row))"),
            ("path", file.path),
            ("format", shape),
            ("length", length(header)),
            ("recorded", when.isEmpty ? "" : when + dateNote),
            ("sample rate", header.sampleRate.map { "\($0) Hz" } ?? ""),
            ("channels", header.channels.map(String.init) ?? ""),
            ("precision", header.precision.map { "\($0) bits" } ?? ""),
            ("audio", "\(header.audio.length) bytes from byte \(header.audio.offset)"),
        ]
        if case .truncated(let declared) = header.audio.declared {
            fields.append(("truncated", "the header announces \(declared) bytes of audio; what is there is played"))
        }
        if header.format == .flac { fields.append(("seek table", header.hasSeekTable ? "yes" : "no")) }
        if let named = FieldRecorderName.recordedTime(fromFileName: file.name) {
            fields.append(("name's date", named.description))
        }
        // GUANO's Timestamp is the `recorded` line above, with its source.
        let metadata = header.metadata.lines.filter { $0.label != "recorded" }.map { ($0.label, $0.value) }
        let shown = (fields + metadata).filter { !$0.1.isEmpty }
        if isScript {
            return ["info: n=\(row) id=\(quote(recording.label)) own=yes"]
                + shown.dropFirst().map { "info: \($0.0.replacing(" ", with: "-"))=\(quote($0.1))" }
        }
        let labelWidth = shown.map(\.0.count).max() ?? 0
        return shown.map { name, value in
            bold(name.padded(toLength: labelWidth)) + "  " + clean(value)
        }
    }

    /// `1:02:03.5 (3723.5 s)`.
    /// An MP3's length says when it is its bytes over its bitrate (no tag counted its frames).
    private func length(_ header: AudioFileHeader) -> String {
        guard let duration = header.duration else { return "unknown until played" }
        guard header.lengthFromBitrate else { return Self.seconds(duration) }
        let rounded = (duration * 1000).rounded() / 1000
        return "\(Recording.clock(duration)) (\(rounded) s from the bitrate)"
    }

    static func seconds(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return "\(Recording.clock(value)) (\(rounded) s)"
    }

    /// The line when a file of one's own starts: its name and where it is; no licence applies.
    func attribution(_ file: OwnFile, _ recording: Recording) -> [String] {
        if isScript {
            return ["attribution: \(quote(recording.label)) own=yes file=\(quote(file.path))"]
        }
        return wrapped(
            words: ["♪"]
                + clean("\(file.name) · your own recording · \(file.path)").split(separator: " ")
                .map(String.init)
        ).map(dim)
    }
}
