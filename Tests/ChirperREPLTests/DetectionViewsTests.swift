import ChirperCatalog
import ChirperCore
import Testing

@testable import ChirperREPL

private let terminal = Presenter(style: .terminal(color: false), width: 80, sourceName: "the test catalog")
private let script = Presenter(style: .script, width: 100, sourceName: "the test catalog")

private let wrenSpecies = Species(scientific: "Troglodytes troglodytes", english: "Eurasian Wren")
private let robinSpecies = Species(scientific: "Erithacus rubecula", english: "European Robin")

/// The wren in the first two segments, a robin in the second; nothing in the third.
let detectionFixture = Identification(
    model: "BirdNET 2.4",
    segments: [
        SegmentDetections(start: 0, end: 3, detections: [Detection(species: wrenSpecies, confidence: 0.91)]),
        SegmentDetections(
            start: 3, end: 6,
            detections: [
                Detection(species: wrenSpecies, confidence: 0.97), Detection(species: robinSpecies, confidence: 0.42),
            ]),
        SegmentDetections(start: 6, end: 9, detections: []),
    ])

private func printed(_ actions: [SessionMachine.Action]) -> [String] {
    actions.flatMap { action -> [String] in
        if case .print(let lines) = action { lines } else { [] }
    }
}

/// `machine` identified row 1 (the wren) and was told `identification`.
private func identified(_ machine: inout SessionMachine, _ identification: Identification = detectionFixture) {
    let asked = machine.handle(.typed("identify 1", columns: 80))
    guard let id = asked.compactMap({ if case .identify(let id, _) = $0 { id } else { nil } }).first else {
        Issue.record("expected an identification to start, got \(asked)")
        return
    }
    _ = machine.handle(.identified(id: id, .success(identification)))
}

/// A silent picture of `shape` over 12 s.
private func silent(_ shape: SonogramShape, duration: Double = 12) -> Sonogram {
    Sonogram(
        rows: shape.rows, columns: shape.columns, levels: [Float](repeating: 0, count: shape.rows * shape.columns),
        maxFrequency: shape.maxFrequency ?? 12_000, minFrequency: shape.minFrequency, duration: duration,
        sampleRate: 44_100)
}

