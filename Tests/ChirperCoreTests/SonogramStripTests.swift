import ChirperCore
import Testing

private let wren = PlayItem(label: "XC254462", location: .remote("https://xeno-canto.org/254462/download"))
private let robin = PlayItem(label: "XC5168", location: .remote("https://xeno-canto.org/5168/download"))

private func playing(_ item: PlayItem, _ ticket: UInt64, at position: Double = 1) -> PlaybackState {
    .playing(PlaybackProgress(item: item, ticket: PlaybackTicket(ticket), position: position, duration: 10))
}

private let picture = Sonogram(
    rows: 8, columns: 100, levels: [Float](repeating: 0.5, count: 800), maxFrequency: 11025, duration: 10,
    sampleRate: 22050)

@Suite("The live sonogram strip")
struct LiveStripTests {
    @Test("on while playing listens and computes the playing recording's picture; it shows once ready, and as it grows")
    func onWhilePlaying() {
        var strip = SonogramStripMachine()
        #expect(strip.turnOn(playing: playing(wren, 1)) == .listen(then: .compute(wren, PlaybackTicket(1))))
        #expect(strip.picture(for: playing(wren, 1)) == nil)
        #expect(strip.ready(picture, ticket: PlaybackTicket(1)) == .nothing)
        #expect(strip.picture(for: playing(wren, 1)) == picture)
        #expect(strip.playbackChanged(playing(wren, 1)) == .nothing, "the same request keeps its picture")
        var grown = picture
        grown.levels[0] = 1
        #expect(strip.ready(grown, ticket: PlaybackTicket(1)) == .nothing)
        #expect(strip.picture(for: playing(wren, 1)) == grown, "a picture grown further replaces the last")
        #expect(strip.ready(picture, ticket: PlaybackTicket(2)) == .nothing)
        #expect(strip.picture(for: playing(wren, 1)) == grown, "another request's picture is dropped")
    }

    @Test("on while idle waits; the next play computes; a new play replaces the picture and drops a late one")
    func followsPlays() {
        var strip = SonogramStripMachine()
        #expect(strip.turnOn(playing: .start) == .listen(then: .nothing))
        #expect(strip.state == .waiting)
        #expect(strip.playbackChanged(playing(wren, 1)) == .compute(wren, PlaybackTicket(1)))
        #expect(strip.playbackChanged(playing(robin, 2)) == .compute(robin, PlaybackTicket(2)))
        #expect(strip.ready(picture, ticket: PlaybackTicket(1)) == .nothing)
        #expect(strip.state == .loading(PlaybackTicket(2)), "the older request's picture is dropped")
        #expect(strip.failed("sono: cannot draw XC5168: damaged", ticket: PlaybackTicket(2)) == .nothing)
        #expect(strip.state == .failed(PlaybackTicket(2), "sono: cannot draw XC5168: damaged"))
    }

    @Test("a play is drawn once its sound starts, not while it first buffers (its length is known by then)")
    func waitsForTheSound() {
        var strip = SonogramStripMachine()
        _ = strip.turnOn(playing: .start)
        let buffering = PlaybackState.buffering(
            PlaybackProgress(item: wren, ticket: PlaybackTicket(1), position: 0, duration: 10))
        #expect(strip.playbackChanged(buffering) == .nothing)
        #expect(strip.state == .waiting)
        #expect(strip.playbackChanged(playing(wren, 1)) == .compute(wren, PlaybackTicket(1)))
        #expect(strip.playbackChanged(buffering) == .nothing, "a rebuffer keeps the picture being made")
        #expect(strip.state == .loading(PlaybackTicket(1)))
    }

    @Test("off cancels and hides; on twice and off twice are refused with one line")
    func offAndRefusals() {
        var strip = SonogramStripMachine()
        #expect(strip.turnOff() == .refuse("the live strip is not on; sono on shows it while playing"))
        _ = strip.turnOn(playing: playing(wren, 1))
        #expect(strip.turnOn(playing: playing(wren, 1)) == .refuse("the live strip is already on; sono off hides it"))
        _ = strip.ready(picture, ticket: PlaybackTicket(1))
        #expect(strip.turnOff() == .cancel)
        #expect(strip.picture(for: playing(wren, 1)) == nil)
        #expect(strip.playbackChanged(playing(robin, 2)) == .nothing, "off: nothing is computed")
    }

    @Test("the strip is drawn above the status line, its page holding the play position, marked on the line below")
    func drawsAroundThePosition() {
        var strip = SonogramStripMachine()
        _ = strip.turnOn(playing: playing(wren, 1))
        _ = strip.ready(picture, ticket: PlaybackTicket(1))
        let presenter = Presenter(style: .terminal(color: false), width: 60, sourceName: "test")
        let early = presenter.strip(strip, playback: playing(wren, 1)).rows
        #expect(early.count == SonogramStripMachine.defaultLines + 1, "the picture's lines and the marker line")
        #expect(early.allSatisfy { $0.count <= 59 })
        #expect(early.last!.contains("▲"), "the position marked below the picture")
        let late = PlaybackState.playing(
            PlaybackProgress(item: wren, ticket: PlaybackTicket(1), position: 9, duration: 10))
        let markerEarly = early.last!.firstIndex(of: "▲").map {
            early.last!.distance(from: early.last!.startIndex, to: $0)
        }
        let lateLines = presenter.strip(strip, playback: late).rows
        let markerLate = lateLines.last!.firstIndex(of: "▲").map {
            lateLines.last!.distance(from: lateLines.last!.startIndex, to: $0)
        }
        #expect(markerLate! > markerEarly!, "on the last page the marker is further right")
        #expect(Presenter(style: .script, sourceName: "test").strip(strip, playback: playing(wren, 1)).rows.isEmpty)
    }

