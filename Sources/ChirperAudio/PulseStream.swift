import ChirperCore
import CPulse

/// One stream's state, shared with libpulse's callbacks; guarded by the main loop's lock. It stays
/// registered with the connection until libpulse reports the stream terminated or failed, so a callback
/// never sees freed memory. The continuations waiting on the stream are in `waiters`, under their own lock.
// @unchecked: the mutable fields are read and written only with the main loop locked (callbacks run with it
// held), a C lock the compiler cannot see; `waiters` is Sendable.
final class PulseStreamState: @unchecked Sendable {
    enum Phase {
        case connecting
        case ready
        case failed(AudioSinkError)
        case closed
    }

    let format: PCMFormat
    /// The gate, the lease and parking (see `PulseStreamMachine`); changed only through `handle`.
    private(set) var machine = PulseStreamMachine()
    var gate: PulseStreamMachine.Gate { machine.gate }
    /// Which track's output has the stream: an output of an earlier lease finds it gone.
    var lease: Int { machine.lease }
    /// The track's underrun handler; a parked stream has none.
    var onUnderrun: @Sendable () -> Void
    let waiters = PulseWaiters()
    /// The stream's time when this lease began: what this track has played is the time since.
    var timeBase: pa_usec_t = 0
    /// Bytes this lease has handed to the server: no more than these can have been played.
    var handedBytes = 0
    var stream: OpaquePointer?
    var phase: Phase = .connecting
    /// Called when the stream is gone for good (to unregister it).
    var onGone: (() -> Void)?

    /// Audio accepted by `write` and not yet handed to the server, at most `capacity` bytes (whole frames); the
    /// server itself holds only about `PulseConnection.latency` more.
    var queue: ByteRing
    var capacity: Int { queue.capacity }
    var frameBytes: Int { format.channels * 2 }
    var pending: Int { queue.count }
    /// A waiting writer is woken once this much room is free (a quarter of the queue), so that it hands over
    /// large pieces instead of waking for every few milliseconds the server takes.
    var wakeRoom: Int { max(frameBytes, capacity / 4 / frameBytes * frameBytes) }

    /// - Parameters:
    ///   - capacity: bytes queued here at most, a multiple of a frame (see `PulseConnection.openStream`).
    ///   - elapsed: the connection's clock, to time when a draining stream ran dry.
    init(
        format: PCMFormat, capacity: Int, elapsed: @escaping @Sendable () -> Duration,
        onUnderrun: @escaping @Sendable () -> Void
    ) {
        self.format = format
        self.queue = ByteRing(capacity: capacity)
        self.elapsed = elapsed
        self.onUnderrun = onUnderrun
    }

    /// What a waiting operation gets now instead of waiting, if anything: the stream's failure, or `.ended`
    /// once it is closed.
    var ending: Result<PulseWaiters.Answer, AudioSinkError>? {
        switch phase {
        case .failed(let error): .failure(error)
        case .closed: .success(.ended)
        case .connecting, .ready: nil
        }
    }

    /// The same for an output of lease `lease`, whose use of the stream has ended once a later track has it.
    func ending(forLease lease: Int) -> Result<PulseWaiters.Answer, AudioSinkError>? {
        self.lease == lease ? ending : .success(.ended)
    }

    /// The stream's current time (main loop locked), or nil before the server has told it.
    var time: pa_usec_t? {
        guard let stream, case .ready = phase else { return nil }
        var microseconds: pa_usec_t = 0
        return pa_stream_get_time(stream, &microseconds) == 0 ? microseconds : nil
    }

    var isReady: Bool {
        if case .ready = phase { return true }
        return false
    }

    /// Takes `event` (main loop locked) and does what the machine decided; returns it.
    @discardableResult
    func handle(_ event: PulseStreamMachine.Event, into resumptions: inout PulseResumptions)
        -> [PulseStreamMachine.Action]
    {
        let actions = machine.handle(event)
        for action in actions { perform(action, into: &resumptions) }
        return actions
    }

