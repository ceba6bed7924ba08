import ChirperCore

/// `identify`, as part of the session machine: who is singing in a row, a measured selection or what plays,
/// heard by the classifier off the event loop, and shown per segment and per species.
extension SessionMachine {
    /// One stretch to identify.
    struct IdentifyTask: Sendable, Hashable {
        var recording: Recording
        var item: PlayItem
        /// nil: the whole recording.
        var span: TimeSpan?
        var options: IdentifyOptions
    }

    /// An identification the session showed: what was asked, and what was heard.
    struct Shown: Sendable, Hashable {
        var task: IdentifyTask
        var identification: Identification
    }

    /// `identify` as a child of the session.
    struct Identify: Sendable {
        enum State: Sendable, Hashable {
            /// Nothing identified yet.
            case idle
            /// Work `id` identifies `task`; `shown`, the last one shown before it, is still what is saved.
            case identifying(id: Int, IdentifyTask, shown: Shown?)
            /// The last identification shown, which `identify save` writes.
            case shown(Shown)
        }

        enum Event: Sendable, Hashable {
            /// `identify …`, its stretch found by the session.
            case identify(IdentifyTask)
            /// The identification `id` ended.
            case identified(id: Int, Result<Identification, WorkFailure>)
            case interrupt
            /// `identify save <path>` (`~` expanded).
            case save(path: String)
            /// The table of `selections` detections was written (or why not).
            case written(path: String, Result<Int, SessionMachine.Refusal>)
            /// `identify on`'s own events.
            case live(LiveIdentify.Event)
        }

        enum Action: Sendable, Hashable {
            case print([String])
            case refuse(String)
            /// A script's next line waits for the identification.
            case hold
            /// The identification is shown (or failed): a line waiting for it runs.
            case done
            case identify(id: Int, IdentifyTask)
            case cancel
            case request(Request)
            /// `identify on`: listen to what the player decodes; stop; where playback is.
            case listen(IdentifyOptions)
            case stopListening
            case played(LiveIdentify.Played)
        }

        let presenter: Presenter
        let interactive: Bool
        private(set) var state: State = .idle
        /// `identify on`.
        private(set) var live: LiveIdentify
        private var actions: [Action] = []

        init(presenter: Presenter, interactive: Bool) {
            self.presenter = presenter
            self.interactive = interactive
            live = LiveIdentify(presenter: presenter, interactive: interactive)
        }

        var isIdentifying: Bool {
            if case .identifying = state { true } else { false }
        }

        /// The last identification shown, if any.
        var lastShown: Shown? {
            switch state {
            case .idle: nil
            case .identifying(_, _, let shown): shown
            case .shown(let shown): shown
            }
        }

        mutating func handle(_ event: Event, ids: inout WorkIDs) -> [Action] {
            switch event {
            case .identify(let task):
                // A newer identification replaces one still running: its result is dropped by its id.
                let id = ids.next()
                state = .identifying(id: id, task, shown: lastShown)
                actions.append(.identify(id: id, task))
                if interactive {
                    actions.append(.print([presenter.identifying(task.recording, span: task.span)]))
                } else {
                    actions.append(.hold)
                }
            case .identified(let id, let result):
                guard case .identifying(let current, let task, let before) = state, current == id else { break }
                state = before.map { .shown($0) } ?? .idle
                switch result {
                case .success(let identification):
                    state = .shown(Shown(task: task, identification: identification))
                    actions.append(
                        .print(
                            presenter.identification(
                                identification, of: task.recording, span: task.span, all: task.options.all)))
                case .failure(.stopped):
                    actions.append(.refuse("identify stopped"))
                case .failure(.failed(let message)):
                    actions.append(.refuse(message))
                }
                actions.append(.done)
            case .interrupt:
                if case .identifying = state { actions.append(.cancel) }
            case .save(let path):
                guard let shown = lastShown else {
                    actions.append(
                        .refuse(
                            "nothing identified yet to save: identify a row first (identify 1), then identify save FILE"
                        ))
                    break
                }
                let recording = shown.task.recording
                let table = BirdNETSelectionTable.text(
                    shown.identification,
                    path: recording.ownFile?.path
                        ?? (recording.fileName.isEmpty ? recording.label : recording.fileName),
                    sampleRate: recording.ownFile?.header.sampleRate ?? Int(recording.sampleRate))
                actions.append(
                    .request(
                        .writeSelections(table, path: path, selections: shown.identification.detectionCount)))
            case .written(let path, .success(let selections)):
                actions.append(.print([presenter.selectionsWritten(path, selections: selections)]))
            case .written(_, .failure(let refusal)):
                actions.append(.refuse(refusal.line))
            case .live(let event):
                actions += live.handle(event).map(Self.action)
            }
            defer { actions = [] }
            return actions
        }
    }

    /// `identify …`: finds the stretch the request names, then hands it to the child.
    mutating func identify(_ request: IdentifyRequest) {
        let task: IdentifyTask
        var request = request
        request.options.speciesList = request.options.speciesList.map(expandingHome)
        switch request.target {
        case .save(let path):
            run(identify: .save(path: expandingHome(path)))
            return
        case .live(let on):
            run(identify: .live(on ? .on(request.options) : .off))
            refreshStatus()
            return
        case .playing:
            guard let playing, playback.ticket == playing.ticket, let item = playing.recording.playItem else {
                refuse("nothing plays: identify which row? e.g. identify 1 (or identify s1 for a selection)")
                return
            }
            guard !playing.masked else {
                refuse("identify would give the quiz's answer away: answer first (or quiz stop), then identify")
                return
            }
            let loop = playback.progress?.loop.map { TimeSpan(start: $0.start, end: $0.end) }
            task = IdentifyTask(recording: playing.recording, item: item, span: loop, options: request.options)
        case .row(let row, let span):
            guard let recording = recordingToStudy(row: row, for: "identify"), let item = recording.playItem else {
                return
            }
            task = IdentifyTask(recording: recording, item: item, span: span, options: request.options)
        case .selection(let number):
            let table = measurements.table
            guard number <= table.count else {
                refuse("there is no selection s\(number): the table has \(table.count) (measure list shows them)")
                return
            }
            let measured = table[number - 1]
            guard let item = measured.recording.playItem else { return }
            task = IdentifyTask(
                recording: measured.recording, item: item, span: measured.span, options: request.options)
        }
        run(identify: .identify(task))
    }

    /// Hands `event` to `identify`, and does what it decided.
    mutating func run(identify event: Identify.Event) {
        for action in identification.handle(event, ids: &ids) {
            switch action {
            case .print(let lines): say(lines)
            case .refuse(let text): refuse(text)
            case .hold: hold(.measurement)
            case .done: gate.handle(.measurementDone)
            case .identify(let id, let task): emit(.identify(id: id, task))
            case .cancel: emit(.cancelIdentify)
            case .request(let request): ask(request)
            case .listen(let options): emit(.listenLive(options))
            case .stopListening: emit(.stopLive)
            case .played(let played): emit(.livePlayed(played))
            }
        }
    }
}
