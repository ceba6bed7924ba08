import ChirperCatalog
import ChirperCore

extension SessionMachine {
    /// `save` (the field kit) as a child of the session: one batch of recordings saved one after another,
    /// its report on the status line (a terminal) or as lines (a pipe). Its state is the
    /// ``SaveBatchMachine``'s.
    struct Saves: Sendable {
        enum Event: Sendable, Hashable {
            /// `save 3-7 [DIR]`: these rows into `directory` (`~` expanded).
            case start([QueueItem], directory: String)
            case progress(batch: Int, SaveProgress)
            case ended(batch: Int, SaveOutcome)
            /// Ctrl-C: the save stops; its `.part` stays, for a later save to resume.
            case interrupt
        }

        enum Action: Sendable, Hashable {
            case print([String])
            case refuse(String)
            /// A script's next line waits for the batch.
            case hold
            /// The batch is over: a line waiting for it runs.
            case done
            case save(Recording, directory: String, batch: Int)
            case cancel
            /// The save's report on the status line changed.
            case statusChanged
        }

        let presenter: Presenter
        let interactive: Bool
        private(set) var machine = SaveBatchMachine()
        private var actions: [Action] = []

        init(presenter: Presenter, interactive: Bool) {
            self.presenter = presenter
            self.interactive = interactive
        }

        var state: SaveBatchState { machine.state }

        mutating func handle(_ event: Event) -> [Action] {
            switch event {
            case .start(let items, let directory):
                run(machine.handle(.start(items, directory: directory)))
            case .progress(let batch, let progress):
                run(machine.handle(.progress(batch: batch, progress)))
                // A terminal shows the report on the status line, in place; a pipe gets a line for each.
                if !interactive, batch == state.batch, let current = state.current {
                    actions.append(.print([presenter.save(progress, position: current + 1, count: state.items.count)]))
                }
                actions.append(.statusChanged)
            case .ended(let batch, let outcome):
                if batch == state.batch, let current = state.current {
                    actions.append(.print([presenter.save(outcome, position: current + 1, count: state.items.count)]))
                }
                run(machine.handle(.ended(batch: batch, outcome)))
            case .interrupt:
                guard state.isBusy else { break }
                actions.append(.cancel)
                run(machine.handle(.stop))
            }
            defer { actions = [] }
            return actions
        }

        /// What the save machine decided.
        private mutating func run(_ action: SaveBatchMachine.Action) {
            switch action {
            case .nothing:
                break
            case .refuse(let reason):
                actions.append(.refuse(reason))
            case .done(let saved, let existing, let failed, let directory, let stopped):
                actions.append(
                    .print([
                        presenter.saveDone(
                            saved: saved, existing: existing, failed: failed, directory: directory, stopped: stopped)
                    ]))
                actions += [.done, .statusChanged]
            case .save(let item, let directory, _, _, let batch):
                actions.append(.save(item.recording, directory: directory, batch: batch))
                if !interactive { actions.append(.hold) }
                actions.append(.statusChanged)
            }
        }
    }

    /// Hands `event` to `save`, and does what it decided.
    mutating func run(saves event: Saves.Event) {
        for action in saves.handle(event) {
            switch action {
            case .print(let lines): say(lines)
            case .refuse(let text): refuse(text)
            case .hold: hold(.saving)
            case .done: gate.handle(.savingDone)
            case .save(let recording, let directory, let batch):
                emit(.save(recording, directory: directory, batch: batch))
            case .cancel: emit(.cancelSave)
            case .statusChanged: refreshStatus()
            }
        }
    }
}
