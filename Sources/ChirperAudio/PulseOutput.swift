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

    /// Waits until the server has the stream ready. Ended (by its task's cancellation, or the connection
    /// closing) is `CancellationError`: the open was given up, and there is no output to answer with.
    func waitUntilReady() async throws {
        let answer = try await wait(for: .ready) { state in
            if case .ready = state.phase { return .success(.came) }
            return nil
        }
        guard answer == .came else { throw CancellationError() }
    }

    func write(_ samples: [Int16]) async throws -> OutputWrite {
        let total = samples.count * 2
        var offset = 0
        while offset < total {
            let needed = min(state.wakeRoom, total - offset)
            let room = try await wait(for: .space) { state in
                state.pending + needed <= state.capacity ? .success(.came) : nil
            }
            guard room == .came else { return .stopped }
            var resumptions = PulseResumptions()
            defer { resumptions.run() }
            let queued = try connection.locked {
                if let ending = state.ending(forLease: lease) { return try ending.get() }
                let room = (state.capacity - state.pending) / state.frameBytes * state.frameBytes
                let count = min(room, total - offset)
                guard count > 0 else { return .came }
                samples.withUnsafeBytes { raw in
                    _ = state.queue.append(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)]))
                }
                offset += count
                state.pump(into: &resumptions)
                return .came
            }
            guard queued == .came else { return .stopped }
        }
        return .queued
    }

    /// Lets the stream play: a held one gets its audio now (the server, uncorked, plays it at once), a corked
    /// one is uncorked. A stopped output stays silent.
    func start() throws {
        var resumptions = PulseResumptions()
        defer { resumptions.run() }
        try connection.locked {
            if let ending = state.ending(forLease: lease) {
                _ = try ending.get()
                return
            }
            guard state.stream != nil, !state.handle(.start(lease: lease), into: &resumptions).isEmpty else {
                return
            }
            // A drain asked for while held waits for this: everything may be handed over now, and less than the
            // server's prebuffer brings no write request that would issue it.
            state.issueDrainIfDue(into: &resumptions)
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
            if let ending = state.ending(forLease: lease) {
                _ = try ending.get()
                return
            }
            state.handle(.pause(lease: lease), into: &resumptions)
        }
    }

    func drain() async throws -> OutputDrain {
        let drained = try await wait(for: .drain) { state in
            // One drain at a time, on a live stream.
            state.stream == nil || state.waiters.isWaiting(.drain) ? .success(.ended) : nil
        } whenWaiting: { state, resumptions in
            // A drain still in flight for this track's earlier drain (its task cancelled) answers this one: the
            // server acknowledges it once everything handed over, before or after it was asked, has played.
            state.pump(into: &resumptions)
            // Once our queue is empty the server is asked to drain; until then the write callback asks, and a held
            // stream's `start`.
            state.issueDrainIfDue(into: &resumptions)
        }
        guard drained == .came else { return .stopped }
        // Timed as the drain's waiter wakes: the acknowledgment came a period or two of the sink after the stream
        // ran dry, and what runs after the drain counts from that.
        return .played(secondsAgo: connection.locked { state.lease == lease ? state.sinceRanDry : 0 })
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

    /// Whether an operation of `kind` waits on the stream now: for tests that stop an output under a wait.
    func isWaiting(_ kind: PulseWaiters.Kind) -> Bool {
        state.waiters.isWaiting(kind)
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

    /// Suspends until the stream gives `kind` (`.came`), or this output's use of it ends (`.ended`: stopped,
    /// parked, taken by a later track, closed, or the task cancelled); a failed stream throws its error.
    /// `decide`, called with the lock held, returns the answer if it is known now, or `nil` to wait; then the
    /// waiter is registered and `whenWaiting` runs, still under the lock.
    private func wait(
        for kind: PulseWaiters.Kind,
        decide: @escaping (PulseStreamState) -> Result<PulseWaiters.Answer, AudioSinkError>?,
        whenWaiting: @escaping (PulseStreamState, inout PulseResumptions) -> Void = { _, _ in }
    ) async throws -> PulseWaiters.Answer {
        let state = self.state
        let lease = self.lease
        let waiter = PulseWaiters.Waiter()
        // Decided under the lock, answered outside it.
        var resumptions = PulseResumptions()
        let decided: Result<PulseWaiters.Answer, AudioSinkError>? = connection.locked {
            if let ending = state.ending(forLease: lease) { return ending }
            if Task.isCancelled { return .success(.ended) }
            if let now = decide(state) { return now }
            guard state.waiters.register(kind, waiter, into: &resumptions) else { return .success(.ended) }
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
            // loop lock (that cycle was a deadlock): it ends the waiters from their own lock, which `register`
            // also takes, so a waiter registered just before is still ended.
            var resumptions = PulseResumptions()
            resumptions.resume(state.waiters.takeAll(), with: .success(.ended))
            resumptions.run()
        }
        // nil: the waiter's channel was cancelled with this task.
        return try (answer ?? .success(.ended)).get()
    }
}