@Suite("The last identification in sono's pictures")
struct SonoDetectionTests {
    @Test("on an 80-column terminal, sono of the identified row marks each species' segments under the time axis")
    func halfBlockMarks() throws {
        var machine = listedSession(terminal)
        identified(&machine)
        let actions = machine.handle(.typed("sono 1", columns: 80))
        guard case .drawSonogram(let id, _, let shape) = actions.first else {
            Issue.record("expected a sonogram to compute, got \(actions)")
            return
        }
        #expect(shape.columns == 72)
        let lines = printed(machine.handle(.sonogram(id: id, .success(silent(shape)))))
        // Without colour, dim lines are plain. 72 columns over 12 s: six a second. The wren is heard 0-6 s, the robin 3-6 s; then the legend.
        #expect(
            Array(lines.suffix(3)) == [
                "     A " + String(repeating: "━", count: 36),
                "     B " + String(repeating: " ", count: 18) + String(repeating: "━", count: 18),
                "heard: A Eurasian Wren 0.97, B European Robin 0.42",
            ])
        #expect(lines.allSatisfy { TerminalText.sanitize($0).count <= 80 })
    }

    @Test("sono of another row, or of a window the segments miss, draws no detections")
    func otherRecording() throws {
        var machine = listedSession(terminal)
        identified(&machine)
        guard case .drawSonogram(let id, _, let shape) = machine.handle(.typed("sono 2", columns: 80)).first else {
            Issue.record("expected a sonogram to compute")
            return
        }
        let lines = printed(machine.handle(.sonogram(id: id, .success(silent(shape)))))
        #expect(!lines.contains { $0.contains("heard:") || $0.contains("━") })
        guard
            case .drawSonogram(let later, _, let windowed) = machine.handle(.typed("sono 1 0:09-0:12", columns: 80))
                .first
        else {
            Issue.record("expected a sonogram to compute")
            return
        }
        var picture = silent(windowed, duration: 3)
        picture.startTime = 9
        let windowLines = printed(machine.handle(.sonogram(id: later, .success(picture))))
        #expect(!windowLines.contains { $0.contains("heard:") || $0.contains("━") })
    }

    @Test("in a pipe, each detection in the window is a sono: detection line, which --json reads as fields")
    func scriptLines() throws {
        var machine = listedSession(script)
        identified(&machine)
        guard case .drawSonogram(let id, _, let shape) = machine.handle(.typed("sono 1", columns: 100)).first else {
            Issue.record("expected a sonogram to compute")
            return
        }
        let lines = printed(machine.handle(.sonogram(id: id, .success(silent(shape)))))
        let detections = lines.filter { $0.hasPrefix("sono: detection") }
        #expect(
            detections == [
                #"sono: detection begin=0.000 end=3.000 sci="Troglodytes troglodytes" en="Eurasian Wren" confidence=0.910"#,
                #"sono: detection begin=3.000 end=6.000 sci="Troglodytes troglodytes" en="Eurasian Wren" confidence=0.970"#,
                #"sono: detection begin=3.000 end=6.000 sci="Erithacus rubecula" en="European Robin" confidence=0.420"#,
            ])
        let json = JSONLines.object(for: detections[2])
        #expect(json.contains(#""part":"detection""#) && json.contains(#""en":"European Robin""#))
    }

    @Test("a species identify judged not expected there and then is marked in sono's legend and its pipe lines too")
    func unexpectedMarked() throws {
        var judged = detectionFixture
        let place = RecordingPlace(latitude: 51.5, longitude: -0.1, week: 20)
        judged.placeCheck = .judged(
            ExpectedSpecies(source: .place(place), scientificNames: ["Troglodytes troglodytes"]))
        var onTerminal = listedSession(terminal)
        identified(&onTerminal, judged)
        guard case .drawSonogram(let id, _, let shape) = onTerminal.handle(.typed("sono 1", columns: 80)).first else {
            Issue.record("expected a sonogram to compute")
            return
        }
        let lines = printed(onTerminal.handle(.sonogram(id: id, .success(silent(shape)))))
        #expect(lines.last == "heard: A Eurasian Wren 0.97, B European Robin 0.42 (not expected there)", "\(lines)")

        var inPipe = listedSession(script)
        identified(&inPipe, judged)
        guard case .drawSonogram(let later, _, let piped) = inPipe.handle(.typed("sono 1", columns: 100)).first else {
            Issue.record("expected a sonogram to compute")
            return
        }
        let detections = printed(inPipe.handle(.sonogram(id: later, .success(silent(piped))))).filter {
            $0.hasPrefix("sono: detection")
        }
        #expect(detections.filter { $0.hasSuffix(" expected=no") }.count == 1, "\(detections)")
        #expect(
            detections.last?.contains("European Robin") == true && detections.last?.hasSuffix("expected=no") == true)
    }

    @Test("on a sixel terminal the picture and its PNG carry the detection boxes")
    func pixels() throws {
        let sixel = TerminalGraphicsSupport(sixel: true, cellWidth: 10, cellHeight: 20, answered: true)
        var machine = listedSession(terminal, terminal: sixel)
        identified(&machine)
        let actions = machine.handle(.typed("sono 1 --png ~/wren.png", columns: 80))
        guard case .drawSonogram(let id, _, let shape) = actions.first else {
            Issue.record("expected a sonogram to compute, got \(actions)")
            return
        }
        let picture = silent(shape)
        let boxed = SonogramRaster.image(picture, heard: detectionFixture.segments)
        #expect(boxed != SonogramRaster.image(picture))
        let shown = machine.handle(.sonogram(id: id, .success(picture)))
        #expect(shown.contains { if case .showPicture(_, boxed, _) = $0 { true } else { false } })
        #expect(shown.contains(.request(.writePNG(boxed, path: "/home/birder/wren.png"))))
    }
}

/// Any measurement will do: the figures are the player's.
private func measured(_ begin: Double, _ end: Double) -> SelectionMeasurement {
    SelectionMeasurement(
        begin: begin, end: end, low: 0, high: 15_000, peakFrequency: 4048, peakTime: begin + 1, frequency5: 3962,
        frequency25: 4005, centerFrequency: 4048, frequency75: 4091, frequency95: 4134, time5: begin + 0.1,
        time95: end - 0.1, averageEntropy: 2.5, contourSlope: 0, contourInflections: 0, fftSize: 512, hop: 256,
        sampleRate: 44_100)
}

private func measureActions(_ actions: [SessionMachine.Action]) -> [SessionMachine.Action] {
    actions.filter { if case .measure = $0 { true } else { false } }
}

