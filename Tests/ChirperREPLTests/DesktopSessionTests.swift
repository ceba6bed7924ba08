import ChirperCatalog
import ChirperCore
import Testing

@testable import ChirperREPL

private let script = Presenter(style: .script, width: 100, sourceName: "the test catalog")

private func desktopSession() -> SessionMachine {
    SessionMachine(
        .init(
            interactive: true, presenter: script, saveDirectory: "/saves", homeDirectory: "/home/birder",
            desktop: true))
}

private func requests(_ actions: [SessionMachine.Action]) -> [SessionMachine.Request] {
    actions.compactMap { if case .request(let request) = $0 { request } else { nil } }
}

private func published(_ actions: [SessionMachine.Action]) -> [(DesktopState, Bool)] {
    actions.compactMap { if case .publishDesktop(let state, let seeked) = $0 { (state, seeked) } else { nil } }
}

private func playing(_ position: Double, segment: Int = 0, paused: Bool = false) -> PlaybackState {
    let progress = PlaybackProgress(
        item: .of(Fixture.wren), ticket: PlaybackTicket(1), position: position, duration: 12, segment: segment)
    return paused ? .paused(progress) : .playing(progress)
}

@Suite("The desktop (MPRIS) in the session, one event at a time")
struct DesktopSessionTests {
    @Test("once the session hears there is no bus, playing on publishes nothing more (not every tick's state)")
    func noBusNoPublishing() {
        var machine = desktopSession()
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        #expect(published(machine.handle(.playback(playing(1)))).count == 1)
        _ = machine.handle(.desktopMissing("no D-Bus session bus"))
        #expect(published(machine.handle(.playback(playing(2)))).isEmpty)
        #expect(published(machine.handle(.playback(playing(3, paused: true)))).isEmpty)
    }

    @Test("OpenUri of a xeno-canto page searches its number and plays it once the list has settled")
    func openURI() throws {
        var machine = desktopSession()
        let query = SearchQuery(terms: [.init(tag: "nr", value: "254462")])
        #expect(
            requests(machine.handle(.desktop(.openURI("https://xeno-canto.org/254462/download")))) == [.search(query)])
        _ = machine.handle(.answered(.searched(.accepted)))
        #expect(requests(machine.handle(.list(.loading(query: query, previous: nil, retry: nil)))).isEmpty)
        let found = ListState.populated(
            Listing(
                query: query,
                page: Page(totalRecordings: 1, totalSpecies: 1, page: 1, numPages: 1, recordings: [Fixture.wren])))
        #expect(requests(machine.handle(.list(found))) == [.play(.of(Fixture.wren), Fixture.wren, forQueue: false)])
    }

    @Test("OpenUri of a file:// URI opens the file as open does, and plays it once the list has settled")
    func openFile() throws {
        var machine = desktopSession()
        let query = SearchQuery.open(["/home/me/field recordings/20250612_053000.WAV"])
        let uri = "file:///home/me/field%20recordings/20250612_053000.WAV"
        #expect(requests(machine.handle(.desktop(.openURI(uri)))) == [.search(query)])
        _ = machine.handle(.answered(.searched(.accepted)))
        let header = try #require(
            {
                if case .header(let header) = AudioFileHeaderReader.read(
                    Array(repeating: 0xFF, count: 1) + [0xFB, 0x90, 0x64])
                {
                    return header
                }
                return nil
            }())
        let row = Recording(ownFile: "/home/me/field recordings/20250612_053000.WAV", header: header, modified: nil)
        let found = ListState.populated(
            Listing(
                query: query,
                page: Page(totalRecordings: 1, totalSpecies: 0, page: 1, numPages: 1, recordings: [row])))
        #expect(requests(machine.handle(.list(found))) == [.play(try #require(row.playItem), row, forQueue: false)])
        #expect(DesktopCommand.filePath("file://localhost/x/a%2Fb.wav") == "/x/a/b.wav")
        #expect(DesktopCommand.filePath("file://other-host/x.wav") == nil)
        #expect(DesktopCommand.filePath("file:///x%00.wav") == nil)
        #expect(DesktopCommand.filePath("file:///x%zz.wav") == nil)
    }

    @Test("OpenUri of a file that cannot be opened plays nothing: the rows still shown are another search's")
    func openFileFails() throws {
        var machine = desktopSession()
        let shown = SearchQuery(terms: [.init(tag: "en", value: "wren")])
        let listing = Listing(
            query: shown,
            page: Page(totalRecordings: 1, totalSpecies: 1, page: 1, numPages: 1, recordings: [Fixture.wren]))
        _ = machine.handle(.list(.populated(listing)))
        let query = SearchQuery.open(["/etc/passwd"])
        #expect(requests(machine.handle(.desktop(.openURI("file:///etc/passwd")))) == [.search(query)])
        _ = machine.handle(.answered(.searched(.accepted)))
        _ = machine.handle(.list(.loading(query: query, previous: listing, retry: nil)))
        let failed = ListState.error(query: query, ListError(.catalog, "/etc/passwd: not audio"), previous: listing)
        #expect(requests(machine.handle(.list(failed))).isEmpty)
    }

    @Test("OpenUri of an ftp: or another site's URL is refused in one line, and nothing is fetched")
    func openRefused() {
        var machine = desktopSession()
        for uri in ["file://other-host/x.wav", "ftp://xeno-canto.org/1", "https://example.com/254462", "XC12ab"] {
            let actions = machine.handle(.desktop(.openURI(uri)))
            #expect(requests(actions).isEmpty)
            let lines = actions.flatMap { action -> [String] in if case .print(let lines) = action { lines } else { [] }
            }
            #expect(lines.count == 1 && lines[0].hasPrefix("error: "), "\(uri): \(actions)")
        }
        #expect(DesktopCommand.xenoCantoNumber("XC254462") == 254462)
        #expect(DesktopCommand.xenoCantoNumber("https://www.xeno-canto.org/5168") == 5168)
    }

    @Test("PlayPause pauses what plays and resumes what is paused; the state is published, Seeked after a seek")
    func playPause() {
        var machine = desktopSession()
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        let first = published(machine.handle(.playback(playing(1))))
        #expect(
            first.count == 1 && first[0].0.status == .playing && first[0].0.track?.title == "Eurasian Wren"
                && !first[0].1)
        #expect(requests(machine.handle(.desktop(.playPause))) == [.control(.pause)])
        _ = machine.handle(.answered(.control(.pause, .accepted, settings: PlaybackSettings())))
        #expect(published(machine.handle(.playback(playing(1.1, paused: true)))).first?.0.status == .paused)
        #expect(requests(machine.handle(.desktop(.playPause))) == [.control(.resume)])
        _ = machine.handle(.answered(.control(.resume, .accepted, settings: PlaybackSettings())))
        // Played on: no Seeked. Moved by a seek (a new segment): Seeked.
        #expect(published(machine.handle(.playback(playing(1.3)))).first?.1 == false)
        #expect(published(machine.handle(.playback(playing(8, segment: 1)))).first?.1 == true)
        // A position for another track is ignored; past the end is refused; in range it seeks.
        #expect(
            machine.handle(.desktop(.setPosition(trackID: "/org/chirper_play/track/9", position: 1_000_000))).isEmpty)
        #expect(
            requests(machine.handle(.desktop(.setPosition(trackID: "/org/chirper_play/track/1", position: 99_000_000))))
                .isEmpty)
        #expect(
            requests(machine.handle(.desktop(.setPosition(trackID: "/org/chirper_play/track/1", position: 3_500_000))))
                == [.control(.seek(.absolute(3.5)))])
    }
}