    private func perform(_ action: PulseStreamMachine.Action, into resumptions: inout PulseResumptions) {
        switch action {
        case .cork, .uncork:
            // In order with what follows; a stream the server has not made ready yet starts uncorked.
            if let stream, isReady, let operation = pa_stream_cork(stream, action == .cork ? 1 : 0, nil, nil) {
                pa_operation_unref(operation)
            }
        case .flush:
            if let stream, let operation = pa_stream_flush(stream, nil, nil) { pa_operation_unref(operation) }
        case .hand:
            pump(into: &resumptions)
        case .park:
            onUnderrun = {}
            if case .asked = drain { drain = .leftBehind }
            endAll(.success(.ended), into: &resumptions)
            queue.removeAll()
        case .tearDown:
            tearDown(into: &resumptions)
        case .beginLease:
            timeBase = time ?? 0
            handedBytes = 0
        case .reportUnderrun:
            onUnderrun()
        }
    }

    /// The stream's one teardown (main loop locked): disconnected if it was connecting or ready, its waiters
    /// answered (with the stream's failure, or `.ended`), its queue dropped and its handle released. The state
    /// stays registered with the connection until libpulse reports the stream terminated, so no callback sees
    /// freed memory. Nothing happens to a stream already torn down.
    func tearDown(into resumptions: inout PulseResumptions) {
        guard let handle = stream else { return }
        let answer = ending ?? .success(.ended)
        switch phase {
        case .connecting, .ready:
            phase = .closed
            pa_stream_disconnect(handle)
        case .failed, .closed:
            break
        }
        endAll(answer, into: &resumptions)
        queue.removeAll()
        stream = nil
        pa_stream_unref(handle)
    }

    /// Takes every waiter out, to be answered with `answer`.
    func endAll(_ answer: Result<PulseWaiters.Answer, AudioSinkError>, into resumptions: inout PulseResumptions) {
        resumptions.resume(waiters.takeAll(), with: answer)
    }

    /// Hands queued audio to the server as far as it asks for it (main loop locked), unless the gate holds
    /// it here. Wakes a writer when there is room again.
    func pump(into resumptions: inout PulseResumptions) {
        guard let stream, case .ready = phase, gate != .held else { return }
        var writable = pa_stream_writable_size(stream)
        while writable != -1, pending >= frameBytes, writable >= frameBytes {
            // The oldest piece of the queue that lies in one run (the ring's end splits it in two at most).
            var status: Int32 = 0
            var handed = 0
            queue.consume(upTo: writable / frameBytes * frameBytes) { piece in
                status = pa_stream_write(stream, piece.baseAddress!, piece.count, nil, 0, PA_SEEK_RELATIVE)
                handed = status < 0 ? 0 : piece.count
                return handed
            }
            if status < 0 {
                let error = AudioSinkError.soundServerLost(detail: PulseError.message(status))
                phase = .failed(error)
                endAll(.failure(error), into: &resumptions)
                return
            }
            handedBytes += handed
            writable -= handed
        }
        if pending + wakeRoom <= capacity {
            resumptions.resume(waiters.take(.space), with: .success(.came))
        }
    }

    /// The server's drain of the stream. It keeps one drain request per stream: a second one asked for while
    /// the first is unanswered replaces it, and the first is never answered (libpulse fails it after its 30 s
    /// timeout). So at most one is in flight, and one that a stop or a park left behind is waited out.
    enum Drain {
        /// None in flight.
        case none
        /// In flight for the drain waiting now: its answer is that waiter's.
        case asked
        /// In flight for an earlier waiter or lease: its answer is no one's; a drain due meanwhile is asked then.
        case leftBehind
    }

    private(set) var drain = Drain.none
    let elapsed: @Sendable () -> Duration
    /// When (on `elapsed`) the server said the stream ran dry after the drain was asked for: it had played the
    /// last sample. The server acknowledges the drain only a period or two of its sink later.
    var ranDryAt: Duration?

