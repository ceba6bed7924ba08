import ChirperCore

/// `ab`: two sections heard in turn, A, B, A, B …, each played once to its end, with a gap between, until
/// stopped. A pure machine of the REPL session: it says what to play and when to wait; the session asks the
/// player and keeps time with the runner's clock.
struct ABMachine: Sendable, Hashable {
    /// One side: a section of a recording (only its band is heard, when it has one).
    typealias Side = SessionMachine.Selection

    enum State: Sendable, Hashable {
        case off
        /// Side `side` was asked for; its play request is not answered yet.
        case starting(side: Int)
        /// Side `side` plays as request `ticket`.
        case playing(side: Int, ticket: PlaybackTicket)
        /// The gap after a side; `round` names this gap, so a late end of an older one is not taken for it.
        case gap(next: Int, round: Int)
    }

    enum Event: Sendable, Hashable {
        /// `ab a b [gap]`.
        case start([Side], gap: Double)
        /// The play request of a side was answered as `ticket`.
        case started(PlaybackTicket)
        /// Play request `ticket` ended (as rendered), its last sample heard `late` seconds before.
        case ended(PlaybackTicket, finished: Bool, late: Double)
        case gapEnded(round: Int)
        /// `stop`, Ctrl-C, another `play`.
        case stop
    }

    enum Action: Sendable, Hashable {
        case nothing
        /// Play `side` (its index: 0 is A) from its start to its end, once.
        case play(Side, index: Int)
        /// The side asked for plays: only its section is heard.
        case section(Side)
        /// Wait `seconds`, then report the end of gap `round`.
        case wait(seconds: Double, round: Int)
        /// Stopped in a gap: no side plays, so nothing is there for the player to stop.
        case stoppedBetweenSides
    }

    private(set) var sides: [Side] = []
    private(set) var state: State = .off
    private(set) var gap = 0.5
    private var rounds = 0

    mutating func handle(_ event: Event) -> Action {
        switch event {
        case .start(let sides, let gap):
            return start(sides, gap: gap)
        case .started(let ticket):
            guard case .starting(let index) = state else { return .nothing }
            started(ticket)
            return .section(sides[index])
        case .ended(let ticket, let finished, let late):
            return ended(ticket, finished: finished, late: late)
        case .gapEnded(let round):
            return gapEnded(round: round)
        case .stop:
            let between = if case .gap = state { true } else { false }
            stop()
            return between ? .stoppedBetweenSides : .nothing
        }
    }

    /// `ab a b [gap]`: starts with A.
    mutating func start(_ sides: [Side], gap: Double) -> Action {
        guard let first = sides.first else { return .nothing }
        self.sides = sides
        self.gap = gap
        state = .starting(side: 0)
        return .play(first, index: 0)
    }

    /// The play request of the side asked for was answered.
    mutating func started(_ ticket: PlaybackTicket) {
        guard case .starting(let side) = state else { return }
        state = .playing(side: side, ticket: ticket)
    }

    /// Play request `ticket` ended (as rendered), its last sample heard `late` seconds before. A side that played
    /// to its end leads to the gap, counted from when the sound stopped: what is left of it is waited, and a
    /// gap already over starts the next side at once. One that was stopped, or failed, ends A/B listening.
    mutating func ended(_ ticket: PlaybackTicket, finished: Bool, late: Double = 0) -> Action {
        guard case .playing(let side, let playing) = state, playing == ticket else { return .nothing }
        guard finished else {
            state = .off
            return .nothing
        }
        rounds += 1
        let next = (side + 1) % sides.count
        // To the millisecond: finer is beyond what a timer keeps.
        let left = ((gap - max(0, late)) * 1000).rounded() / 1000
        guard left > 0 else {
            state = .starting(side: next)
            return .play(sides[next], index: next)
        }
        state = .gap(next: next, round: rounds)
        return .wait(seconds: left, round: rounds)
    }

    /// Gap `round` is over: the next side.
    mutating func gapEnded(round: Int) -> Action {
        guard case .gap(let next, let current) = state, current == round else { return .nothing }
        state = .starting(side: next)
        return .play(sides[next], index: next)
    }

    /// `stop`, Ctrl-C, another `play`: A/B listening ends.
    mutating func stop() {
        state = .off
    }

    var isOn: Bool { state != .off }

    /// The side heard now (0: A), if one plays.
    var heard: Int? {
        if case .playing(let side, _) = state { return side }
        return nil
    }
}
