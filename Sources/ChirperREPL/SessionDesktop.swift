import ChirperCatalog
import ChirperCore

/// The desktop (MPRIS), as part of the session machine: a D-Bus call becomes what the typed command does, and
/// the rendered state becomes the desktop's properties.
extension SessionMachine {
    mutating func desktop(_ command: DesktopCommand) {
        let progress = playback.progress
        switch command {
        case .playPause, .play, .pause:
            if case .paused = playback {
                if command != .pause { ask(.control(.resume)) }
            } else if progress != nil {
                if command != .play { ask(.control(.pause)) }
            } else if command != .pause, let playing, !playing.masked, let item = playing.recording.playItem {
                // Stopped: play what played last again, as a player's Play key does.
                ask(.play(item, playing.recording, forQueue: false))
            }
        case .stop:
            _ = queue.handle(.stop)
            ab.stop()
            if progress != nil { ask(.stop(.quiet)) }
        case .next:
            ab.stop()
            run(queue.handle(.next))
        case .previous:
            ab.stop()
            run(queue.handle(.prev))
        case .seek(let offset):
            ask(.control(.seek(.relative(Double(offset) / 1_000_000))))
        case .setPosition(let track, let position):
            // MPRIS: a position for another track, or outside this one, is ignored.
            guard let shown = shownDesktop, track == shown.trackID, position >= 0 else { return }
            let seconds = Double(position) / 1_000_000
            if let length = shown.track?.length, seconds > length {
                refuse("the desktop asked for \(presenter.clock(seconds)), past the end; nothing changed")
                return
            }
            ask(.control(.seek(.absolute(seconds))))
        case .setRate(let rate):
            let mode = progress?.settings.speed.mode ?? .tape
            switch PlaybackSpeed.parse([String(rate), mode.rawValue]) {
            case .success(let speed): ask(.control(.speed(speed)))
            case .failure(let error): refuse("the desktop asked for rate \(rate): \(error.message)")
            }
        case .setVolume(let volume):
            ask(.control(.volume(Int((min(1, max(0, volume)) * 100).rounded()))))
        case .openURI(let uri):
            guard let number = DesktopCommand.xenoCantoNumber(uri) else {
                let shown = TerminalText.sanitize(String(uri.prefix(80)))
                refuse(
                    "the desktop asked to open \(shown): only xeno-canto pages (https://xeno-canto.org/254462) and XC"
                        + " numbers are opened")
                return
            }
            // Found as `search nr:N` finds it, then played once the list has settled.
            search(SearchQuery(terms: [SearchQuery.Term(tag: "nr", value: String(number))]))
            hold(.listSettles)
            gate.handle(.typed("play 1"))
        case .goTo(let track):
            guard let index = shownDesktop?.tracks.firstIndex(where: { $0.id == track }) else { return }
            ab.stop()
            run(queue.handle(.goTo(index)))
        case .setLoop(let status):
            switch status {
            case "None":
                if progress?.loop != nil { ask(.control(.loopOff)) }
            case "Track":
                guard let length = progress?.duration else {
                    refuse("the desktop asked to repeat the track, but nothing is playing")
                    return
                }
                ask(.control(.loop(.absolute(0), .absolute(length))))
            default:
                refuse("the desktop asked to repeat the playlist; chirper-play repeats a track or a section")
            }
        }
    }

    /// The desktop's view of the rendered state, sent when it changed (with `Seeked` when the track moved
    /// other than by playing on).
    mutating func refreshDesktop() {
        guard setup.desktop else { return }
        let recording = playing.flatMap { $0.ticket == playback.ticket ? $0.recording : nil }
        var state = DesktopState.of(
            playback, recording: recording, masked: masksPlayback(playback.ticket), queue: queue.state)
        if let folder = setup.coverArtFolder, let file = coverArt.file(for: playback.item) {
            state.track?.artURL = CoverArtMachine.url(of: CoverArtMachine.path(of: file, in: folder))
        }
        guard state != shownDesktop else { return }
        let seeked = shownDesktop.map { state.seeked(from: $0) } ?? false
        shownDesktop = state
        emit(.publishDesktop(state, seeked: seeked))
    }

    /// What the cover art machine decided.
    mutating func run(_ actions: [CoverArtMachine.Action]) {
        guard let folder = setup.coverArtFolder else { return }
        for action in actions {
            switch action {
            case .draw(let item, let file):
                emit(.drawCoverArt(file: file, item, path: CoverArtMachine.path(of: file, in: folder)))
            case .remove(let file):
                emit(.removeCoverArt(path: CoverArtMachine.path(of: file, in: folder)))
            case .stop:
                emit(.stopCoverArt)
            }
        }
    }
}
