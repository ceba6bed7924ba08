import ChirperCatalog
import ChirperCore

extension SessionMachine {
    /// The desktop (MPRIS) as a child of the session: a D-Bus call becomes what the typed command does, the
    /// rendered state becomes the desktop's properties, and the cover art is drawn for it. The session passes
    /// what plays in the events that need it.
    struct Desktop: Sendable {
        enum State: Sendable, Hashable {
            /// No desktop: nothing is published (no bus, or none asked for).
            case off
            /// Published to the desktop; `shown`: what it was last shown.
            case on(shown: DesktopState?)
        }

        enum Event: Sendable, Hashable {
            /// The desktop asked for this, while `playback` is rendered and `playing` was the last play request.
            case command(DesktopCommand, PlaybackState, Playing?)
            /// The session changed: this is what the desktop sees of it now.
            case refresh(PlaybackState, recording: Recording?, masked: Bool, queue: PlayQueueState)
            /// The rendered playback state changed (`masked`: not to be shown by a picture).
            case playback(PlaybackState, masked: Bool)
            /// There is no session bus: this line is said on a terminal, and no cover art is drawn.
            case missing(String)
            /// Cover art picture `file` was written (`drawn`), or could not be.
            case coverArt(file: Int, drawn: Bool)
            /// The list store changed.
            case listed(ListState)
        }

        enum Action: Sendable, Hashable {
            case print([String])
            case refuse(String)
            case request(Request)
            /// What the desktop's call asks of the queue.
            case queue(PlayQueueMachine.Event)
            /// A/B listening ends.
            case stopAB
            case search(SearchQuery)
            /// Lines typed wait until the list the search brings has settled.
            case holdUntilListed
            /// Play row `n` of the list.
            case playRow(Int)
            case publish(DesktopState, seeked: Bool)
            case drawCoverArt(file: Int, PlayItem, path: String)
            case removeCoverArt(path: String)
            case stopCoverArt
        }

        let presenter: Presenter
        let interactive: Bool
        /// Where the cover art is kept (the runner's own folder); nil: none is drawn.
        let coverArtFolder: String?
        private(set) var state: State
        /// The desktop's cover art (on with a `coverArtFolder`).
        private(set) var coverArt: CoverArtMachine
        /// The search an `OpenUri` started: its first row plays once it is listed; nothing plays when it finds
        /// nothing or fails (the rows still shown are another search's).
        private(set) var opening: SearchQuery?
        private var actions: [Action] = []

        init(presenter: Presenter, interactive: Bool, on: Bool, coverArtFolder: String?) {
            self.presenter = presenter
            self.interactive = interactive
            self.coverArtFolder = coverArtFolder
            state = on ? .on(shown: nil) : .off
            coverArt = CoverArtMachine(on: coverArtFolder != nil)
        }

        /// What the desktop was last shown.
        var shown: DesktopState? {
            if case .on(let shown) = state { return shown }
            return nil
        }

        mutating func handle(_ event: Event) -> [Action] {
            switch event {
            case .command(let command, let playback, let playing):
                self.command(command, playback, playing)
            case .refresh(let playback, let recording, let masked, let queue):
                refresh(playback, recording: recording, masked: masked, queue: queue)
            case .playback(let playback, let masked):
                run(coverArt.playbackChanged(playback, masked: masked))
            case .missing(let text):
                if interactive { actions.append(.print(presenter.desktopNotice(text))) }
                // Nothing is on the bus to show the rendered state to: it is no longer derived (every progress
                // tick did).
                state = .off
                run(coverArt.turnOff())
            case .coverArt(let file, let drawn):
                run(drawn ? coverArt.drawn(file: file) : coverArt.failed(file: file))
            case .listed(let list):
                listed(list)
            }
            defer { actions = [] }
            return actions
        }

        private mutating func listed(_ list: ListState) {
            guard let query = opening else { return }
            switch list {
            case .populated(let listing) where listing.query == query,
                .paging(let listing, .available) where listing.query == query:
                opening = nil
                actions.append(.playRow(1))
            case .empty(let shown) where shown == query, .error(let shown, _, _) where shown == query:
                opening = nil
            case .loading(let shown, _, _) where shown != query:
                // Another search (typed, or read as a scientific name) replaced it.
                opening = nil
            default:
                break
            }
        }