    /// Seconds since the draining stream ran dry, 0 if it has not said so.
    var sinceRanDry: Double {
        guard let ranDryAt else { return 0 }
        let since = elapsed() - ranDryAt
        return max(0, Double(since.components.seconds) + Double(since.components.attoseconds) / 1e18)
    }

    /// Asks the server to drain once that is due: a drain waits, everything queued here is handed over, none is
    /// in flight, and the stream may play. A held stream's drain waits for `start`: the server, holding nothing
    /// of it, would answer at once, and the track would count as played unheard. The answer is resumed by
    /// `drainCallback`.
    func issueDrainIfDue(into resumptions: inout PulseResumptions) {
        guard case .none = drain, pending == 0, let stream, isReady, gate != .held, waiters.isWaiting(.drain) else {
            return
        }
        ranDryAt = nil
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        if let operation = pa_stream_drain(stream, PulseStreamState.drainCallback, userdata) {
            drain = .asked
            pa_operation_unref(operation)
        } else {
            let error = AudioSinkError.soundServerLost(detail: "drain refused")
            resumptions.resume(waiters.take(.drain), with: .failure(error))
        }
    }

    // The callbacks run on the main loop's thread with its lock held: each decides and takes the waiters out,
    // and resumes them at its end (see `PulseResumptions` for why that is safe there).

    static let stateCallback: pa_stream_notify_cb_t = { stream, userdata in
        guard let stream, let userdata else { return }
        let state = Unmanaged<PulseStreamState>.fromOpaque(userdata).takeUnretainedValue()
        var resumptions = PulseResumptions()
        switch pa_stream_get_state(stream) {
        case PA_STREAM_READY:
            if case .connecting = state.phase { state.phase = .ready }
            resumptions.resume(state.waiters.take(.ready), with: .success(.came))
        case PA_STREAM_FAILED:
            let detail = PulseError.message(of: pa_stream_get_context(stream))
            if case .closed = state.phase {
            } else {
                state.phase = .failed(.soundServerLost(detail: detail))
            }
            state.endAll(state.ending ?? .success(.ended), into: &resumptions)
            state.onGone?()
        case PA_STREAM_TERMINATED:
            if case .failed = state.phase {} else { state.phase = .closed }
            state.endAll(state.ending ?? .success(.ended), into: &resumptions)
            state.onGone?()
        default:
            break
        }
        resumptions.run()
    }

    static let writeCallback: pa_stream_request_cb_t = { _, _, userdata in
        guard let userdata else { return }
        let state = Unmanaged<PulseStreamState>.fromOpaque(userdata).takeUnretainedValue()
        var resumptions = PulseResumptions()
        state.pump(into: &resumptions)
        state.issueDrainIfDue(into: &resumptions)
        resumptions.run()
    }

    static let underflowCallback: pa_stream_notify_cb_t = { _, userdata in
        guard let userdata else { return }
        let state = Unmanaged<PulseStreamState>.fromOpaque(userdata).takeUnretainedValue()
        var resumptions = PulseResumptions()
        // Everything was handed over: running dry is the end of the sound, heard now.
        if case .asked = state.drain, state.ranDryAt == nil { state.ranDryAt = state.elapsed() }
        state.handle(.underflow, into: &resumptions)
        resumptions.run()
    }

    static let drainCallback: pa_stream_success_cb_t = { _, success, userdata in
        guard let userdata else { return }
        let state = Unmanaged<PulseStreamState>.fromOpaque(userdata).takeUnretainedValue()
        var resumptions = PulseResumptions()
        switch state.drain {
        case .asked:
            state.drain = .none
            let result: Result<PulseWaiters.Answer, AudioSinkError> =
                success != 0 ? .success(.came) : state.ending ?? .failure(.soundServer(detail: "drain failed"))
            resumptions.resume(state.waiters.take(.drain), with: result)
        case .leftBehind:
            state.drain = .none
            state.issueDrainIfDue(into: &resumptions)
        case .none:
            break
        }
        resumptions.run()
    }
}
