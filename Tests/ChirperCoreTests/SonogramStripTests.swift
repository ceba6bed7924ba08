import ChirperCore
import Testing

private let wren = PlayItem(label: "XC254462", location: .remote("https://xeno-canto.org/254462/download"))
private let robin = PlayItem(label: "XC5168", location: .remote("https://xeno-canto.org/5168/download"))

private func playing(_ item: PlayItem, _ ticket: UInt64) -> PlaybackState {
    .playing(PlaybackProgress(item: item, ticket: PlaybackTicket(ticket), position: 1, duration: 10))
}

private let picture = Sonogram(
    rows: 8, columns: 100, levels: [Float](repeating: 0.5, count: 800), maxFrequency: 11025, duration: 10,
    sampleRate: 22050)

@Suite("The live sonogram strip")
struct LiveStripTests {
    @Test("on while playing computes the playing recording's picture; it shows once ready")
    func onWhilePlaying() {
        var strip = SonogramStripMachine()
        #expect(strip.turnOn(playing: playing(wren, 1)) == .compute(wren, PlaybackTicket(1)))
        #expect(strip.picture(for: playing(wren, 1)) == nil)
        #expect(strip.ready(picture, ticket: PlaybackTicket(1)) == .none)
        #expect(strip.picture(for: playing(wren, 1)) == picture)
        #expect(strip.playbackChanged(playing(wren, 1)) == .none, "the same request keeps its picture")
    }

    @Test("on while idle waits; the next play computes; a new play replaces the picture and drops a late one")
    func followsPlays() {
        var strip = SonogramStripMachine()
        #expect(strip.turnOn(playing: .start) == .none)
        #expect(strip.state == .waiting)
        #expect(strip.playbackChanged(playing(wren, 1)) == .compute(wren, PlaybackTicket(1)))
        #expect(strip.playbackChanged(playing(robin, 2)) == .compute(robin, PlaybackTicket(2)))
        #expect(strip.ready(picture, ticket: PlaybackTicket(1)) == .none)
        #expect(strip.state == .loading(PlaybackTicket(2)), "the older request's picture is dropped")
        #expect(strip.failed("sono: cannot draw XC5168: damaged", ticket: PlaybackTicket(2)) == .none)
        #expect(strip.state == .failed(PlaybackTicket(2), "sono: cannot draw XC5168: damaged"))
    }

    @Test("a play is drawn once its sound starts, not while it first buffers (its download is under way by then)")
    func waitsForTheSound() {
        var strip = SonogramStripMachine()
        _ = strip.turnOn(playing: .start)
        let buffering = PlaybackState.buffering(
            PlaybackProgress(item: wren, ticket: PlaybackTicket(1), position: 0, duration: 10))
        #expect(strip.playbackChanged(buffering) == .none)
        #expect(strip.state == .waiting)
        #expect(strip.playbackChanged(playing(wren, 1)) == .compute(wren, PlaybackTicket(1)))
        #expect(strip.playbackChanged(buffering) == .none, "a rebuffer keeps the picture being made")
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
        #expect(strip.playbackChanged(playing(robin, 2)) == .none, "off: nothing is computed")
    }

    @Test("the strip is drawn above the status line, its page holding the play position, marked on the line below")
    func drawsAroundThePosition() {
        var strip = SonogramStripMachine()
        _ = strip.turnOn(playing: playing(wren, 1))
        _ = strip.ready(picture, ticket: PlaybackTicket(1))
        let presenter = Presenter(style: .terminal(color: false), width: 60, sourceName: "test")
        let early = presenter.strip(strip, playback: playing(wren, 1))
        #expect(early.count == SonogramStripMachine.defaultLines + 1, "the picture's lines and the marker line")
        #expect(early.allSatisfy { $0.count <= 59 })
        #expect(early.last!.contains("▲"), "the position marked below the picture")
        let late = PlaybackState.playing(
            PlaybackProgress(item: wren, ticket: PlaybackTicket(1), position: 9, duration: 10))
        let markerEarly = early.last!.firstIndex(of: "▲").map {
            early.last!.distance(from: early.last!.startIndex, to: $0)
        }
        let lateLines = presenter.strip(strip, playback: late)
        let markerLate = lateLines.last!.firstIndex(of: "▲").map {
            lateLines.last!.distance(from: lateLines.last!.startIndex, to: $0)
        }
        #expect(markerLate! > markerEarly!, "on the last page the marker is further right")
        #expect(Presenter(style: .script, sourceName: "test").strip(strip, playback: playing(wren, 1)).isEmpty)
    }
}
