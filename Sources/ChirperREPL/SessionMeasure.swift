import ChirperCatalog
import ChirperCore

extension SessionMachine {
    /// `select` and `measure` as a child of the session: a selection, Raven's measurements of it, and the
    /// session's selection table. The session finds the rows' recordings and the loop of what plays, and
    /// passes them in the events.
    struct Measure: Sendable {
        enum State: Sendable, Hashable {
            case idle
            /// Work `id` measures `selection`; `then`, in turn after it (`measure detections`).
            case measuring(id: Int, Selection, then: [Selection])
        }

        enum Event: Sendable, Hashable {
            /// `select`: the selection chosen, else `loop` (the loop of the recording playing, if any).
            case show(loop: Selection?)
            case clear
            /// `select <n> <a-b> [lo-hi]`: the selection found.
            case select(Selection)
            /// `measure`: the selection chosen, else `loop`.
            case measureCurrent(loop: Selection?)
            /// `measure <n> <a-b> [lo-hi]`: chosen and measured.
            case measure(Selection)
            /// `measure detections`: each measured in turn, each a row of the table.
            case measureAll([Selection])
            case list
            /// `measure save <path>`: the table written there (`~` expanded).
            case save(path: String)
            /// The measurement `id` ended.
            case measured(id: Int, Result<SelectionMeasurement, WorkFailure>)
            case interrupt
            /// The table was written (or why not).
            case written(path: String, SessionMachine.Outcome)
        }

        enum Action: Sendable, Hashable {
            case print([String])
            case refuse(String)
            /// A script's next line waits for the measurement.
            case hold
            /// The measurement is shown (or failed): a line waiting for it runs.
            case done
            case request(Request)
            case measure(id: Int, PlayItem, TimeSpan, FrequencyBand?)
            case cancel
        }

        let presenter: Presenter
        let interactive: Bool
        private(set) var state: State = .idle
        /// What `measure` measures when given nothing (`select`).
        private(set) var selection: Selection?
        /// The session's selection table: every measurement made, in order.
        private(set) var table: [MeasuredSelection] = []
        private var actions: [Action] = []

        init(presenter: Presenter, interactive: Bool) {
            self.presenter = presenter
            self.interactive = interactive
        }

        var isMeasuring: Bool { state != .idle }

        mutating func handle(_ event: Event, ids: inout WorkIDs) -> [Action] {
            switch event {
            case .show(let loop):
                if let selection = selection ?? loop {
                    actions.append(
                        .print([presenter.selection(selection.recording, span: selection.span, band: selection.band)]))
                } else {
                    actions.append(
                        .refuse("nothing is selected: select <n> <a-b> [lo-hi], or loop a b while a recording plays"))
                }
            case .clear:
                selection = nil
                actions.append(.print([presenter.selectionCleared()]))
            case .select(let chosen):
                selection = chosen
                actions.append(.print([presenter.selection(chosen.recording, span: chosen.span, band: chosen.band)]))
            case .measureCurrent(let loop):
                guard let chosen = selection ?? loop else {
                    actions.append(
                        .refuse(
                            "nothing is selected: measure <n> <a-b> [lo-hi], select one, or loop a b while a recording"
                                + " plays"))
                    break
                }
                start(chosen, ids: &ids)
            case .measure(let chosen):
                selection = chosen
                start(chosen, ids: &ids)
            case .measureAll(let chosen):
                guard let first = chosen.first else { break }
                start(first, then: Array(chosen.dropFirst()), ids: &ids)
            case .list:
                actions.append(.print(presenter.selectionTable(table)))
            case .save(let path):
                guard !table.isEmpty else {
                    actions.append(.refuse("the selection table is empty: measure a selection first"))
                    break
                }
                actions.append(.request(.writeText(RavenSelectionTable.text(table), path: path)))
            case .measured(let id, let result):
                measured(id: id, result, ids: &ids)
            case .interrupt:
                if isMeasuring { actions.append(.cancel) }
            case .written(let path, let outcome):
                if case .failure(let refusal) = outcome {
                    actions.append(.refuse(refusal.line))
                } else {
                    actions.append(.print([presenter.tableWritten(path, rows: table.count)]))
                }
            }
            defer { actions = [] }
            return actions
        }

