import ChirperCore
import Testing

@Suite("Sonogram rendering")
struct SonogramRendererTests {
    /// 2 rows × 4 columns, 0–8 kHz over 2 s: the bottom row rises from silence to full, the top row falls.
    let tiny = Sonogram(
        rows: 2, columns: 4, levels: [0, 0.25, 0.5, 1, 1, 0.75, 0, 0], maxFrequency: 8000, duration: 2,
        sampleRate: 16000)

    @Test("Pipe form: a header with the axes, then one shade line per row, highest frequency first")
    func scriptLines() {
        #expect(
            SonogramRenderer.scriptLines(tiny, label: "XC1") == [
                "sono: XC1 0-8.0kHz 0.0-2.0s cols=4 rows=2",
                "sono: █▓  ",
                "sono:  ░▒█",
            ])
    }

    @Test("A label from the API is sanitised and cannot break the header's fields")
    func labelSanitised() {
        let header = SonogramRenderer.scriptLines(tiny, label: "XC 1\u{1B}[31m").first
        #expect(header == "sono: XC_1 0-8.0kHz 0.0-2.0s cols=4 rows=2")
    }

    @Test("Shade terminal form: kHz ticks on the left, the time axis and seconds below")
    func shadeTerminal() {
        #expect(
            SonogramRenderer(mode: .shade).terminalLines(tiny) == [
                "      │█▓  ",
                "  0.0k┤ ░▒█",
                "      └┬───",
                "       0s",
            ])
    }

    @Test("Seconds ticks fall every round step at least 10 columns apart, labels never overlap")
    func secondsTicks() {
        let wide = Sonogram(
            rows: 1, columns: 60, levels: Array(repeating: 0, count: 60), maxFrequency: 4000, duration: 30,
            sampleRate: 8000)
        let lines = SonogramRenderer(mode: .shade).terminalLines(wide)
        let axis = String(repeating: "┬" + String(repeating: "─", count: 9), count: 6)
        #expect(lines[1] == "      └" + axis)
        #expect(lines[2] == "       0s        5s        10s       15s       20s       25s")
    }

    @Test("24-bit colour: upper half-blocks, top pixel as foreground, bottom as background, loud is dark")
    func trueColour() {
        let line = SonogramRenderer(mode: .trueColor).terminalLines(tiny)[0]
        #expect(line.hasPrefix("  0.0k┤\u{1B}[38;2;0;0;0m\u{1B}[48;2;255;255;255m▀"))
        #expect(line.hasSuffix("\u{1B}[0m"))
        #expect(line.filter { $0 == "▀" }.count == 4)
    }

    @Test("256 colours: the grey ramp from 255 (silence) to 232 (loudest)")
    func palette() {
        let line = SonogramRenderer(mode: .palette256).terminalLines(tiny)[0]
        #expect(line.hasPrefix("  0.0k┤\u{1B}[38;5;232m\u{1B}[48;5;255m▀"))
        #expect(line.contains("\u{1B}[38;5;255m\u{1B}[48;5;232m▀"))
    }

    @Test("The shape for a terminal leaves room for the kHz gutter and holds two rows per line in colour")
    func shapeForTerminal() {
        #expect(
            SonogramRenderer(mode: .trueColor).shape(terminalWidth: 80, lines: 12)
                == SonogramShape(columns: 72, rows: 24))
        #expect(SonogramRenderer(mode: .shade).shape(terminalWidth: 80, lines: 12).rows == 12)
    }
}

@Suite("Annotation boxes under a text sonogram")
struct SonogramBoxLineTests {
    @Test("each box in the window is a run of ━ under its time span, its number (and band) at its start")
    func boxes() {
        let picture = Sonogram(
            rows: 1, columns: 20, levels: [Float](repeating: 0, count: 20), maxFrequency: 8000, duration: 10,
            sampleRate: 16_000)
        let boxes = [
            SonogramRaster.Box(number: 1, span: TimeSpan(start: 2, end: 4), band: nil),
            SonogramRaster.Box(number: 2, span: TimeSpan(start: 7, end: 8), band: FrequencyBand(low: 2000, high: 5000)),
            SonogramRaster.Box(number: 3, span: TimeSpan(start: 12, end: 13), band: nil),
        ]
        #expect(SonogramRenderer.boxLine(picture, boxes: boxes) == "           1━━━      2 2.0-5.0k")
        #expect(SonogramRenderer.boxLine(picture, boxes: [boxes[2]]) == nil, "a box outside the window draws nothing")
        // In a pipe: one `sono: box` line per box in the window, after the picture's rows.
        let script = Presenter(style: .script, sourceName: "test")
        let lines = script.sonogram(picture, label: "XC1", title: nil, boxes: boxes)
        #expect(
            Array(lines.suffix(2)) == [
                "sono: box n=1 begin=2.000 end=4.000", "sono: box n=2 begin=7.000 end=8.000 low=2000 high=5000",
            ])
        #expect(lines.count == 1 + 1 + 2)
    }
}

@Suite("Sonogram live strip")
struct SonogramStripTests {
    /// 2 rows × 20 columns over 10 s: column c is loud in the bottom row when c is even.
    let long = Sonogram(
        rows: 2, columns: 20,
        levels: (0..<20).map { $0 % 2 == 0 ? Float(1) : 0 } + Array(repeating: 0, count: 20),
        maxFrequency: 4000, duration: 10, sampleRate: 8000)

    @Test("The strip shows the page holding the position; the marker line names its start and marks the position")
    func pages() {
        let lines = SonogramRenderer(mode: .shade).stripLines(long, position: 5.2, width: 7 + 8, lines: 2)
        // Column 10 (5.0-5.5 s) is the position: 8 columns a page, so the page is columns 8-15 (from 4 s).
        #expect(lines == ["  4.0k┐        ", "  0.0k┘█ █ █ █ ", "    4s└──▲─────"])
        // Within the page only the marker line changes.
        let later = SonogramRenderer(mode: .shade).stripLines(long, position: 6.3, width: 7 + 8, lines: 2)
        #expect(Array(later.prefix(2)) == Array(lines.prefix(2)))
        #expect(later[2] == "    4s└────▲───")
    }

    @Test("The last page ends at the recording's end; the loop's section is marked")
    func lastPageAndLoop() {
        let renderer = SonogramRenderer(mode: .shade)
        #expect(renderer.stripLines(long, position: 0, width: 15, lines: 1) == ["  4.0k┐█ █ █ █ ", "    0s└▲───────"])
        let end = renderer.stripLines(long, position: 9.9, width: 15, lines: 1, loop: LoopSection(start: 7, end: 9))
        #expect(end == ["  4.0k┐█ █ █ █ ", "    6s└──════─▲"])
    }

    @Test("In colour the position is red")
    func colourMarker() {
        let lines = SonogramRenderer(mode: .trueColor).stripLines(long, position: 0, width: 15, lines: 1)
        #expect(lines[1].contains("\u{1B}[31m▲"))
    }
}