@Suite("The desktop's cover art in the session")
struct CoverArtSessionTests {
    private func session() -> SessionMachine {
        SessionMachine(
            .init(
                interactive: true, presenter: script, saveDirectory: "/saves", homeDirectory: "/home/birder",
                desktop: true, coverArtFolder: "/run/user/1000/chirper-play-art.Ab12Cd"))
    }

    private func drawn(_ actions: [SessionMachine.Action]) -> [SessionMachine.Action] {
        actions.filter {
            switch $0 {
            case .drawCoverArt, .removeCoverArt, .stopCoverArt: true
            default: false
            }
        }
    }

    @Test("the sonogram of what plays is drawn into the session's folder and becomes the track's art URL")
    func artURL() throws {
        var machine = session()
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        let started = machine.handle(.playback(playing(1)))
        let path = "/run/user/1000/chirper-play-art.Ab12Cd/art-1.png"
        #expect(drawn(started) == [.drawCoverArt(file: 1, .of(Fixture.wren), path: path)])
        let before = try #require(published(started).first?.0.track)
        #expect(before.title == "Eurasian Wren" && before.artURL == nil, "no art before the picture is written")
        let shown = published(machine.handle(.coverArt(file: 1, drawn: true)))
        #expect(shown.count == 1 && shown[0].0.track?.artURL == "file://" + path)
        #expect(drawn(machine.handle(.playback(playing(2)))).isEmpty, "drawn once")
    }

    @Test("stopped while its picture is drawn, the drawing stops (a download cut short is not fetched again)")
    func stoppedWhileDrawing() {
        var machine = session()
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        _ = machine.handle(.playback(playing(1)))
        let ending = PlaybackEnding(
            item: .of(Fixture.wren), ticket: PlaybackTicket(1), position: 1.5, reason: .stopped)
        #expect(drawn(machine.handle(.playback(.idle(ending)))) == [.stopCoverArt])
        #expect(drawn(machine.handle(.coverArt(file: 1, drawn: false))).isEmpty)
    }

    @Test("with no session bus the line is said, and the picture is removed")
    func noBus() {
        var machine = session()
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        _ = machine.handle(.playback(playing(1)))
        _ = machine.handle(.coverArt(file: 1, drawn: true))
        let actions = machine.handle(.desktopMissing("no D-Bus session bus"))
        #expect(drawn(actions) == [.removeCoverArt(path: "/run/user/1000/chirper-play-art.Ab12Cd/art-1.png")])
        #expect(actions.contains { if case .print(let lines) = $0 { lines.count == 1 } else { false } })
    }

    @Test("without a folder (no desktop) nothing is drawn")
    func noFolder() {
        var machine = desktopSession()
        _ = machine.handle(.answered(.started(PlaybackTicket(1), Fixture.wren, forQueue: false)))
        #expect(drawn(machine.handle(.playback(playing(1)))).isEmpty)
    }
}
