import ChirperCore
import CPulse
import ChirperSystem

/// State shared with libpulse's callbacks; every field is guarded by the main loop's lock.
// @unchecked: every field is read and written only with the main loop locked (callbacks run with it held), a
// C lock the compiler cannot see.
final class ContextState: @unchecked Sendable {
    enum Phase {
        case connecting
        case ready
        case failed(AudioSinkError)
        /// Closed; after a failure, that failure (see `close`).
        case closed(after: AudioSinkError?)
    }

    var phase: Phase = .connecting
    /// Ends when `phase` leaves `connecting`: a latch for `waitUntilReady` (opened once the lock is released,
    /// through `PulseResumptions`).
    let connecting = Channel(of: Never.self, failure: Never.self)
    /// Streams whose callbacks may still fire; dropped when libpulse reports them gone.
    var streams: [ObjectIdentifier: PulseStreamState] = [:]
    /// The last track's stream, empty, kept for the next track of the same format (at most one).
    var parked: PulseStreamState?
    /// Corks the parked stream once it has waited `PulseConnection.parkedIdle`; cancelled (under the main loop
    /// lock) when the stream is taken, another is parked or the connection closes.
    var idleTimer: Task<Void, Never>?
}

/// One connection to the sound server: a `pa_threaded_mainloop` and a `pa_context`.
///
/// libpulse objects are touched only with the main loop locked; callbacks run on the main loop's thread with
/// the lock held. The main loop is stopped by `close()` and freed in `deinit`, so locking it stays valid for
/// outputs that outlive a closed connection.
// @unchecked: the C handles are used only with the main loop locked, and `running` only under that lock.
final class PulseConnection: @unchecked Sendable {
    /// Seconds of audio the server holds for a stream (its buffer plus the device's).
    static let latency = 0.1
    /// How long a parked stream waits uncorked (ready to play the next track at once) before it is corked. An
    /// uncorked stream keeps the sink awake; once corked, the sink may suspend as it would with no stream
    /// (PulseAudio's suspend-on-idle waits 5 s more).
    static let parkedIdle = Duration.seconds(3)

    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private let state = ContextState()
    private let statePointer: Unmanaged<ContextState>
    private var running = false
    /// Times `parkedIdle`.
    private let clock: any Clock<Duration>
    /// Time on `clock` since the connection began: when a stream ran dry.
    private let elapsed: @Sendable () -> Duration

