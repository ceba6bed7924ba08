/// One queued row: its number in the list when it was queued, and the recording itself, so that what plays
/// (or is saved) is what was asked for, whatever the list shows by then.
public struct QueueItem: Sendable, Hashable {
    public var row: Int
    public var recording: Recording
    /// The label it is known by (for lines and refusals).
    public var label: String { recording.label }

    public init(row: Int, recording: Recording) {
        self.row = row
        self.recording = recording
    }
}

/// Where the queue is.
public enum PlayQueuePhase: Sendable, Hashable {
    /// Nothing queued.
    case empty
    /// Item `index` was started and has not ended.
    case playing(index: Int)
    /// Item `index` ended (autoplay off) or was stopped: `next`/`prev` go on from here, nothing starts by itself.
    case holding(index: Int)
    /// The last item ended with autoplay on; `prev` still works.
    case finished
}

/// The queue's state: the items, where it is, and whether an ended track starts the next.
public struct PlayQueueState: Sendable, Hashable {
    public var items: [QueueItem]
    public var phase: PlayQueuePhase
    public var autoplay: Bool
    /// The play request of the item the queue started, once the player has it: its end moves the queue.
    public var ticket: PlaybackTicket?

    public init(items: [QueueItem] = [], phase: PlayQueuePhase = .empty, autoplay: Bool = true) {
        self.items = items
        self.phase = phase
        self.autoplay = autoplay
    }

    /// An item the queue started has not ended yet.
    public var isPlaying: Bool {
        if case .playing = phase { return true }
        return false
    }
}

/// The pure play queue: events in, one action out. The runner starts what `.play` names, says which play
/// request that became (`started`), and reports every request's end (`trackEnded`): the machine knows which
/// is its own.
public struct PlayQueueMachine: Sendable {
    public private(set) var state: PlayQueueState

    public init(state: PlayQueueState = PlayQueueState()) {
        self.state = state
    }

    public mutating func handle(_ event: Event) -> Action {
        switch event {
        case .enqueue(let items):
            guard !items.isEmpty else { return .refuse("nothing to queue: the selection has no playable rows") }
            state.items = items
            return start(0, fresh: true)
        case .started(let ticket):
            if case .playing = state.phase { state.ticket = ticket }
            return .nothing
        case .trackEnded(let ticket):
            guard case .playing(let index) = state.phase, state.ticket == ticket else {
                // A track ended that the queue did not start (or already stopped): nothing to advance.
                return .nothing
            }
            state.ticket = nil
            guard state.autoplay else {
                state.phase = .holding(index: index)
                return .nothing
            }
            guard index + 1 < state.items.count else {
                state.phase = .finished
                return .finished
            }
            return start(index + 1)
        case .goTo(let index):
            guard state.items.indices.contains(index) else {
                return .refuse("the queue has no item \(index + 1); it has \(state.items.count)")
            }
            return start(index)
        case .next:
            switch state.phase {
            case .empty:
                return .refuse("the queue is empty; queue rows with play 3-7 or play all")
            case .finished:
                return .refuse("the queue is finished; prev goes back, play 3-7 starts a new one")
            case .playing(let index), .holding(let index):
                guard index + 1 < state.items.count else {
                    return .refuse("\(state.items[index].label) is the last in the queue; prev goes back")
                }
                return start(index + 1)
            }
        case .prev:
            switch state.phase {
            case .empty:
                return .refuse("the queue is empty; queue rows with play 3-7 or play all")
            case .finished:
                return start(state.items.count - 1)
            case .playing(let index), .holding(let index):
                guard index > 0 else {
                    return .refuse("\(state.items[index].label) is the first in the queue; next goes on")
                }
                return start(index - 1)
            }
        case .autoplay(let on):
            state.autoplay = on
            return .autoplayChanged(on)
        case .stop:
            if case .playing(let index) = state.phase { state.phase = .holding(index: index) }
            state.ticket = nil
            return .nothing
        case .listReplaced:
            let held = !state.items.isEmpty
            state.items = []
            state.phase = .empty
            state.ticket = nil
            return held ? .cleared : .nothing
        }
    }

    private mutating func start(_ index: Int, fresh: Bool = false) -> Action {
        state.phase = .playing(index: index)
        state.ticket = nil
        return .play(state.items[index], position: index + 1, count: state.items.count, fresh: fresh)
    }
}

extension PlayQueueMachine {
    /// What happens to the queue.
    public enum Event: Sendable, Hashable {
        /// `play 3-7`, `play all`, `play 3`: the queue becomes these items and the first starts.
        case enqueue([QueueItem])
        /// The item the queue started was handed to the player as play request `ticket`.
        case started(PlaybackTicket)
        /// Play request `ticket` ended (or failed: the queue goes on past a bad recording the same way). Only the
        /// end of the request the queue started moves it; any other is not the queue's.
        case trackEnded(PlaybackTicket)
        case next
        case prev
        /// Play item `index` (0-based) of the queue (the desktop's track list `GoTo`).
        case goTo(Int)
        case autoplay(Bool)
        /// `stop`: the track stops, the queue stays and holds where it is.
        case stop
        /// A new search replaced the list: the queued rows no longer mean anything.
        case listReplaced
    }
}

extension PlayQueueMachine {
    /// What the runner does.
    public enum Action: Sendable, Hashable {
        /// Start this item (1-based `position` of `count`, for the line `queue: 2/5 XC254462`).
        /// `fresh`: the first item of a queue just made (its lines say what was queued); not when `prev` or
        /// `GoTo` comes back to the first.
        case play(QueueItem, position: Int, count: Int, fresh: Bool = false)
        /// The last item ended: print `queue: finished`.
        case finished
        /// Autoplay was set: print `queue: autoplay on|off`.
        case autoplayChanged(Bool)
        /// The queue was dropped (new list): print nothing, or `queue: cleared` when it held items.
        case cleared
        case nothing
        /// One line saying why, and what to type instead.
        case refuse(String)
    }
}
