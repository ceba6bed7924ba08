import Testing

@testable import ChirperCore

private let wren = Species(scientific: "Troglodytes troglodytes", english: "Eurasian Wren")
private let robin = Species(scientific: "Erithacus rubecula", english: "European Robin")

@Suite("identify: the command, the summary per species, and the lines")
struct IdentifyTests {
    @Test("the command names a row, a section, a selection or what plays, with its confidence and overlap")
    func parses() throws {
        #expect(try IdentifyRequest.parse("") == IdentifyRequest(target: .playing))
        #expect(
            try IdentifyRequest.parse("2 0:10-0:40 --overlap 1.5")
                == IdentifyRequest(
                    target: .row(2, TimeSpan(start: 10, end: 40)), options: IdentifyOptions(overlap: 1.5)))
        #expect(
            try IdentifyRequest.parse("--min-confidence 0.5 s3")
                == IdentifyRequest(target: .selection(3), options: IdentifyOptions(minConfidence: 0.5)))
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("1 --overlap 3") }
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("1 --min-confidence 1.5") }
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("1 --sensitivity 1") }
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("s1 0:01-0:02") }
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("wren") }
        #expect(try CommandParser.parse("identify 1") == .identify(IdentifyRequest(target: .row(1, nil))))
    }

    @Test("the summary: each species once, its best confidence, its segments, first and last; best first")
    func summary() {
        let identification = Identification(
            model: "BirdNET 2.4",
            segments: [
                SegmentDetections(start: 0, end: 3, detections: [Detection(species: robin, confidence: 0.3)]),
                SegmentDetections(start: 3, end: 6, detections: []),
                SegmentDetections(
                    start: 6, end: 9,
                    detections: [Detection(species: wren, confidence: 0.8), Detection(species: robin, confidence: 0.6)]),
            ])
        #expect(
            identification.summary.map { "\($0.species.english) \($0.best) \($0.segments) \($0.first) \($0.last)" } == [
                "Eurasian Wren 0.8 1 6.0 6.0", "European Robin 0.6 2 0.0 6.0",
            ])
        #expect(identification.detectionCount == 3)
    }

    @Test("on an 80-column terminal every line fits, names from the model are sanitised, and the licence is said")
    func terminalLines() {
        let presenter = Presenter(style: .terminal(color: false), width: 80, sourceName: "xeno-canto")
        let long = Species(
            scientific: "Pseudopodoces humilis", english: "Ground Tit\u{1B}[2J with a very long name indeed")
        let recording = Recording(
            id: "1", genus: "Parus", species: "major", englishName: "Great Tit", length: "0:09", audio: .restricted)
        let lines = presenter.identification(
            Identification(
                model: "BirdNET 2.4",
                segments: [
                    SegmentDetections(
                        start: 0, end: 3,
                        detections: [
                            Detection(species: long, confidence: 0.5), Detection(species: wren, confidence: 0.4),
                            Detection(species: robin, confidence: 0.3),
                        ])
                ]), of: recording, span: nil)
        #expect(lines.allSatisfy { $0.count < 80 }, "\(lines.filter { $0.count >= 80 })")
        #expect(!lines.joined().contains("\u{1B}"))
        #expect(lines.contains { $0.contains("the recordist's species (Parus major) is not heard") })
        #expect(lines.suffix(2).joined().contains("CC BY-NC-SA 4.0"))
    }

    @Test("in --json each identify line is an object with its kind's fields")
    func json() {
        #expect(
            JSONLines.object(
                for: #"identify: species XC1 sci="Parus major" en="Great Tit" best=0.900 segments=2 first=0.0 last=3.0"#
            )
                == #"{"type":"identify","event":"species","id":"XC1","xc":1,"sci":"Parus major","en":"Great Tit","best":0.900,"segments":2,"first":0.0,"last":3.0}"#
        )
    }
}
