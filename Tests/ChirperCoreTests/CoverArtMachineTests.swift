import ChirperCore
import Testing

private let wren = PlayItem(label: "XC254462", location: .remote("https://xeno-canto.org/254462/download"))
private let robin = PlayItem(label: "XC5168", location: .remote("https://xeno-canto.org/5168/download"))

private func progress(_ item: PlayItem, _ ticket: UInt64) -> PlaybackProgress {
    PlaybackProgress(item: item, ticket: PlaybackTicket(ticket), position: 1, duration: 10)
}

private func playing(_ item: PlayItem, _ ticket: UInt64) -> PlaybackState { .playing(progress(item, ticket)) }

@Suite("The desktop's cover art: the sonogram of what plays, drawn once a recording")
struct CoverArtMachineTests {
    @Test("a recording is drawn once its sound starts; the picture is shown with it, and kept when it plays again")
    func drawnOnce() {
        var art = CoverArtMachine()
        #expect(art.playbackChanged(.buffering(progress(wren, 1)), masked: false).isEmpty, "not while it buffers")
        #expect(art.playbackChanged(playing(wren, 1), masked: false) == [.draw(wren, file: 1)])
        #expect(art.file(for: wren) == nil, "nothing shown before it is written")
        #expect(art.playbackChanged(playing(wren, 1), masked: false).isEmpty, "one drawing at a time")
        #expect(art.drawn(file: 1).isEmpty)
        #expect(art.file(for: wren) == 1)
        #expect(art.file(for: robin) == nil)
        #expect(art.playbackChanged(playing(wren, 2), masked: false).isEmpty, "played again: the same picture")
    }

    @Test("the next recording's picture replaces the last, which is removed once the new one is written")
    func replaced() {
        var art = CoverArtMachine()
        _ = art.playbackChanged(playing(wren, 1), masked: false)
        _ = art.drawn(file: 1)
        #expect(art.playbackChanged(playing(robin, 2), masked: false) == [.draw(robin, file: 2)])
        #expect(art.file(for: robin) == nil, "no picture is shown until the new one is written")
        #expect(art.drawn(file: 2) == [.remove(file: 1)])
        #expect(art.file(for: robin) == 2)
    }

    @Test("a drawing overtaken by the next recording is dropped, and removed if it was written after all")
    func overtaken() {
        var art = CoverArtMachine()
        _ = art.playbackChanged(playing(wren, 1), masked: false)
        #expect(art.playbackChanged(playing(robin, 2), masked: false) == [.draw(robin, file: 2)])
        #expect(art.drawn(file: 1) == [.remove(file: 1)])
        #expect(art.file(for: wren) == nil)
        #expect(art.drawn(file: 2).isEmpty)
        #expect(art.file(for: robin) == 2)
    }

    @Test("playback ending while a picture is drawn stops the drawing; the last picture drawn is kept")
    func stoppedWhileDrawing() {
        var art = CoverArtMachine()
        _ = art.playbackChanged(playing(wren, 1), masked: false)
        _ = art.drawn(file: 1)
        _ = art.playbackChanged(playing(robin, 2), masked: false)
        let ending = PlaybackEnding(item: robin, ticket: PlaybackTicket(2), position: 3, reason: .stopped)
        #expect(art.playbackChanged(.idle(ending), masked: false) == [.stop])
        #expect(art.failed(file: 2).isEmpty, "the stopped drawing reports nothing that matters")
        #expect(art.playbackChanged(playing(wren, 3), masked: false).isEmpty, "the wren's picture is still there")
        #expect(art.file(for: wren) == 1)
    }

    @Test("off (no desktop, or nowhere to keep pictures), nothing is ever drawn")
    func off() {
        var art = CoverArtMachine(on: false)
        #expect(art.playbackChanged(playing(wren, 1), masked: false).isEmpty)
        #expect(art.state == .off)
    }

    @Test("a quiz question gets no picture: its sonogram could answer it")
    func quizMasked() {
        var art = CoverArtMachine()
        #expect(art.playbackChanged(playing(wren, 1), masked: true).isEmpty)
        #expect(art.state == .nothing)
    }

    @Test("a recording that cannot be drawn is not tried again until another has played")
    func failedOnce() {
        var art = CoverArtMachine()
        _ = art.playbackChanged(playing(wren, 1), masked: false)
        #expect(art.failed(file: 1).isEmpty)
        #expect(art.playbackChanged(playing(wren, 2), masked: false).isEmpty)
        #expect(art.playbackChanged(playing(robin, 3), masked: false) == [.draw(robin, file: 2)])
        #expect(art.playbackChanged(playing(wren, 4), masked: false) == [.draw(wren, file: 3)])
    }

    @Test("with no desktop to show it (no session bus) the picture is removed and no more are drawn")
    func turnedOff() {
        var art = CoverArtMachine()
        _ = art.playbackChanged(playing(wren, 1), masked: false)
        _ = art.drawn(file: 1)
        #expect(art.turnOff() == [.remove(file: 1)])
        #expect(art.file(for: wren) == nil)
        #expect(art.playbackChanged(playing(robin, 2), masked: false).isEmpty)
    }

    @Test("each picture has a path of its own in the owner's folder, shown as a file: URL")
    func paths() {
        #expect(
            CoverArtMachine.path(of: 3, in: "/run/user/1000/chirper-play-art.Ab12Cd")
                == "/run/user/1000/chirper-play-art.Ab12Cd/art-3.png")
        #expect(
            CoverArtMachine.url(of: "/tmp/chirper-play-art.x y/art-1.png")
                == "file:///tmp/chirper-play-art.x%20y/art-1.png")
    }
}
