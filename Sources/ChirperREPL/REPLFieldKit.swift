import ChirperCatalog
import ChirperCore
import Foundation

/// The REPL's field kit effects: what the queue and the save machines decided.
extension REPL {
    /// Runs what the queue decided.
    func run(_ action: PlayQueueAction) {
        console.print(presenter.queue(action, queued: queue.state.items))
        guard case .play(let item, _, _) = action else { return }
        // The item is the recording queued, playable (only those are queued): it starts whatever the list is now.
        start(item.recording)
        if let ticket = playing?.ticket { _ = queue.handle(.started(ticket)) }
    }

    /// Runs what the save machine decided.
    func run(_ action: SaveBatchAction) {
        switch action {
        case .none:
            break
        case .refuse(let reason):
            console.print([presenter.refusal(reason)])
        case .done(let saved, let existing, let failed, let directory, let stopped):
            saveTask = nil
            console.print([
                presenter.saveDone(
                    saved: saved, existing: existing, failed: failed, directory: directory, stopped: stopped)
            ])
            gate.handle(.savingDone)
        case .save(let item, let directory, _, _, let batch):
            let recording = item.recording
            let saver = fieldKit.saver
            let sink = eventSink
            saveTask = Task {
                let outcome = await saver.save(recording, into: directory) { progress in
                    sink.yield(.saveProgress(batch: batch, progress))
                }
                sink.yield(.saveEnded(batch: batch, outcome))
            }
            if !console.isInteractive { gate.handle(.hold(.saving)) }
        }
    }
}
