import Testing

@testable import ChirperCore

private let terminal = Presenter(style: .terminal(color: false), width: 80, sourceName: "the test catalog")
private let script = Presenter(style: .script, width: 80, sourceName: "the test catalog")

private func detection(_ english: String, _ confidence: Double) -> Detection {
    Detection(species: Species(scientific: "Genus species", english: english), confidence: confidence)
}

private func segment(_ detections: [Detection]) -> LiveSegment {
    LiveSegment(ticket: PlaybackTicket(1), index: 1, heard: 3, detections: detections)
}

/// `count` samples of the ramp 1, 2, 3… from `from`, so that each sample says where it came from.
private func ramp(from: Int, _ count: Int) -> [Float] { (from..<(from + count)).map(Float.init) }

@Suite("identify on: the segments cut on the recording's grid, and the status row")
struct IdentifyLiveTests {
    @Test("a run cut on the grid: whole segments as they fill, every sample at its own time in its segment")
    func cutsOnTheGrid() {
        var cutter = LiveSegmenter()
        #expect(cutter.start(at: 0).isEmpty)
        #expect(cutter.push(ramp(from: 0, 100_000)).isEmpty)
        let cuts = cutter.push(ramp(from: 100_000, 200_000))
        #expect(cuts.map(\.index) == [0, 1])
        #expect(cuts.map(\.heard) == [144_000, 144_000])
        #expect(cuts[1].samples.first == 144_000 && cuts[1].samples.last == 287_999)
    }

    @Test("a seek into a segment: silence up to where the run starts; too little of it (under 1.5 s) is not cut")
    func seekRealigns() {
        var cutter = LiveSegmenter()
        _ = cutter.start(at: 0)
        _ = cutter.push(ramp(from: 0, 100_000))
        // A seek to 4 s (sample 192,000): what segment 0 had (100,000 samples, over 1.5 s) is cut, padded.
        let ended = cutter.start(at: 192_000)
        #expect(ended.map(\.index) == [0] && ended.first?.heard == 100_000)
        #expect(ended.first?.samples.count == BirdNET.segmentLength && ended.first?.samples.last == 0)
        let cut = cutter.push(ramp(from: 192_000, 100_000))
        #expect(cut.map(\.index) == [1], "segment 1 is 3-6 s, of which 4-6 s was heard")
        #expect(cut.first?.heard == 96_000)
        #expect(cut.first?.samples[47_999] == 0 && cut.first?.samples[48_000] == 192_000)
        // A seek to 8.5 s: segment 2 gets 0.5 s before the run ends, too little to hear.
        _ = cutter.start(at: 408_000)
        _ = cutter.push(ramp(from: 408_000, 24_000))
        #expect(cutter.finish().isEmpty)
    }

    @Test("the status row at 80 columns: best first, as many as fit, names cleaned; listening… before the first")
    func statusRow() {
        #expect(terminal.liveStatus(.listening) == "♪ listening…")
        #expect(
            terminal.liveStatus(.heard(segment([detection("Dunnock", 0.92), detection("Eurasian Wren", 0.41)])))
                == "♪ Dunnock 0.92 · Eurasian Wren 0.41")
        let many = (1...12).map { detection("Long-tailed Bird \($0)", 0.9 - Double($0) / 100) }
        let fitted = terminal.liveStatus(.heard(segment(many)))
        #expect(fitted?.count ?? 99 <= 79 && fitted?.hasSuffix("Long-tailed Bird 3 0.87") == true, "\(fitted ?? "")")
        let long = terminal.liveStatus(.heard(segment([detection(String(repeating: "Wren", count: 30), 0.5)])))
        #expect(long?.count == 79 && long?.hasSuffix("… 0.50") == true, "\(long ?? "")")
        let sneaky = terminal.liveStatus(.heard(segment([detection("Wren\u{1B}[2J", 0.5)])))
        #expect(sneaky?.contains("\u{1B}") == false)
        #expect(terminal.liveStatus(.heard(segment([]))) == "♪ no species heard")
        #expect(script.liveStatus(.listening) == nil)
    }

    @Test("a species not expected where and when the recording was made: dimmed in the row, expected=no in a pipe")
    func placeChecked() {
        let wren = Detection(species: Species(scientific: "Troglodytes troglodytes", english: "Wren"), confidence: 0.9)
        let stray = Detection(
            species: Species(scientific: "Vireo olivaceus", english: "Red-eyed Vireo"), confidence: 0.4)
        let expected = ExpectedSpecies(
            source: .place(RecordingPlace(latitude: 51.5, longitude: -0.1, week: 20)),
            scientificNames: ["Troglodytes troglodytes"])
        let judged = LiveSegment(
            ticket: PlaybackTicket(1), index: 1, heard: 3, detections: [wren, stray], placeCheck: .judged(expected))
        let colour = Presenter(style: .terminal(color: true), width: 80, sourceName: "the test catalog")
        #expect(colour.liveStatus(.heard(judged)) == "♪ Wren 0.90 · \u{1B}[2mRed-eyed Vireo 0.40\u{1B}[0m")
        #expect(
            script.liveHeard(judged, id: "XC1").map { $0.hasSuffix(" expected=no") } == [false, true],
            "the unexpected species is kept and marked, never dropped")
        let unjudged = LiveSegment(
            ticket: PlaybackTicket(1), index: 1, heard: 3, detections: [stray], placeCheck: .unavailable("no model"))
        #expect(script.liveHeard(unjudged, id: "XC1").allSatisfy { !$0.contains("expected=") })
    }

    @Test("a segment heard is a line per species in a pipe, and a JSON object with --json")
    func pipeLine() {
        let lines = script.liveHeard(segment([detection("Dunnock", 0.9124)]), id: "XC34430")
        #expect(
            lines == [#"identify: live XC34430 start=3.0 end=6.0 sci="Genus species" en="Dunnock" confidence=0.912"#])
        let json = JSONLines.object(for: lines[0])
        #expect(json.contains(#""type":"identify","event":"live","id":"XC34430","xc":34430"#), "\(json)")
        #expect(json.contains(#""confidence":0.912"#))
        #expect(terminal.liveHeard(segment([detection("Dunnock", 0.9)]), id: "XC34430").isEmpty)
    }
}
