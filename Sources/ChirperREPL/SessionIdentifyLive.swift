import ChirperCore

/// `identify on`: while playing, the species heard in the segment that plays, in the status rows (a line per
/// segment heard in a pipe). The classifier hears the player's own decoded audio, ahead of playback; what is
/// shown is the segment that holds the position playback shows, looked up on the recording's grid, so a seek
/// shows what was heard there (or `listening…` until it is).
struct LiveIdentify: Sendable {
    /// Where playback was last said to be, as told to the listener.
    struct Played: Sendable, Hashable {
        var ticket: PlaybackTicket
        var index: Int
        /// The recording's last segment.
        var last: Bool
        /// Where and when the recording was made, for the place check.
        var place: RecordingPlace?
    }

    struct Listening: Sendable, Hashable {
        var options: IdentifyOptions
        /// The segments heard of each play request not yet over, by their index on the grid.
        var heard: [PlaybackTicket: [Int: LiveSegment]] = [:]
        var played: Played?
    }

    enum State: Sendable, Hashable {
        case off
        /// Asked on; the classifier is loading (what plays meanwhile waits for it).
        case loading(Listening)
        case listening(Listening)
    }

    /// What the listener reports.
    enum Report: Sendable, Hashable {
        /// The classifier is loaded.
        case ready
        case heard(LiveSegment)
        /// It stopped: the line says why.
        case failed(String)
    }

    enum Event: Sendable, Hashable {
        case on(IdentifyOptions)
        case off
        /// What the listener reported; `label` names the recording of a segment's play request, nil when it is
        /// not to be named (not what plays, or a quiz question).
        case report(Report, label: String?)
        /// Playback changed; `place` is where the recording that plays was made, when it says.
        case playback(PlaybackState, place: RecordingPlace?)
    }

    enum Action: Sendable, Hashable {
        case print([String])
        case refuse(String)
        /// A script's next line waits for the classifier to load (or fail), so that what it plays is heard.
        case hold
        case done
        /// Start listening to what the player decodes.
        case listen(IdentifyOptions)
        case stop
        /// Tell the listener where playback is (it drops the segments passed).
        case played(Played)
    }

    let presenter: Presenter
    let interactive: Bool
    private(set) var state: State = .off
    private var actions: [Action] = []

    init(presenter: Presenter, interactive: Bool) {
        self.presenter = presenter
        self.interactive = interactive
    }

    mutating func handle(_ event: Event) -> [Action] {
        switch (event, state) {
        case (.on(let options), .off):
            state = .loading(Listening(options: options))
            actions.append(.listen(options))
            if !interactive { actions.append(.hold) }
        case (.on, _):
            actions.append(.refuse("identify is on already: identify off stops it"))
        case (.off, .off):
            actions.append(.refuse("identify is not on: identify on shows who sings while a recording plays"))
        case (.off, .loading):
            state = .off
            actions += [.stop, .print(presenter.liveOff()), .done]
        case (.off, .listening):
            state = .off
            actions += [.stop, .print(presenter.liveOff())]
        case (.report(.ready, _), .loading(let listening)):
            state = .listening(listening)
            actions += [.print(presenter.liveOn()), .done]
        case (.report(.failed(let reason), _), .loading):
            state = .off
            actions += [.stop, .refuse(reason), .done]
        case (.report(.failed(let reason), _), .listening):
            state = .off
            actions += [.stop, .refuse(reason)]
        case (.report(.heard(let segment), let label), .listening(var listening)):
            // A segment of a play request over (a result late from the one before) is not kept.
            if let played = listening.played, segment.ticket < played.ticket { break }
            var track = listening.heard[segment.ticket] ?? [:]
            // A segment entered by a seek is heard again whole when played through: the one heard longer is kept.
            if let kept = track[segment.index], kept.heard > segment.heard { break }
            track[segment.index] = segment
            listening.heard[segment.ticket] = track
            state = .listening(listening)
            if !interactive, let label { actions.append(.print(presenter.liveHeard(segment, id: label))) }
        case (.playback(let playback, let place), .loading(var listening)):
            follow(playback, place: place, &listening)
            state = .loading(listening)
        case (.playback(let playback, let place), .listening(var listening)):
            follow(playback, place: place, &listening)
            state = .listening(listening)
        case (.report, _), (.playback, .off):
            break
        }
        defer { actions = [] }
        return actions
    }

    /// Tells the listener where playback went, when it entered another segment; forgets the play requests over.
    private mutating func follow(_ playback: PlaybackState, place: RecordingPlace?, _ listening: inout Listening) {
        guard let progress = playback.progress else { return }
        listening.heard = listening.heard.filter { $0.key >= progress.ticket }
        let index = LiveSegment.index(at: progress.position)
        let last =
            progress.duration.map {
                LiveSegment(ticket: progress.ticket, index: index, heard: 0, detections: []).end >= $0
            } ?? false
        let played = Played(ticket: progress.ticket, index: index, last: last, place: place)
        guard played != listening.played else { return }
        listening.played = played
        actions.append(.played(played))
    }

    /// What the status rows show of what plays: nil when off, or when nothing plays.
    func status(_ playback: PlaybackState) -> LiveIdentifyStatus? {
        let listening: Listening
        switch state {
        case .off: return nil
        case .loading(let loading): listening = loading
        case .listening(let heard): listening = heard
        }
        guard let progress = playback.progress else { return nil }
        let index = LiveSegment.index(at: progress.position)
        return listening.heard[progress.ticket]?[index].map { .heard($0) } ?? .listening
    }
}

extension SessionMachine.Identify {
    /// `identify on`'s actions as the child's own.
    static func action(_ live: LiveIdentify.Action) -> Action {
        switch live {
        case .print(let lines): .print(lines)
        case .refuse(let text): .refuse(text)
        case .hold: .hold
        case .done: .done
        case .listen(let options): .listen(options)
        case .stop: .stopListening
        case .played(let played): .played(played)
        }
    }
}

extension SessionMachine {
    /// What `identify on`'s listener reported, with the name of the recording it heard when it is what plays.
    mutating func listened(_ report: LiveIdentify.Report) {
        var label: String?
        if case .heard(let segment) = report, let playing, playing.ticket == segment.ticket,
            !masksPlayback(segment.ticket)
        {
            label = playing.recording.label
        }
        run(identify: .live(.report(report, label: label)))
        refreshStatus()
    }

    /// The status row of `identify on`, none while a quiz question plays (the species would answer it).
    func liveStatusRows(masked: Bool) -> [String] {
        guard !masked, let status = identification.live.status(playback) else { return [] }
        return presenter.liveStatus(status).map { [$0] } ?? []
    }
}