    init(server: String?, applicationName: String, clock: any Clock<Duration>) throws {
        self.clock = clock
        self.elapsed = elapsedTime(on: clock)
        try PulseLibrary.load()
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw AudioSinkError.soundServer(detail: "cannot create the PulseAudio main loop")
        }
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), applicationName) else {
            pa_threaded_mainloop_free(mainloop)
            throw AudioSinkError.soundServer(detail: "cannot create a PulseAudio context")
        }
        self.mainloop = mainloop
        self.context = context
        self.statePointer = Unmanaged.passRetained(state)
        pa_context_set_state_callback(
            context,
            { context, userdata in
                guard let context, let userdata else { return }
                let state = Unmanaged<ContextState>.fromOpaque(userdata).takeUnretainedValue()
                // Decided, then resumed at the end; libpulse holds the main loop lock throughout (see
                // `PulseResumptions` for why resuming there is safe).
                var resumptions = PulseResumptions()
                PulseConnection.contextStateChanged(context, state, into: &resumptions)
                resumptions.run()
            },
            statePointer.toOpaque()
        )
        // No autospawn: a missing server must fail now, not start one (or hang trying).
        let flags = pa_context_flags_t(rawValue: PA_CONTEXT_NOAUTOSPAWN.rawValue)
        if pa_context_connect(context, server, flags, nil) < 0 {
            let detail = PulseError.message(of: context)
            state.phase = .failed(.noSoundServer(detail: detail))
            state.connecting.finish()
        }
        guard pa_threaded_mainloop_start(mainloop) >= 0 else {
            pa_context_set_state_callback(context, nil, nil)
            pa_context_unref(context)
            pa_threaded_mainloop_free(mainloop)
            statePointer.release()
            throw AudioSinkError.soundServer(detail: "cannot start the PulseAudio main loop")
        }
        running = true
    }

    deinit {
        close()
        pa_context_set_state_callback(context, nil, nil)
        pa_context_unref(context)
        pa_threaded_mainloop_free(mainloop)
        statePointer.release()
    }

    /// Runs `body` with the main loop locked. Never call from a libpulse callback (libpulse holds the lock
    /// there already and asserts), nor from a task cancellation handler (it would wait for the lock while holding
    /// its task's status lock, which a callback resuming that task needs: see `PulseResumptions`).
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body()
    }

    /// True once the connection failed or was closed: a new one is needed.
    var isDead: Bool {
        locked {
            switch state.phase {
            case .connecting, .ready: false
            case .failed, .closed: true
            }
        }
    }

    func waitUntilReady() async throws {
        while true {
            let decided: Result<Void, any Error>? = locked {
                switch state.phase {
                case .ready: .success(())
                case .failed(let error): .failure(error)
                case .closed(let failure): .failure(failure ?? CancellationError())
                case .connecting: nil
                }
            }
            if let decided { return try decided.get() }
            // Not cancellable: the connection fails fast when there is no server.
            await state.connecting.ended()
        }
    }

    /// Disconnects and stops the main loop thread. Idempotent.
    func close() {
        var resumptions = PulseResumptions()
        let wasRunning = locked {
            if case .closed = state.phase {
                // Closed before: nothing more to do (close is idempotent).
            } else {
                // A failed connection keeps its failure: a caller that took it while it was connecting and asks
                // only now, after the caller that saw the failure first closed it, hears why (no sound server),
                // not that it was closed.
                let failure: AudioSinkError? = if case .failed(let failure) = state.phase { failure } else { nil }
                state.phase = .closed(after: failure)
                state.idleTimer?.cancel()
                resumptions.open(state.connecting)
                pa_context_disconnect(context)
            }
            defer { running = false }
            return running
        }
        resumptions.run()
        if wasRunning {
            pa_threaded_mainloop_stop(mainloop)
        }
    }

    private static func contextStateChanged(
        _ context: OpaquePointer,
        _ state: ContextState,
        into resumptions: inout PulseResumptions
    ) {
        switch pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            if case .connecting = state.phase {
                state.phase = .ready
                resumptions.open(state.connecting)
            }
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            let detail = PulseError.message(of: context)
            switch state.phase {
            case .connecting:
                let error = AudioSinkError.noSoundServer(detail: detail)
                state.phase = .failed(error)
                resumptions.open(state.connecting)
            case .ready:
                state.phase = .failed(.soundServerLost(detail: detail))
            case .failed, .closed:
                break
            }
        default:
            break
        }
    }

    /// The connection can keep a stream for the next track (main loop locked): it is not going away.
    var canPark: Bool {
        if case .ready = state.phase { return true }
        return false
    }

    /// Keeps `stream` (main loop locked, parked by its machine) for the next track of its format, uncorked for
    /// `parkedIdle`, then corked; the stream parked before it is disconnected.
    func keep(_ stream: PulseStreamState, into resumptions: inout PulseResumptions) {
        if let old = state.parked, old !== stream { old.tearDown(into: &resumptions) }
        state.parked = stream
        let clock = self.clock
        state.idleTimer?.cancel()
        state.idleTimer = Task { [weak self] in
            do {
                try await clock.sleep(for: PulseConnection.parkedIdle)
            } catch {
                return
            }
            self?.corkParked()
        }
    }

    /// Corks the parked stream, so the sink may sleep: called by the idle timer's task, unless the timer was
    /// cancelled first. Every cancel happens with the lock held, so checking under the lock is exact.
    private func corkParked() {
        var resumptions = PulseResumptions()
        locked {
            guard !Task.isCancelled, case .ready = state.phase, let parked = state.parked else { return }
            parked.handle(.idled, into: &resumptions)
        }
        resumptions.run()
    }

    /// Sets the stream volume of `stream` on the server (it acts at once, not after what is queued), if the
    /// output of `lease` still has it.
    func setVolume(percent: Int, of stream: PulseStreamState, lease: Int) {
        locked {
            guard stream.lease == lease, let handle = stream.stream else { return }
            PulseVolume.set(percent: percent, context: context, stream: handle, channels: stream.format.channels)
        }
    }

    /// A held playback stream for one track (see `PulseStreamState.Gate`): the parked one when its format and
    /// size match (no round trips to the server: the first sound comes sooner), else a new one, once the server
    /// has it ready. A held stream is uncorked on the server, so the sink stays awake while the track buffers.
    ///
    /// A parked stream of another format goes only once the new one is ready. Our streams ask the sink for a
    /// short latency; with none connected, a sink goes back to its own (a null sink's longest) and at once
    /// renders that far ahead. A stream arriving then rewinds the sink only as far as the short latency it asks
    /// for, so its first sound waits out the rest of that silence: A/B sides of two formats were heard seconds
    /// apart instead of the gap asked for.
    func openStream(
        format: PCMFormat,
        name: String,
        bufferSeconds: Double,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> PulseOutput {
        // Whole frames, so that what the queue's ring hands over at its end is whole frames too.
        let frame = format.channels * 2
        let capacity = max(frame, Int(bufferSeconds * Double(format.bytesPerSecond)) / frame * frame)
        // A parked stream torn down here ends its waiters (it should have none) once the lock is released.
        var resumptions = PulseResumptions()
        // The parked stream of another format, kept connected until the new stream is ready (see above).
        var replaced: PulseStreamState?
        let locking = Result { () throws -> (PulseOutput, reused: Bool) in
            try locked { () throws -> (PulseOutput, reused: Bool) in
                guard case .ready = state.phase else {
                    if case .failed(let error) = state.phase { throw error }
                    throw AudioSinkError.soundServerLost(detail: "connection closed")
                }
                if let parked = state.parked {
                    state.parked = nil
                    state.idleTimer?.cancel()
                    state.idleTimer = nil
                    if parked.format == format, parked.capacity == capacity, case .ready = parked.phase,
                        let stream = parked.stream
                    {
                        parked.onUnderrun = onUnderrun
                        parked.handle(.reuse, into: &resumptions)
                        if let operation = pa_stream_set_name(stream, name, nil, nil) { pa_operation_unref(operation) }
                        let output = PulseOutput(
                            connection: self, streamState: parked, contextState: state, lease: parked.lease)
                        return (output, true)
                    }
                    // Another format: the parked stream goes, once the new one is ready.
                    replaced = parked
                }
                var spec = pa_sample_spec(
                    format: PA_SAMPLE_S16LE,
                    rate: UInt32(format.sampleRate),
                    channels: UInt8(format.channels)
                )
                guard pa_sample_spec_valid(&spec) != 0 else {
                    throw AudioSinkError.soundServer(detail: "the sound server cannot play \(format)")
                }
                guard let stream = pa_stream_new(context, name, &spec, nil) else {
                    throw AudioSinkError.soundServer(detail: PulseError.message(of: context))
                }
                let streamState = PulseStreamState(
                    format: format, capacity: capacity, elapsed: elapsed, onUnderrun: onUnderrun)
                state.streams[ObjectIdentifier(streamState)] = streamState
                let userdata = Unmanaged.passUnretained(streamState).toOpaque()
                pa_stream_set_state_callback(stream, PulseStreamState.stateCallback, userdata)
                pa_stream_set_write_callback(stream, PulseStreamState.writeCallback, userdata)
                pa_stream_set_underflow_callback(stream, PulseStreamState.underflowCallback, userdata)

                let bytesPerSecond = Double(format.bytesPerSecond)
                let frameBytes = UInt32(format.channels * 2)
                func bytes(_ seconds: Double) -> UInt32 {
                    max(frameBytes, UInt32(seconds * bytesPerSecond) / frameBytes * frameBytes)
                }
                // The server holds only `latency` of audio (sink and stream together, ADJUST_LATENCY), so stop
                // and pause are quick even on a sound server that cannot rewind (PipeWire), drain means
                // "heard", and an underflow is a real one. The rest of `bufferSeconds` waits in our own queue.
                // Prebuf is small but not 0: with 0 an underrun lets the read index run ahead and skip data.
                var attributes = pa_buffer_attr(
                    maxlength: UInt32.max,
                    tlength: bytes(PulseConnection.latency),
                    prebuf: bytes(PulseConnection.latency / 4),
                    minreq: UInt32.max,
                    fragsize: UInt32.max
                )
                // Not corked: the stream starts held (see `PulseStreamState.Gate`), so the server plays the first
                // audio as soon as it has it.
                let flags = pa_stream_flags_t(
                    rawValue: PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
                        | PA_STREAM_ADJUST_LATENCY.rawValue
                )
                if pa_stream_connect_playback(stream, nil, &attributes, flags, nil, nil) < 0 {
                    let detail = PulseError.message(of: context)
                    pa_stream_set_state_callback(stream, nil, nil)
                    pa_stream_set_write_callback(stream, nil, nil)
                    pa_stream_set_underflow_callback(stream, nil, nil)
                    pa_stream_unref(stream)
                    state.streams[ObjectIdentifier(streamState)] = nil
                    throw AudioSinkError.soundServer(detail: detail)
                }
                streamState.stream = stream
                return (PulseOutput(connection: self, streamState: streamState, contextState: state, lease: 0), false)
            }
        }
        resumptions.run()
        defer { tearDown(replaced) }
        let output = try locking.get()
        if output.reused { return output.0 }
        do {
            try await output.0.waitUntilReady()
        } catch {
            output.0.stop()
            throw error
        }
        return output.0
    }

    /// Disconnects `stream`, if any (a parked stream that a new one replaced).
    private func tearDown(_ stream: PulseStreamState?) {
        guard let stream else { return }
        var resumptions = PulseResumptions()
        locked { stream.tearDown(into: &resumptions) }
        resumptions.run()
    }
}

/// Time elapsed on `clock` since this call (opens the existential so its instants can be kept).
private func elapsedTime(on clock: some Clock<Duration>) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
}