        private mutating func command(_ command: DesktopCommand, _ playback: PlaybackState, _ playing: Playing?) {
            let progress = playback.progress
            switch command {
            case .playPause, .play, .pause:
                if case .paused = playback {
                    if command != .pause { actions.append(.request(.control(.resume))) }
                } else if progress != nil {
                    if command != .play { actions.append(.request(.control(.pause))) }
                } else if command != .pause, let playing, !playing.masked, let item = playing.recording.playItem {
                    // Stopped: play what played last again, as a player's Play key does.
                    actions.append(.request(.play(item, playing.recording, forQueue: false)))
                }
            case .stop:
                actions += [.queue(.stop), .stopAB]
                if progress != nil { actions.append(.request(.stop(.quiet))) }
            case .next:
                actions += [.stopAB, .queue(.next)]
            case .previous:
                actions += [.stopAB, .queue(.prev)]
            case .seek(let offset):
                actions.append(.request(.control(.seek(.relative(Double(offset) / 1_000_000)))))
            case .setPosition(let track, let position):
                // MPRIS: a position for another track, or outside this one, is ignored.
                guard let shown, track == shown.trackID, position >= 0 else { return }
                let seconds = Double(position) / 1_000_000
                if let length = shown.track?.length, seconds > length {
                    actions.append(
                        .refuse("the desktop asked for \(presenter.clock(seconds)), past the end; nothing changed"))
                    return
                }
                actions.append(.request(.control(.seek(.absolute(seconds)))))
            case .setRate(let rate):
                let mode = progress?.settings.speed.mode ?? .tape
                switch PlaybackSpeed.parse([String(rate), mode.rawValue]) {
                case .success(let speed): actions.append(.request(.control(.speed(speed))))
                case .failure(let error):
                    actions.append(.refuse("the desktop asked for rate \(rate): \(error.message)"))
                }
            case .setVolume(let volume):
                actions.append(.request(.control(.volume(Int((min(1, max(0, volume)) * 100).rounded())))))
            case .openURI(let uri):
                if let path = DesktopCommand.filePath(uri) {
                    // A file of one's own: listed as `open` lists it, then played.
                    opening = .open([path])
                    actions += [.search(.open([path])), .holdUntilListed]
                    return
                }
                guard let number = DesktopCommand.xenoCantoNumber(uri) else {
                    let shown = TerminalText.sanitize(String(uri.prefix(80)))
                    actions.append(
                        .refuse(
                            "the desktop asked to open \(shown): only xeno-canto pages (https://xeno-canto.org/254462)"
                                + ", XC numbers and file:// audio files are opened"))
                    return
                }
                // Found as `search nr:N` finds it, then played once the list has settled.
                let query = SearchQuery(terms: [SearchQuery.Term(tag: "nr", value: String(number))])
                opening = query
                actions += [.search(query), .holdUntilListed]
            case .goTo(let track):
                guard let index = shown?.tracks.firstIndex(where: { $0.id == track }) else { return }
                actions += [.stopAB, .queue(.goTo(index))]
            case .setLoop(let status):
                switch status {
                case "None":
                    if progress?.loop != nil { actions.append(.request(.control(.loopOff))) }
                case "Track":
                    guard let length = progress?.duration else {
                        actions.append(.refuse("the desktop asked to repeat the track, but nothing is playing"))
                        return
                    }
                    actions.append(.request(.control(.loop(.absolute(0), .absolute(length)))))
                default:
                    actions.append(
                        .refuse("the desktop asked to repeat the playlist; chirper-play repeats a track or a section"))
                }
            }
        }

        /// The desktop's view of the rendered state, sent when it changed (with `Seeked` when the track moved
        /// other than by playing on).
        private mutating func refresh(
            _ playback: PlaybackState, recording: Recording?, masked: Bool, queue: PlayQueueState
        ) {
            guard case .on(let shown) = state else { return }
            var now = DesktopState.of(playback, recording: recording, masked: masked, queue: queue)
            if let folder = coverArtFolder, let file = coverArt.file(for: playback.item) {
                now.track?.artURL = CoverArtMachine.url(of: CoverArtMachine.path(of: file, in: folder))
            }
            guard now != shown else { return }
            let seeked = shown.map { now.seeked(from: $0) } ?? false
            state = .on(shown: now)
            actions.append(.publish(now, seeked: seeked))
        }

        /// What the cover art machine decided.
        private mutating func run(_ decided: [CoverArtMachine.Action]) {
            guard let folder = coverArtFolder else { return }
            for action in decided {
                switch action {
                case .draw(let item, let file):
                    actions.append(.drawCoverArt(file: file, item, path: CoverArtMachine.path(of: file, in: folder)))
                case .remove(let file):
                    actions.append(.removeCoverArt(path: CoverArtMachine.path(of: file, in: folder)))
                case .stop:
                    actions.append(.stopCoverArt)
                }
            }
        }
    }

    /// Hands `event` to the desktop, and does what it decided.
    mutating func run(desktop event: Desktop.Event) {
        for action in desktop.handle(event) {
            switch action {
            case .print(let lines): say(lines)
            case .refuse(let text): refuse(text)
            case .request(let request): ask(request)
            case .queue(let event): run(queue: event)
            case .stopAB: run(ab: .stop)
            case .search(let query): search(query)
            case .holdUntilListed:
                hold(.listSettles)
            case .playRow(let row):
                play(row: row)
            case .publish(let state, let seeked): emit(.publishDesktop(state, seeked: seeked))
            case .drawCoverArt(let file, let item, let path): emit(.drawCoverArt(file: file, item, path: path))
            case .removeCoverArt(let path): emit(.removeCoverArt(path: path))
            case .stopCoverArt: emit(.stopCoverArt)
            }
        }
    }

    /// The desktop's view of the rendered state, sent when it changed.
    mutating func refreshDesktop() {
        let recording = playing.flatMap { $0.ticket == playback.ticket ? $0.recording : nil }
        run(
            desktop: .refresh(
                playback, recording: recording, masked: masksPlayback(playback.ticket), queue: queue.state))
    }
}