    @Test("in real pixels: a cell's pixels a text column; the page is an image over the gutter, the tone darkest")
    func pixelStrip() throws {
        let canvas = PixelCanvas(.kitty, cellWidth: 10, cellHeight: 20)
        var strip = SonogramStripMachine()
        #expect(
            strip.turnOn(playing: playing(wren, 1), canvas: canvas) == .listen(then: .compute(wren, PlaybackTicket(1))))
        let presenter = Presenter(style: .terminal(color: false), width: 60, sourceName: "test")
        let shape = presenter.stripShape(duration: 10, strip: strip)
        #expect(shape.columns == 100 * 10 && shape.rows == 8 * 20, "10 s: 100 text columns of 10 pixels, 8 lines of 20")
        _ = strip.ready(climbingTone(columns: shape.columns, rows: shape.rows), ticket: PlaybackTicket(1))

        let view = presenter.strip(strip, playback: playing(wren, 1))
        #expect(view.rows.count == 9, "8 picture lines and the marker line")
        #expect(view.rows[0].hasSuffix("12.0k┐") && view.rows[7].hasSuffix("0.0k┘"), "\(view.rows)")
        #expect(view.rows.dropLast().allSatisfy { $0.count == SonogramRenderer.gutterWidth }, "only the gutter")
        let picture = try #require(view.picture)
        // 59 columns less the gutter: a page of 52 text columns (5.2 s), from the start.
        #expect(picture.image.width == 52 * 10 && picture.image.height == 8 * 20)
        #expect(picture.column == SonogramRenderer.gutterWidth && picture.lines == 8)
        for x in stride(from: 0, to: picture.image.width, by: 13) {
            #expect(darkestY(picture.image, x: x) == 159 - toneRow(x, rows: 160), "x \(x)")
        }
        let marker = view.rows.last!
        #expect(marker.firstIndex(of: "▲").map { marker.distance(from: marker.startIndex, to: $0) } == 7 + 10)

        #expect(presenter.strip(strip, playback: playing(wren, 1, at: 5)).picture == picture, "the same page")
        let turned = try #require(presenter.strip(strip, playback: playing(wren, 1, at: 6)).picture)
        #expect(turned != picture, "the page turned at 5.2 s")
        // The last page: text columns 48-99 of 100, so its first pixel column is the tone's 480th.
        #expect(darkestY(turned.image, x: 0) == 159 - toneRow(480, rows: 160))
        #expect(Presenter(style: .script, sourceName: "test").strip(strip, playback: playing(wren, 1)).picture == nil)
    }

    @Test(
        "graphics changed while the strip is on: it is computed again for the new canvas; the same one changes nothing")
    func canvasChanges() {
        var strip = SonogramStripMachine()
        let kitty = PixelCanvas(.kitty, cellWidth: 10, cellHeight: 20)
        _ = strip.turnOn(playing: playing(wren, 1), canvas: kitty)
        _ = strip.ready(picture, ticket: PlaybackTicket(1))
        #expect(strip.canvasChanged(kitty, playing: playing(wren, 1)) == .nothing)
        #expect(
            strip.canvasChanged(nil, playing: playing(wren, 1)) == .compute(wren, PlaybackTicket(1)),
            "already listening")
        #expect(strip.canvas == nil && strip.picture(for: playing(wren, 1)) == nil)
        #expect(
            strip.turnOn(playing: playing(wren, 1), canvas: kitty) == .compute(wren, PlaybackTicket(1)),
            "on again with pixels")
        _ = strip.turnOff()
        #expect(strip.canvasChanged(nil, playing: playing(wren, 1)) == .nothing, "off: nothing is computed")
        #expect(
            strip.turnOn(playing: playing(wren, 1)) == .listen(then: .compute(wren, PlaybackTicket(1))),
            "on again after off listens again")
    }
}

/// A tone climbing from row 10 to row 150 of 160 over the picture's columns, on silence.
private func climbingTone(columns: Int, rows: Int) -> Sonogram {
    var levels = [Float](repeating: 0, count: rows * columns)
    for column in 0..<columns { levels[toneRow(column, rows: rows) * columns + column] = 1 }
    return Sonogram(
        rows: rows, columns: columns, levels: levels, maxFrequency: 12_000, duration: 10, sampleRate: 44_100)
}

private func toneRow(_ column: Int, rows: Int) -> Int { 10 + column * (rows - 20) / 1000 }

private func darkestY(_ image: RasterImage, x: Int) -> Int {
    (0..<image.height).min { image.grey(x: x, y: $0) < image.grey(x: x, y: $1) } ?? -1
}
