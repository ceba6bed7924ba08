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

    /// What keeps the stream's audio from being heard before `start`, and after `pause`.
    enum Gate {
        /// The client hands nothing to the server (it keeps what is written in `queue`); the server's stream
        /// is uncorked, empty and waiting for its prebuffer. `start` hands the audio over and the server plays
        /// it at once: no round trip to uncork first. Every track begins here.
        case held
        /// The server holds the stream (corked): audio may be handed over, and is not played. After `pause`,
        /// and for a parked stream that has waited `PulseConnection.parkedIdle` (so the sink may sleep).
        case corked
        /// Playing: what is written is handed to the server as it asks for it.
        case open
    }

    let format: PCMFormat
    /// Change with `setGate`, which corks or uncorks the server's stream to match.
    private(set) var gate: Gate = .held
    /// The track's underrun handler; a parked stream has none.
    var onUnderrun: @Sendable () -> Void
    let waiters = PulseWaiters()
    /// Counts the tracks that used this stream: a stream is parked after a track and reused by the next one
    /// of the same format (no server round trips), and an output of an earlier lease finds it gone.
    var lease = 0
    /// The stream's time when this lease began: what this track has played is the time since.
    var timeBase: pa_usec_t = 0
    /// Bytes this lease has handed to the server: no more than these can have been played.
    var handedBytes = 0
    var stream: OpaquePointer?
    var phase: Phase = .connecting
    /// Called when the stream is gone for good (to unregister it).
    var onGone: (() -> Void)?

    /// Audio accepted by `write` and not yet handed to the server (bytes from `queueStart` on). Bounded
    /// by `capacity`; the server itself holds only about `PulseConnection.latency` more.
    var queue: [UInt8] = []
    var queueStart = 0
    let capacity: Int
    var frameBytes: Int { format.channels * 2 }
    var pending: Int { queue.count - queueStart }
    /// A waiting writer is woken once this much room is free (a quarter of the queue), so that it hands over
    /// large pieces instead of waking for every few milliseconds the server takes.
    var wakeRoom: Int { max(frameBytes, capacity / 4 / frameBytes * frameBytes) }

    init(format: PCMFormat, capacity: Int, onUnderrun: @escaping @Sendable () -> Void) {
        self.format = format
        self.capacity = capacity
        self.onUnderrun = onUnderrun
    }

    /// The error a waiting operation should get now, if any.
    var blockingError: (any Error)? {
        switch phase {
        case .failed(let error): error
        case .closed: CancellationError()
        case .connecting, .ready: nil
        }
    }

    /// The error for an output of lease `lease`: a later track has the stream now, or the stream's own error.
    func error(forLease lease: Int) -> (any Error)? {
        self.lease == lease ? blockingError : CancellationError()
    }

    /// The stream's current time (main loop locked), or nil before the server has told it.
    var time: pa_usec_t? {
        guard let stream, case .ready = phase else { return nil }
        var microseconds: pa_usec_t = 0
        return pa_stream_get_time(stream, &microseconds) == 0 ? microseconds : nil
    }

    /// Moves the gate to `new` (main loop locked), asking the server to cork or uncork the stream where that
    /// changes: the server's stream is corked for `.corked` only. The request goes in order with what follows.
    func setGate(_ new: Gate) {
        let corked = new == .corked
        if corked != (gate == .corked), let stream, case .ready = phase,
            let operation = pa_stream_cork(stream, corked ? 1 : 0, nil, nil)
        {
            pa_operation_unref(operation)
        }
        gate = new
    }

    /// The stream's one teardown (main loop locked): disconnected if it was connecting or ready, its waiters
    /// failed (with the stream's error, or cancelled), its queue dropped and its handle released. The state
    /// stays registered with the connection until libpulse reports the stream terminated, so no callback sees
    /// freed memory. Nothing happens to a stream already torn down.
    func tearDown(into resumptions: inout PulseResumptions) {
        guard let handle = stream else { return }
        let error = blockingError ?? CancellationError()
        switch phase {
        case .connecting, .ready:
            phase = .closed
            pa_stream_disconnect(handle)
        case .failed, .closed:
            break
        }
        failAll(error, into: &resumptions)
        queue = []
        queueStart = 0
        stream = nil
        pa_stream_unref(handle)
    }

    /// Takes every waiter out, to be failed with `error`.
    func failAll(_ error: any Error, into resumptions: inout PulseResumptions) {
        resumptions.fail(waiters.takeAll(), with: error)
    }

    /// Hands queued audio to the server as far as it asks for it (main loop locked), unless the gate holds
    /// it here. Wakes a writer when there is room again.
    func pump(into resumptions: inout PulseResumptions) {
        guard let stream, case .ready = phase, gate != .held else { return }
        var writable = pa_stream_writable_size(stream)
        while writable != -1, pending >= frameBytes, writable >= frameBytes {
            let count = min(writable, pending) / frameBytes * frameBytes
            let status = queue.withUnsafeBytes { raw in
                pa_stream_write(stream, raw.baseAddress! + queueStart, count, nil, 0, PA_SEEK_RELATIVE)
            }
            if status < 0 {
                phase = .failed(.soundServerLost(detail: PulseError.message(status)))
                failAll(blockingError ?? CancellationError(), into: &resumptions)
                return
            }
            queueStart += count
            handedBytes += count
            writable -= count
        }
        if queueStart > 0 && queueStart >= queue.count / 2 {
            queue.removeFirst(queueStart)
            queueStart = 0
        }
        if pending + wakeRoom <= capacity {
            resumptions.resume(waiters.take(.space), with: .success(()))
        }
    }

    /// Asks the server to play out what it holds; the drain waiter is resumed by `drainCallback`.
    var drainIssued = false

    func issueDrain(_ stream: OpaquePointer, into resumptions: inout PulseResumptions) {
        drainIssued = true
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        if let operation = pa_stream_drain(stream, PulseStreamState.drainCallback, userdata) {
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
            resumptions.resume(state.waiters.take(.ready), with: .success(()))
        case PA_STREAM_FAILED:
            let detail = PulseError.message(of: pa_stream_get_context(stream))
            if case .closed = state.phase {
            } else {
                state.phase = .failed(.soundServerLost(detail: detail))
            }
            state.failAll(state.blockingError ?? CancellationError(), into: &resumptions)
            state.onGone?()
        case PA_STREAM_TERMINATED:
            if case .failed = state.phase {} else { state.phase = .closed }
            state.failAll(state.blockingError ?? CancellationError(), into: &resumptions)
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
        if state.pending == 0, let stream = state.stream, !state.drainIssued, state.waiters.isWaiting(.drain) {
            state.issueDrain(stream, into: &resumptions)
        }
        resumptions.run()
    }

    static let underflowCallback: pa_stream_notify_cb_t = { _, userdata in
        guard let userdata else { return }
        let state = Unmanaged<PulseStreamState>.fromOpaque(userdata).takeUnretainedValue()
        // While held, nothing of this track has been handed over: the server's empty stream is not an underrun.
        guard state.gate != .held else { return }
        state.onUnderrun()
    }

    static let drainCallback: pa_stream_success_cb_t = { _, success, userdata in
        guard let userdata else { return }
        let state = Unmanaged<PulseStreamState>.fromOpaque(userdata).takeUnretainedValue()
        let result: Result<Void, any Error> =
            success != 0
            ? .success(()) : .failure(state.blockingError ?? AudioSinkError.soundServer(detail: "drain failed"))
        var resumptions = PulseResumptions()
        resumptions.resume(state.waiters.take(.drain), with: result)
        resumptions.run()
    }
}

