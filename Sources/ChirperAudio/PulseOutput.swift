import ChirperCore
import CPulse
import ChirperSystem

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
                    _ = state.queue.append(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)]))
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
            guard let stream = state.stream, !state.handle(.start(lease: lease), into: &resumptions).isEmpty else {
                return
            }
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
        var resumptions = PulseResumptions()
        defer { resumptions.run() }
        try connection.locked {
            if let error = state.error(forLease: lease) { throw error }
            state.handle(.pause(lease: lease), into: &resumptions)
        }
    }

    func drain() async throws -> Double {
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
        // Timed as the drain's waiter wakes: the acknowledgment came a period or two of the sink after the stream
        // ran dry, and what runs after the drain counts from that.
        return connection.locked { state.lease == lease ? state.sinceRanDry : 0 }
    }

    /// Silences at once: the server drops what it holds. A ready stream is parked (emptied, held) for the next
    /// track of the same format; any other is disconnected (see `PulseStreamMachine`). Underflows while held
    /// are ignored whatever the server.
    func stop() {
        var resumptions = PulseResumptions()
        defer { resumptions.run() }
        connection.locked {
            guard state.lease == lease, state.stream != nil else { return }
            let stop = PulseStreamMachine.Event.stop(lease: lease, ready: state.isReady, canPark: connection.canPark)
            if state.handle(stop, into: &resumptions).contains(.park) {
                connection.keep(state, into: &resumptions)
            }
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
    /// to wait; then the waiter is registered and `whenWaiting` runs, still under the lock.
    private func wait(
        for kind: PulseWaiters.Kind,
        decide: @escaping (PulseStreamState) -> Result<Void, any Error>?,
        whenWaiting: @escaping (PulseStreamState, inout PulseResumptions) -> Void = { _, _ in }
    ) async throws {
        let state = self.state
        let lease = self.lease
        let waiter = PulseWaiters.Waiter()
        // Decided under the lock, answered outside it.
        var resumptions = PulseResumptions()
        let decided: Result<Void, any Error>? = connection.locked {
            if let error = state.error(forLease: lease) { return .failure(error) }
            if Task.isCancelled { return .failure(CancellationError()) }
            if let now = decide(state) { return now }
            guard state.waiters.register(kind, waiter, into: &resumptions) else { return .failure(CancellationError()) }
            whenWaiting(state, &resumptions)
            return nil
        }
        resumptions.run()
        if let decided { return try decided.get() }
        let answer = await withTaskCancellationHandler {
            await waiter.next()
        } onCancel: {
            // The handler runs with this task's status lock held, which waking this task also takes; libpulse
            // callbacks answer waiters with the main loop lock held. So the handler must not wait for the main
            // loop lock (that cycle was a deadlock): it fails the waiters from their own lock, which `register`
            // also takes, so a waiter registered just before is still failed.
            var resumptions = PulseResumptions()
            resumptions.fail(state.waiters.takeAll(), with: CancellationError())
            resumptions.run()
        }
        // nil: the waiter's channel was cancelled with this task.
        try (answer ?? .failure(CancellationError())).get()
    }
}
