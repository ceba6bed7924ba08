import ChirperCore
import Testing

@Suite("sono command")
struct SonogramCommandTests {
    @Test("a row, a band (lo-hi or a top), a window in recording time and --png, in any order after the row")
    func accepted() throws {
        #expect(try SonogramRequest.parse("3") == .draw(SonogramDraw(row: 3)))
        #expect(try SonogramRequest.parse("#3  12.5") == .draw(SonogramDraw(row: 3, band: FrequencyBand(high: 12_500))))
        #expect(try SonogramRequest.parse("3 8kHz") == .draw(SonogramDraw(row: 3, band: FrequencyBand(high: 8000))))
        #expect(
            try SonogramRequest.parse("1 2-9 0:12-0:15")
                == .draw(
                    SonogramDraw(
                        row: 1, band: FrequencyBand(low: 2000, high: 9000), window: TimeSpan(start: 12, end: 15))))
        #expect(
            try SonogramRequest.parse("1 0:12-0:15 --png ~/wren.png")
                == .draw(SonogramDraw(row: 1, window: TimeSpan(start: 12, end: 15), png: "~/wren.png")))
        #expect(
            try SonogramRequest.parse("1 2-9 12-15.5")
                == .draw(
                    SonogramDraw(
                        row: 1, band: FrequencyBand(low: 2000, high: 9000), window: TimeSpan(start: 12, end: 15.5))))
        #expect(
            try SonogramRequest.parse("12s-15s") == .draw(SonogramDraw(row: nil, window: TimeSpan(start: 12, end: 15))))
        #expect(try SonogramRequest.parse("") == .draw(SonogramDraw(row: nil)))
        #expect(
            try SonogramRequest.parse("2 max 0:01-0:02")
                == .draw(SonogramDraw(row: 2, band: .whole, window: TimeSpan(start: 1, end: 2))))
        #expect(
            try SonogramRequest.parse("2 --contrast fixed 4-8")
                == .draw(SonogramDraw(row: 2, band: FrequencyBand(low: 4000, high: 8000), contrast: .fixedDefault)))
        #expect(try SonogramRequest.parse("--contrast AUTO") == .draw(SonogramDraw(row: nil, contrast: .auto)))
        #expect(throws: CommandError.self) { try SonogramRequest.parse("1 --contrast loud") }
        #expect(try SonogramRequest.parse("ON") == .strip(on: true))
        #expect(
            try SonogramRequest.parse("on 12 1-8")
                == .strip(on: true, lines: 12, band: FrequencyBand(low: 1000, high: 8000)))
        #expect(try SonogramRequest.parse("off") == .strip(on: false))
    }

    @Test(
        "Bad input gets one line with the usage",
        arguments: [
            "0", "x", "3 0", "3 -1", "3 nan", "3 inf", "3 2000", "3 4 5", "on now", "3 9-2", "3 0:15-0:12",
            "3 2-9 0:12", "3 2-9 1:00-1:99", "3 --png", "3 2-9 1-2 3-4", "on 99", "on 8 2-9 4",
        ])
    func refused(_ text: String) {
        #expect(throws: CommandError.self) { try SonogramRequest.parse(text) }
        do {
            _ = try SonogramRequest.parse(text)
        } catch {
            #expect(!error.description.contains("\n"))
            #expect(error.description.count < 200)
        }
    }

    @Test(
        "the FFT follows the window: Raven's 512 points when zoomed in (75 % overlap), up to 2048 over a long view; zero-padded for narrow rows"
    )
    func fftPlan() {
        let zoomed = SonogramShape(columns: 1000, rows: 300, window: TimeSpan(start: 12, end: 15))
        #expect(zoomed.fftPlan(sampleRate: 44_100, duration: 3) == (size: 512, hop: 128, dft: 1024))
        let whole = SonogramShape(columns: 104, rows: 24)
        #expect(whole.fftPlan(sampleRate: 44_100, duration: 69) == (size: 2048, hop: 1024, dft: 2048))
        // A narrow band of many rows: the window stays short, the transform is zero-padded to rows' width.
        let band = SonogramShape(columns: 400, rows: 280, maxFrequency: 9000, minFrequency: 2000)
        #expect(band.fftPlan(sampleRate: 44_100, duration: 1) == (size: 512, hop: 128, dft: 2048))
        let bat = SonogramShape(columns: 100, rows: 24)
        #expect(bat.fftPlan(sampleRate: 192_000, duration: 2).size == 4096)
        #expect(whole.fftPlan(sampleRate: 8000, duration: 1).size == 128)
    }
}
