import ChirperCore
import Testing

private let dunnock = Species(scientific: "Prunella modularis", english: "Dunnock")
private let wren = Species(scientific: "Troglodytes troglodytes", english: "Eurasian Wren")

/// Three segments as BirdNET-Analyzer cuts them with a 1.5 s overlap: two species in the first, none in the
/// second, the wren in the third.
private let heard = Identification(
    model: "BirdNET 2.4",
    segments: [
        SegmentDetections(
            start: 0, end: 3,
            detections: [
                Detection(species: dunnock, confidence: 0.98766), Detection(species: wren, confidence: 0.12346),
            ]),
        SegmentDetections(start: 1.5, end: 4.5, detections: []),
        SegmentDetections(start: 3, end: 6, detections: [Detection(species: wren, confidence: 0.5)]),
    ])

/// The line BirdNET-Analyzer's `generate_raven_table` writes for one detection:
/// `f"{id}\tSpectrogram 1\t1\t{start}\t{end}\t{low}\t{high}\t{common}\t{code}\t{confidence:.4f}\t{path}\t{start}\n"`,
/// the times `str(round(t, 1))`, the species code the label when no eBird code is known.
private func analyzerLine(
    _ id: Int, _ start: String, _ end: String, high: String, _ species: Species, _ confidence: String, _ path: String
) -> String {
    "\(id)\tSpectrogram 1\t1\t\(start)\t\(end)\t0\t\(high)\t\(species.english)\t\(species.scientific)_\(species.english)"
        + "\t\(confidence)\t\(path)\t\(start)\n"
}

private let analyzerHeader =
    "Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tCommon Name\tSpecies Code"
    + "\tConfidence\tBegin Path\tFile Offset (s)\n"

@Suite("BirdNET's selection table, as BirdNET-Analyzer writes it for a file")
struct BirdNETSelectionTableTests {
    @Test("a 44.1 kHz file: BirdNET-Analyzer's header, a row per detection, its number formats and 0-15000 Hz")
    func asTheAnalyzerWritesIt() {
        let path = "/field/site 1/dawn.wav"
        let expected =
            analyzerHeader + analyzerLine(1, "0.0", "3.0", high: "15000", dunnock, "0.9877", path)
            + analyzerLine(2, "0.0", "3.0", high: "15000", wren, "0.1235", path)
            + analyzerLine(3, "3.0", "6.0", high: "15000", wren, "0.5000", path)
        #expect(BirdNETSelectionTable.text(heard, path: path, sampleRate: 44_100) == expected)
    }

    @Test("a 22.05 kHz file: the band tops out at its Nyquist frequency, written as a Python float")
    func lowRate() {
        let text = BirdNETSelectionTable.text(heard, path: "a.wav", sampleRate: 22_050)
        #expect(text.split(separator: "\n")[1].split(separator: "\t")[6] == "11025.0")
        #expect(BirdNETSelectionTable.text(heard, path: "a.wav", sampleRate: nil).contains("\t0\t15000\t"))
    }

    @Test("species judged by where and when: BirdNET-Analyzer's columns, then Expected, yes or no for each row")
    func judgedByPlace() {
        var judged = heard
        judged.placeCheck = .judged(
            ExpectedSpecies(
                source: .place(RecordingPlace(latitude: 43.36, longitude: -5.85, week: 14)),
                scientificNames: ["Prunella modularis"]))
        let lines = BirdNETSelectionTable.text(judged, path: "a.wav", sampleRate: 48_000).split(separator: "\n")
        #expect(lines[0] == analyzerHeader.dropLast() + "\tExpected")
        #expect(
            lines.dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false).last } == [
                "yes", "no", "no",
            ])
        #expect(
            lines.dropFirst().allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 13 })
        var unavailable = heard
        unavailable.placeCheck = .unavailable("the location model is damaged")
        #expect(!BirdNETSelectionTable.text(unavailable, path: "a.wav", sampleRate: 48_000).contains("Expected"))
    }

    @Test("nothing heard: BirdNET-Analyzer's one nocall row, so the file counts as analysed when tables merge")
    func nothingHeard() {
        let silent = Identification(
            model: "BirdNET 2.4", segments: [SegmentDetections(start: 0, end: 3, detections: [])])
        #expect(
            BirdNETSelectionTable.text(silent, path: "/x/quiet.flac", sampleRate: 48_000)
                == analyzerHeader + "1\tSpectrogram 1\t1\t0\t3\t0\t15000\tnocall\tnocall\t1.0\t/x/quiet.flac\t0\n")
    }

    @Test("a tab, a newline or an escape sequence in a file's name or a label cannot add a column or a row")
    func hostileText() {
        let odd = Species(scientific: "Genus\tspecies", english: "Bird\nname\u{1B}[31m")
        let one = Identification(
            model: "BirdNET 2.4",
            segments: [SegmentDetections(start: 0, end: 3, detections: [Detection(species: odd, confidence: 0.9)])])
        let text = BirdNETSelectionTable.text(one, path: "/x/a\tb\nc\u{2028}d.wav", sampleRate: 48_000)
        let rows = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.count == 3 && rows[2].isEmpty, "a header, one row, the final newline: \(rows)")
        #expect(rows[1].split(separator: "\t", omittingEmptySubsequences: false).count == 12)
        #expect(!text.contains("\u{1B}") && !text.contains("\u{2028}"))
    }

    @Test("the table's name is BirdNET-Analyzer's: the audio's last extension replaced, its folders kept")
    func names() {
        #expect(BirdNETSelectionTable.fileName(for: "site1/a.wav") == "site1/a.BirdNET.selection.table.txt")
        #expect(BirdNETSelectionTable.fileName(for: "b.2024.flac") == "b.2024.BirdNET.selection.table.txt")
        #expect(BirdNETSelectionTable.fileName(for: "noext") == "noext.BirdNET.selection.table.txt")
    }
}