/// A track's playback stream on the session's connection.
final class PulseOutput: AudioOutput, Sendable {
    private let connection: PulseConnection
    private let state: PulseStreamState
    private let contextState: ContextState
    /// Which use of the stream this output is (see `PulseStreamState.lease`).
    private let lease: Int

    init(connection: PulseConnection, streamState: PulseStreamState, contextState: ContextState, lease: Int) {
        self.connection = connection
        self.state = streamState
        self.contextState = contextState
        self.lease = lease
        let key = ObjectIdentifier(streamState)
        streamState.onGone = { [weak contextState] in
            contextState?.streams[key] = nil
        }
    }

    deinit {
        stop()
    }

    var format: PCMFormat { state.format }

    func waitUntilReady() async throws {
        try await wait(for: .ready) { state in
            if case .ready = state.phase { return .success(()) }
            return nil
        }
    }

    func write(_ samples: [Int16]) async throws {
        let total = samples.count * 2
        var offset = 0
        while offset < total {
            let needed = min(state.wakeRoom, total - offset)
            try await wait(for: .space) { state in
                state.pending + needed <= state.capacity ? .success(()) : nil
            }
            var resumptions = PulseResumptions()
            defer { resumptions.run() }
            try connection.locked {
                if let error = state.error(forLease: lease) { throw error }
                let room = (state.capacity - state.pending) / state.frameBytes * state.frameBytes
                let count = min(room, total - offset)
                guard count > 0 else { return }
                samples.withUnsafeBytes { raw in
                    state.queue.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)]))
                }
                offset += count
                state.pump(into: &resumptions)
            }
        }
    }

    /// Lets the stream play: a held one gets its audio now (the server, uncorked, plays it at once), a corked
    /// one is uncorked.
    func start() throws {
        var resumptions = PulseResumptions()
        defer { resumptions.run() }
        try connection.locked {
            if let error = state.error(forLease: lease) { throw error }
            guard let stream = state.stream, state.gate != .open else { return }
            state.setGate(.open)
            state.pump(into: &resumptions)
            // A drain asked for while held waits for this: everything may be handed over now, and less than the
            // server's prebuffer brings no write request that would issue it.
            if state.pending == 0, !state.drainIssued, state.waiters.isWaiting(.drain) {
                state.issueDrain(stream, into: &resumptions)
            }
        }
    }

    func setVolume(percent: Int) {
        connection.setVolume(percent: percent, of: state, lease: lease)
    }

    /// Silences the stream, keeping what is queued: the server holds it (corked).
    func pause() throws {
        try connection.locked {
            if let error = state.error(forLease: lease) { throw error }
            state.setGate(.corked)
        }
    }

    func drain() async throws {
        try await wait(for: .drain) { state in
            // One drain at a time, on a live stream.
            state.stream == nil || state.waiters.isWaiting(.drain) ? .failure(CancellationError()) : nil
        } whenWaiting: { state, resumptions in
            state.drainIssued = false
            state.pump(into: &resumptions)
            // Once our queue is empty the server is asked to drain; until then the write callback asks.
            if state.pending == 0, let stream = state.stream {
                state.issueDrain(stream, into: &resumptions)
            }
        }
    }

    /// Silences at once: the server drops what it holds. A ready stream is parked (emptied, held) for the next
    /// track of the same format; any other is disconnected.
    ///
    /// Parking corks, flushes and uncorks again, in one go: the stream waits uncorked and empty, so the next
    /// track's audio plays as soon as it is handed over. A flush alone (uncorked, playing) would also empty it,
    /// but PulseAudio then reports an underflow some milliseconds later, which could reach the next track as a
    /// false underrun. Corked first, PulseAudio 16 reported none (30 stops, 0 to 50 ms before the next audio;
    /// a flush alone: 9 underflows), and pipewire-pulse reports none after any flush. Underflows while held
    /// are ignored whatever the server.
    func stop() {
        var resumptions = PulseResumptions()
        defer { resumptions.run() }
        connection.locked {
            guard state.lease == lease, let stream = state.stream else { return }
            // A held stream has been handed nothing and is uncorked already.
            if case .ready = state.phase, state.gate != .held {
                state.setGate(.corked)
                if let operation = pa_stream_flush(stream, nil, nil) { pa_operation_unref(operation) }
                state.setGate(.held)
            }
            if case .ready = state.phase, connection.park(state, into: &resumptions) {
                state.lease += 1
                state.onUnderrun = {}
                state.drainIssued = false
                state.failAll(CancellationError(), into: &resumptions)
                state.queue = []
                state.queueStart = 0
                return
            }
            state.tearDown(into: &resumptions)
        }
    }

    var playedSeconds: Double? {
        connection.locked {
            guard state.lease == lease, let time = state.time else { return nil }
            return Self.played(
                time: time, timeBase: state.timeBase, handedBytes: state.handedBytes,
                bytesPerSecond: state.format.bytesPerSecond)
        }
    }

    /// Seconds played: the stream's time since the lease began, but never more than the audio handed to the
    /// server (the server cannot have played more). libpulse's interpolated clock is monotonic and runs on
    /// between timing updates, so when the server underruns before the client hears of it (a loaded
    /// machine) the clock can pass what was handed over, and it does not come back. `buffered` (queued −
    /// played) then stays near 0 while the stream is corked to rebuffer, and the restart never comes: the
    /// likely cause of a track that a clean-clone CI run once saw hang in `buffering` after an underrun.
    static func played(time: pa_usec_t, timeBase: pa_usec_t, handedBytes: Int, bytesPerSecond: Int) -> Double {
        let sinceBase = time >= timeBase ? time - timeBase : 0
        let handed = pa_usec_t(max(0, handedBytes)) * 1_000_000 / pa_usec_t(max(1, bytesPerSecond))
        return Double(min(sinceBase, handed)) / 1_000_000
    }

    /// Suspends until the stream gives `kind` (a stopped or failed stream, or task cancellation, ends the wait
    /// with an error). `decide`, called with the lock held, returns the outcome if it is known now, or `nil`
    /// to wait; then the continuation is registered and `whenWaiting` runs, still under the lock.
    private func wait(
        for kind: PulseWaiters.Kind,
        decide: @escaping (PulseStreamState) -> Result<Void, any Error>?,
        whenWaiting: @escaping (PulseStreamState, inout PulseResumptions) -> Void = { _, _ in }
    ) async throws {
        let state = self.state
        let lease = self.lease
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decided under the lock, resumed outside it.
                var resumptions = PulseResumptions()
                let decided: Result<Void, any Error>? = connection.locked {
                    if let error = state.error(forLease: lease) { return .failure(error) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let now = decide(state) { return now }
                    guard state.waiters.register(kind, continuation) else { return .failure(CancellationError()) }
                    whenWaiting(state, &resumptions)
                    return nil
                }
                if let decided { continuation.resume(with: decided) }
                resumptions.run()
            }
        } onCancel: {
            // The handler runs with this task's status lock held, which resuming this task's continuation also
            // takes; libpulse callbacks resume continuations with the main loop lock held. So the handler must
            // not wait for the main loop lock (that cycle was a deadlock): it fails the waiters from their own
            // lock, which `register` also takes, so a continuation registered just before is still failed.
            var resumptions = PulseResumptions()
            resumptions.fail(state.waiters.takeAll(), with: CancellationError())
            resumptions.run()
        }
    }
}
