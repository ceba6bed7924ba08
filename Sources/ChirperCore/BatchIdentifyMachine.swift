/// A batch `identify` run over its plan: a few files at once, a line per file as each ends, and a summary; a
/// file that fails is said and the run goes on; Ctrl-C lets the files under way stop (their tables are never
/// put in place half written) and starts no other.
public struct BatchIdentifyMachine: Sendable {
    /// Where the run is. `identified`, `skipped` and `failed` count files.
    public struct Progress: Sendable, Hashable {
        public var waiting: [BatchIdentifyPlan.Item]
        public var running: Set<String> = []
        public var identified = 0
        public var skipped = 0
        public var failed = 0
    }

    public enum State: Sendable, Hashable {
        case ready
        case running(Progress)
        /// Ctrl-C: the files under way are stopping, no other starts.
        case stopping(Progress)
        case finished(status: Int32)
    }

    public enum Event: Sendable, Hashable {
        case start
        /// The file's table is written: what was heard in it.
        case identified(BatchIdentifyPlan.Item, segments: Int, detections: Int)
        /// The file could not be identified, or its table not written: one line why.
        case failed(BatchIdentifyPlan.Item, reason: String)
        /// The file stopped part-way on Ctrl-C; no table was written.
        case stopped(BatchIdentifyPlan.Item)
        case interrupt
    }

    public enum Action: Sendable, Hashable {
        case print(String)
        case identify(BatchIdentifyPlan.Item)
        /// Stop the files under way.
        case cancel
        /// The run is over: the process ends with this status.
        case exit(Int32)
    }

    public let plan: BatchIdentifyPlan
    public let jobs: Int
    public let shard: BatchIdentifyOptions.Shard
    /// Paths named or found that could not be read at all: failed before the run starts.
    public let unreadable: [SkippedFile]
    let presenter: BatchIdentifyLines
    public private(set) var state: State = .ready

    public init(
        plan: BatchIdentifyPlan, unreadable: [SkippedFile] = [], jobs: Int, shard: BatchIdentifyOptions.Shard,
        model: String
    ) {
        self.plan = plan
        self.unreadable = unreadable
        self.jobs = max(1, jobs)
        self.shard = shard
        self.presenter = BatchIdentifyLines(model: model)
    }

    /// The one line when no file can be identified at all (no model): why, and what to do.
    public static func unavailable(_ reason: String) -> String {
        "identify: failed reason=\(Presenter(style: .script, sourceName: "").quote(reason))"
    }

    public mutating func handle(_ event: Event) -> [Action] {
        var actions: [Action] = []
        switch (event, state) {
        case (.start, .ready):
            actions.append(.print(presenter.credit()))
            var progress = Progress(waiting: plan.toIdentify)
            for problem in unreadable {
                progress.failed += 1
                actions.append(.print(presenter.failed(path: problem.path, reason: problem.reason)))
            }
            for case .skip(let item) in plan.steps {
                progress.skipped += 1
                actions.append(.print(presenter.skipped(item)))
            }
            actions += startMore(&progress)
            actions += settle(progress, stopping: false)
        case (.identified(let item, let segments, let detections), .running(var progress)),
            (.identified(let item, let segments, let detections), .stopping(var progress)):
            guard progress.running.remove(item.source) != nil else { break }
            progress.identified += 1
            actions.append(.print(presenter.identified(item, segments: segments, detections: detections)))
            actions += next(progress)
        case (.failed(let item, let reason), .running(var progress)),
            (.failed(let item, let reason), .stopping(var progress)):
            guard progress.running.remove(item.source) != nil else { break }
            progress.failed += 1
            actions.append(.print(presenter.failed(path: item.source, reason: reason)))
            actions += next(progress)
        case (.stopped(let item), .running(var progress)), (.stopped(let item), .stopping(var progress)):
            guard progress.running.remove(item.source) != nil else { break }
            actions += next(progress)
        case (.interrupt, .running(var progress)):
            progress.waiting = []
            actions.append(.cancel)
            actions += settle(progress, stopping: true)
        default:
            break
        }
        return actions
    }

    /// After a file ended: the next one starts (unless stopping), or the run ends.
    private mutating func next(_ progress: Progress) -> [Action] {
        var progress = progress
        if case .stopping = state { return settle(progress, stopping: true) }
        let started = startMore(&progress)
        return started + settle(progress, stopping: false)
    }

    private func startMore(_ progress: inout Progress) -> [Action] {
        var actions: [Action] = []
        while progress.running.count < jobs, !progress.waiting.isEmpty {
            let item = progress.waiting.removeFirst()
            progress.running.insert(item.source)
            actions.append(.identify(item))
        }
        return actions
    }

    /// The state after a change; the summary and the exit once nothing runs.
    private mutating func settle(_ progress: Progress, stopping: Bool) -> [Action] {
        guard progress.running.isEmpty, progress.waiting.isEmpty || stopping else {
            state = stopping ? .stopping(progress) : .running(progress)
            return []
        }
        let status: Int32 = stopping ? 130 : (progress.failed > 0 ? 1 : 0)
        state = .finished(status: status)
        return [
            .print(presenter.summary(progress, total: plan.total, shard: shard, stopped: stopping)),
            .exit(status),
        ]
    }
}

/// The lines of a batch `identify` run: one per file and a summary, `key=value` as the session's script lines,
/// whether on a terminal or in a pipe (a field season's log is read by programs).
struct BatchIdentifyLines: Sendable {
    let model: String
    private let presenter = Presenter(style: .script, sourceName: "")

    func credit() -> String {
        "identify: model=\(presenter.quote(model)) credit=\(presenter.quote(Presenter.birdNETCredit))"
    }

    func identified(_ item: BatchIdentifyPlan.Item, segments: Int, detections: Int) -> String {
        "identify: file=\(presenter.quote(item.source)) segments=\(segments) detections=\(detections)"
            + " table=\(presenter.quote(item.table))"
    }

    func skipped(_ item: BatchIdentifyPlan.Item) -> String {
        "identify: skipped file=\(presenter.quote(item.source)) table=\(presenter.quote(item.table))"
            + " reason=\"table is newer\""
    }

    func failed(path: String, reason: String) -> String {
        "identify: failed file=\(presenter.quote(path)) reason=\(presenter.quote(reason))"
    }

    func summary(
        _ progress: BatchIdentifyMachine.Progress, total: Int, shard: BatchIdentifyOptions.Shard, stopped: Bool
    )
        -> String
    {
        let share = shard.count > 1 ? " shard=\(shard.index)/\(shard.count) of=\(total)" : ""
        return "identify: \(stopped ? "stopped" : "done") identified=\(progress.identified)"
            + " skipped=\(progress.skipped) failed=\(progress.failed)\(share)"
    }
}
