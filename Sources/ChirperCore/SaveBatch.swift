/// What a save reports while it runs (rendered as `save:` lines).
public enum SaveProgress: Sendable, Hashable {
    /// A request for the bytes from `offset` went out (0: from the start; more: a `.part` is resumed).
    case fetching(label: String, offset: Int64, attempt: Int)
    /// Another quarter of the file arrived (25, 50, 75).
    case received(label: String, percent: Int)
}

/// How one save ended.
public enum SaveOutcome: Sendable, Hashable {
    /// The audio is under `file` (a path), with its sidecar beside it.
    case saved(label: String, file: String, bytes: Int64)
    /// A file of the final name was already there: left as it is, nothing fetched.
    case exists(label: String, file: String)
    /// Nothing was saved under the final name; the reason says what to do.
    case failed(label: String, reason: String)
}

/// One `save` command's rows, saved one after another.
public struct SaveBatchState: Sendable, Hashable {
    /// Counts one batch, so an outcome from a stopped batch is not taken for the next one's.
    public var batch: Int = 0
    public var items: [QueueItem] = []
    public var directory: String = ""
    /// The item being saved; nil when no save runs.
    public var current: Int?
    /// What the current item's save last reported; nil before its first report.
    public var progress: SaveProgress?
    public var saved = 0
    public var existing = 0
    public var failed = 0

    public init() {}

    /// A save is running.
    public var isBusy: Bool { current != nil }
}

/// The pure machine of `save`: one item at a time, in order; a failed item does not stop the others.
public struct SaveBatchMachine: Sendable {
    public private(set) var state = SaveBatchState()

    public init() {}

    public mutating func handle(_ event: Event) -> Action {
        switch event {
        case .start(let items, let directory):
            if let current = state.current {
                return .refuse(
                    "a save is running (\(current + 1) of \(state.items.count)); wait for it, or Ctrl-C stops it")
            }
            guard !items.isEmpty else { return .refuse("nothing to save: the selection has no rows") }
            let batch = state.batch + 1
            state = SaveBatchState()
            state.batch = batch
            state.items = items
            state.directory = directory
            return start(0)
        case .progress(let batch, let progress):
            if batch == state.batch, state.isBusy { state.progress = progress }
            return .nothing
        case .ended(let batch, let outcome):
            guard batch == state.batch, let current = state.current else { return .nothing }
            switch outcome {
            case .saved: state.saved += 1
            case .exists: state.existing += 1
            case .failed: state.failed += 1
            }
            guard current + 1 < state.items.count else { return finish(stopped: false) }
            return start(current + 1)
        case .stop:
            guard state.isBusy else { return .nothing }
            return finish(stopped: true)
        }
    }

    private mutating func start(_ index: Int) -> Action {
        state.current = index
        state.progress = nil
        return .save(
            state.items[index], directory: state.directory, position: index + 1, count: state.items.count,
            batch: state.batch)
    }

    private mutating func finish(stopped: Bool) -> Action {
        state.current = nil
        state.progress = nil
        return .done(
            saved: state.saved, existing: state.existing, failed: state.failed, directory: state.directory,
            stopped: stopped)
    }
}

extension SaveBatchMachine {
    public enum Event: Sendable, Hashable {
        /// `save 3-7 [DIR]`: save these rows into `directory`.
        case start([QueueItem], directory: String)
        /// The save of the current item of `batch` reported how far it is.
        case progress(batch: Int, SaveProgress)
        /// The save of the current item of `batch` ended.
        case ended(batch: Int, SaveOutcome)
        /// Ctrl-C: stop after the current request.
        case stop
    }
}

extension SaveBatchMachine {
    public enum Action: Sendable, Hashable {
        /// Save this item (`position` of `count`) in `directory`, as part of `batch`.
        case save(QueueItem, directory: String, position: Int, count: Int, batch: Int)
        /// The batch is over: the counts, for the summary line.
        case done(saved: Int, existing: Int, failed: Int, directory: String, stopped: Bool)
        case nothing
        case refuse(String)
    }
}
