/// What keeps one PulseAudio playback stream's audio from being heard, which track has it, and when it is kept
/// for the next track: a pure machine. ``PulseStreamState`` runs its actions on the stream.
///
/// A track's output holds a *lease* on the stream. When the track stops, a ready stream is emptied and
/// *parked* for the next track of the same format (no round trips to the server for it); the parked stream
/// waits uncorked, ready to play at once, and is corked once it has idled (so the sink may sleep). An output
/// of an earlier lease finds the stream gone.
struct PulseStreamMachine: Sendable, Hashable {
    enum Gate: Sendable, Hashable {
        /// The client hands nothing to the server (it keeps what is written in its queue); the server's stream
        /// is uncorked, empty and waiting for its prebuffer. `start` hands the audio over and the server plays
        /// it at once: no round trip to uncork first. Every track begins here, and a parked stream waits here.
        case held
        /// The server holds the stream (corked): audio may be handed over, and is not played. After `pause`,
        /// and for a parked stream that has idled.
        case corked
        /// Playing: what is written is handed to the server as it asks for it.
        case open
    }

    enum Event: Sendable, Hashable {
        /// The output of `lease` lets the stream play.
        case start(lease: Int)
        /// The output of `lease` silences the stream, keeping what is queued.
        case pause(lease: Int)
        /// The output of `lease` stops. `ready`: the server has the stream; `canPark`: the connection can keep
        /// it for the next track.
        case stop(lease: Int, ready: Bool, canPark: Bool)
        /// The parked stream is taken by a new track.
        case reuse
        /// The parked stream waited long enough: let the sink sleep.
        case idled
        /// The server ran out of audio.
        case underflow
    }

    enum Action: Sendable, Hashable {
        /// Ask the server to hold the stream (in order with what follows).
        case cork
        case uncork
        /// The server drops what it holds.
        case flush
        /// Hand queued audio to the server, as far as it asks for it.
        case hand
        /// Keep the stream for the next track: this lease's queue and waiters are dropped.
        case park
        /// Disconnect and release the stream.
        case tearDown
        /// Lease `lease` begins: its time starts now, nothing handed yet, its underrun handler set.
        case beginLease(Int)
        /// Tell the track: an underrun.
        case reportUnderrun
    }

    private(set) var gate: Gate = .held
    /// Counts the uses of the stream: the first track's output has lease 0.
    private(set) var lease = 0
    /// Kept, empty, for the next track; no output has it.
    private(set) var parked = false

    init() {}

    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .start(let lease):
            guard lease == self.lease, !parked, gate != .open else { return [] }
            return move(to: .open) + [.hand]
        case .pause(let lease):
            guard lease == self.lease, !parked else { return [] }
            return move(to: .corked)
        case .stop(let lease, let ready, let canPark):
            guard lease == self.lease, !parked else { return [] }
            var actions: [Action] = []
            // Silenced at once. Corked before the flush, then held again: a flush alone (uncorked) made
            // PulseAudio 16 report an underflow some milliseconds later, which could reach the next track as a
            // false underrun (30 stops: 9 underflows; corked first: none). A held stream has been handed nothing.
            if ready, gate != .held { actions += move(to: .corked) + [.flush] + move(to: .held) }
            guard ready, canPark else { return actions + [.tearDown] }
            parked = true
            self.lease += 1
            return actions + [.park]
        case .reuse:
            guard parked else { return [] }
            parked = false
            lease += 1
            // If it idled long enough to be corked, uncorked now, while the track's start is decoded.
            return move(to: .held) + [.beginLease(lease)]
        case .idled:
            guard parked, gate == .held else { return [] }
            return move(to: .corked)
        case .underflow:
            // While held, nothing of this track has been handed over: the server's empty stream is not an underrun.
            return gate == .held || parked ? [] : [.reportUnderrun]
        }
    }

    /// Moves the gate: the server's stream is corked for `.corked` only.
    private mutating func move(to new: Gate) -> [Action] {
        defer { gate = new }
        let corked = new == .corked
        guard corked != (gate == .corked) else { return [] }
        return [corked ? .cork : .uncork]
    }
}