        /// Measures `selection`, then `rest` in turn; a script's next line waits for the last (`holding`: this is
        /// the first).
        private mutating func start(
            _ selection: Selection, then rest: [Selection] = [], holding: Bool = true, ids: inout WorkIDs
        ) {
            let id = ids.next()
            state = .measuring(id: id, selection, then: rest)
            actions.append(.measure(id: id, selection.item, selection.span, selection.band))
            if holding, !interactive { actions.append(.hold) }
        }

        private mutating func measured(
            id: Int, _ result: Result<SelectionMeasurement, WorkFailure>, ids: inout WorkIDs
        ) {
            // A measurement replaced by a newer one ends quietly.
            guard case .measuring(let current, let selection, let rest) = state, current == id else { return }
            state = .idle
            switch result {
            case .success(let measurement):
                let recording = selection.recording
                let row = MeasuredSelection(
                    number: table.count + 1, recording: recording, measurement: measurement, name: selection.name)
                table.append(row)
                actions.append(.print(presenter.measurement(row, title: recording.title)))
            case .failure(.stopped):
                let left = rest.isEmpty ? "" : " (\(rest.count) more not measured)"
                actions.append(.refuse("measure stopped\(left)"))
                actions.append(.done)
                return
            case .failure(.failed(let message)):
                // One selection that cannot be measured (silent, say) does not stop the others.
                actions.append(.refuse(selection.name.map { "\($0): \(message)" } ?? message))
            }
            if let next = rest.first {
                start(next, then: Array(rest.dropFirst()), holding: false, ids: &ids)
                return
            }
            actions.append(.done)
        }
    }

    /// `select`: shows, clears or sets the selection.
    mutating func select(_ request: SelectRequest) {
        switch request {
        case .show:
            run(measure: .show(loop: loopSelection()))
        case .clear:
            run(measure: .clear)
        case .set(let request):
            guard let chosen = selection(request, for: "select") else { return }
            run(measure: .select(chosen))
        }
    }

    mutating func measure(_ request: MeasureRequest) {
        switch request {
        case .current:
            run(measure: .measureCurrent(loop: loopSelection()))
        case .selection(let request):
            guard let chosen = selection(request, for: "measure") else { return }
            run(measure: .measure(chosen))
        case .list:
            run(measure: .list)
        case .save(let path):
            run(measure: .save(path: expandingHome(path)))
        case .detections:
            measureDetections()
        }
    }

    /// The loop of the recording playing (its section, all frequencies), if one is set.
    private func loopSelection() -> Selection? {
        guard let playing, playback.ticket == playing.ticket, let loop = playback.progress?.loop,
            let item = playing.recording.playItem
        else { return nil }
        return Selection(
            recording: playing.recording, item: item, span: TimeSpan(start: loop.start, end: loop.end), band: nil)
    }

    /// A row's section and band, or nil after one line saying why.
    private mutating func selection(_ request: SelectionRequest, for command: String) -> Selection? {
        guard let recording = recordingToStudy(row: request.row, for: command) else { return nil }
        guard let item = recording.playItem else { return nil }
        if let duration = item.expectedDuration, request.span.start >= duration {
            refuse(
                "the selection starts after \(recording.label) ends (\(presenter.clock(duration))); select an earlier one"
            )
            return nil
        }
        return Selection(recording: recording, item: item, span: request.span, band: request.band)
    }

    /// Hands `event` to `select`/`measure`, and does what it decided.
    mutating func run(measure event: Measure.Event) {
        for action in measurements.handle(event, ids: &ids) {
            switch action {
            case .print(let lines): say(lines)
            case .refuse(let text): refuse(text)
            case .hold: hold(.measurement)
            case .done: gate.handle(.measurementDone)
            case .request(let request): ask(request)
            case .measure(let id, let item, let span, let band): emit(.measure(id: id, item, span, band))
            case .cancel: emit(.cancelMeasure)
            }
        }
    }
}
