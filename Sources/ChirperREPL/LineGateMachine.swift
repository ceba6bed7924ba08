import ChirperCore

/// Which typed line runs when: a pure machine of the REPL session.
///
/// Lines are queued as they are typed and run one at a time. In a script (a pipe), a command that starts
/// something the next line may depend on (a search, `wait`, `sono`, `save`) holds the lines behind it until
/// that has settled, so a script reads as a sequence; a terminal only waits for `wait`. End of input quits once
/// every queued line ran and nothing holds them.
struct LineGateMachine: Sendable {
    /// What holds the lines back.
    enum Blocker: Sendable, Hashable {
        /// Until the list is no longer loading.
        case listSettles
        /// Until the rendered state shows that this play request (or a later one) has ended.
        case playbackEnds(PlaybackTicket)
        /// Until the `sono` being computed is printed.
        case sonogram
        /// Until the `measure` being computed is printed.
        case measurement
        /// Until the save batch is over.
        case saving
        /// Until the queue is no longer playing (its last item ended, or it was stopped).
        case queueEnds
        /// Until the quiz's deck is built (or could not be), or a sono-mode question's pictures are drawn.
        case quiz
    }

    enum Event: Sendable, Hashable {
        /// A line was typed (or read from the pipe).
        case typed(String)
        /// The input ended (Ctrl-D, or the end of the pipe).
        case inputEnded
        /// The command just run started something the lines behind it wait for.
        case hold(Blocker)
        /// The list store changed.
        case listChanged(busy: Bool)
        /// The rendered playback state changed; `queuePlaying`: the queue still plays an item it started.
        case playbackChanged(PlaybackState, queuePlaying: Bool)
        /// A `sono` was printed (or failed).
        case sonogramDone
        /// A `measure` was printed (or failed).
        case measurementDone
        /// The save batch ended.
        case savingDone
        /// The quiz's deck was built, or refused; or its pictures were drawn.
        case quizReady
        /// Ctrl-C stopped playback: a `wait` for it is over.
        case playbackStopped
    }

    enum Action: Sendable, Hashable {
        /// Nothing runs now.
        case nothing
        /// Run this line (then ask again).
        case run(String)
        /// The input ended and everything ran: leave.
        case quit
    }

    private(set) var queued: [String] = []
    private(set) var blocker: Blocker?
    private(set) var inputEnded = false

    init() {}

    mutating func handle(_ event: Event) {
        switch event {
        case .typed(let line):
            queued.append(line)
        case .inputEnded:
            inputEnded = true
        case .hold(let blocker):
            self.blocker = blocker
        case .listChanged(let busy):
            if blocker == .listSettles, !busy { blocker = nil }
        case .playbackChanged(let state, let queuePlaying):
            // Only the end of the awaited request (or of a later one) ends a wait: an update queued before the
            // last `play` carries an older ticket.
            if case .playbackEnds(let awaited) = blocker, !state.isActive, let ticket = state.ticket,
                ticket >= awaited
            {
                blocker = nil
            }
            if blocker == .queueEnds, !queuePlaying { blocker = nil }
        case .sonogramDone:
            if blocker == .sonogram { blocker = nil }
        case .measurementDone:
            if blocker == .measurement { blocker = nil }
        case .savingDone:
            if blocker == .saving { blocker = nil }
        case .quizReady:
            if blocker == .quiz { blocker = nil }
        case .playbackStopped:
            if case .playbackEnds = blocker { blocker = nil }
        }
    }

    /// The next line to run, if nothing holds the lines; `quit` once the input ended and all of it ran.
    mutating func next() -> Action {
        guard blocker == nil else { return .nothing }
        if !queued.isEmpty { return .run(queued.removeFirst()) }
        return inputEnded ? .quit : .nothing
    }
}