@Suite("measure detections: the selection table filled from the last identification")
struct MeasureDetectionTests {
    @Test("each species is measured over its most confident segment, 0-15 kHz, and its row is named by it")
    func rowsFromDetections() {
        var machine = listedSession(script)
        identified(&machine)
        let band = SonogramRaster.classifierBand
        let started = machine.handle(.typed("measure detections", columns: 100))
        // The wren is surest in 3-6 s (0.97), the robin heard only there.
        #expect(measureActions(started) == [.measure(id: 2, .of(Fixture.wren), TimeSpan(start: 3, end: 6), band)])
        #expect(machine.handle(.typed("measure list", columns: 100)) == [], "the next line waits for every row")
        let first = machine.handle(.measured(id: 2, .success(measured(3, 6))))
        let wren = MeasuredSelection(
            number: 1, recording: Fixture.wren, measurement: measured(3, 6), name: "Eurasian Wren")
        #expect(first.contains(.print(script.measurement(wren, title: Fixture.wren.title))))
        #expect(measureActions(first) == [.measure(id: 3, .of(Fixture.wren), TimeSpan(start: 3, end: 6), band)])
        #expect(!printed(first).contains { $0.hasPrefix("measure: Selection") || $0.contains("selection=") })
        let second = machine.handle(.measured(id: 3, .success(measured(3, 6))))
        let robin = MeasuredSelection(
            number: 2, recording: Fixture.wren, measurement: measured(3, 6), name: "European Robin")
        #expect(second.contains(.print(script.measurement(robin, title: Fixture.wren.title))))
        #expect(second.contains(.print(script.selectionTable([wren, robin]))), "the held measure list ran")
        #expect(printed(second).last?.hasSuffix(#"annotation="European Robin""#) == true)
        let table = RavenSelectionTable.text([wren, robin]).split(separator: "\n")
        #expect(table[0].hasSuffix("\tXC\tAnnotation") && table[2].hasSuffix("\tEuropean Robin"))
        #expect(script.measurement(robin, title: nil)[0].contains(#"name="European Robin""#))
    }

    @Test("on a terminal the table names each row's species in a last column")
    func terminalTable() {
        let wren = MeasuredSelection(
            number: 1, recording: Fixture.wren, measurement: measured(3, 6), name: "Eurasian Wren")
        let plain = MeasuredSelection(number: 2, recording: Fixture.wren, measurement: measured(1, 2))
        let lines = terminal.selectionTable([wren, plain])
        #expect(lines[0].contains("dur 90 %  species"))
        #expect(lines[1].hasSuffix("  Eurasian Wren") && !lines[2].hasSuffix(" "))
        #expect(!terminal.selectionTable([plain])[0].contains("species"), "no detections, no species column")
    }

    @Test("measure detections with nothing identified, or nothing heard, says why in one line; Ctrl-C stops the rest")
    func refusals() {
        var machine = listedSession(script)
        #expect(
            printed(machine.handle(.typed("measure detections", columns: 100))) == [
                script.refusal(
                    "nothing identified yet: identify a row first (e.g. identify 1), then measure detections")
            ])
        identified(&machine, Identification(model: "BirdNET 2.4", segments: [detectionFixture.segments[2]]))
        #expect(
            printed(machine.handle(.typed("measure detections", columns: 100))) == [
                script.refusal(
                    "the last identify heard nothing at or above its minimum confidence: nothing to measure"
                        + " (identify again with a lower --min-confidence)")
            ])
        identified(&machine)
        let started = machine.handle(.typed("measure detections", columns: 100))
        guard case .measure(let id, _, _, _)? = measureActions(started).first else {
            Issue.record("expected a measurement to start, got \(started)")
            return
        }
        #expect(machine.handle(.interrupt).contains(.cancelMeasure))
        let stopped = machine.handle(.measured(id: id, .failure(.stopped)))
        #expect(printed(stopped).first == script.refusal("measure stopped (1 more not measured)"))
        #expect(measureActions(stopped).isEmpty)
    }
}

@Suite("Unexpected species in sono's pixels")
struct SonoPixelExpectationTests {
    @Test("the label of a species judged not expected is grey, where an expected one's is orange")
    func greyLabel() {
        let shape = SonogramShape(columns: 300, rows: 120)
        let picture = silent(shape)
        var unexpected = detectionFixture.segments
        unexpected[0].detections[0].expected = false
        let colours = { (image: RasterImage) -> Set<[UInt8]> in
            Set(stride(from: 0, to: image.rgba.count, by: 4).map { Array(image.rgba[$0..<$0 + 3]) })
        }
        let expectedOnly = colours(SonogramRaster.image(picture, heard: detectionFixture.segments))
        let marked = colours(SonogramRaster.image(picture, heard: unexpected))
        #expect(!expectedOnly.contains([128, 128, 128]))
        #expect(marked.contains([128, 128, 128]), "the first segment's wren label is drawn grey")
    }
}
