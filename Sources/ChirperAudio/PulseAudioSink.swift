import CPulse
import Dispatch
import NIOConcurrencyHelpers

/// Plays through PulseAudio (or PipeWire's PulseAudio server), the default output.
///
/// One connection (a threaded main loop and a context) is kept for the session; each track gets its own
/// playback stream at the track's rate and channel count. A missing server fails fast (autospawn is off);
/// a connection that died is replaced on the next `prepare`. Streams start corked; `stop` flushes and
/// deletes the stream, which silences it at once.
public final class PulseAudioSink: AudioSink {
    /// The server to use (`unix:/path/native`, `tcp:host`), or `nil` for libpulse's default (`PULSE_SERVER`,
    /// then the user's session server).
    public let server: String?
    private let applicationName: String
    private let current = NIOLockedValueBox<PulseConnection?>(nil)

    public init(server: String? = nil, applicationName: String = "chirper-play") {
        self.server = server
        self.applicationName = applicationName
    }

    deinit {
        shutdown()
    }

    public func prepare() async throws {
        _ = try await connection()
    }

    public func openOutput(
        format: PCMFormat,
        label: String,
        bufferSeconds: Double,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> any AudioOutput {
        let connection = try await connection()
        return try await connection.openStream(
            format: format,
            name: label,
            bufferSeconds: bufferSeconds,
            onUnderrun: onUnderrun
        )
    }

    public func shutdown() {
        let old = current.withLockedValue { value in
            defer { value = nil }
            return value
        }
        old?.close()
    }

    /// The live connection, connecting (again) if there is none or the last one died.
    private func connection() async throws -> PulseConnection {
        let (connection, stale) = try current.withLockedValue { value throws -> (PulseConnection, PulseConnection?) in
            if let existing = value, !existing.isDead {
                return (existing, nil)
            }
            let stale = value
            let fresh = try PulseConnection(server: server, applicationName: applicationName)
            value = fresh
            return (fresh, stale)
        }
        stale?.close()
        do {
            try await connection.waitUntilReady()
        } catch {
            current.withLockedValue { value in
                if value === connection { value = nil }
            }
            connection.close()
            throw error
        }
        return connection
    }
}

// MARK: - Connection

/// State shared with libpulse's callbacks; every field is guarded by the main loop's lock.
private final class ContextState: @unchecked Sendable {
    enum Phase {
        case connecting
        case ready
        case failed(AudioSinkError)
        case closed
    }

    var phase: Phase = .connecting
    var waiters: [CheckedContinuation<Void, any Error>] = []
    /// Streams whose callbacks may still fire; dropped when libpulse reports them gone.
    var streams: [ObjectIdentifier: PulseStreamState] = [:]

    func resumeWaiters(with result: Result<Void, any Error>) {
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting { waiter.resume(with: result) }
    }
}

/// One connection to the sound server: a `pa_threaded_mainloop` and a `pa_context`.
///
/// libpulse objects are touched only with the main loop locked; callbacks run on the main loop's thread with
/// the lock held. The main loop is stopped by `close()` and freed in `deinit`, so locking it stays valid for
/// outputs that outlive a closed connection.
final class PulseConnection: @unchecked Sendable {
    /// Seconds of audio the server holds for a stream (its buffer plus the device's).
    static let latency = 0.1

    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private let state = ContextState()
    private let statePointer: Unmanaged<ContextState>
    private var running = false

    init(server: String?, applicationName: String) throws {
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
                PulseConnection.contextStateChanged(context, state)
            },
            statePointer.toOpaque()
        )
        // No autospawn: a missing server must fail now, not start one (or hang trying).
        let flags = pa_context_flags_t(rawValue: PA_CONTEXT_NOAUTOSPAWN.rawValue)
        if pa_context_connect(context, server, flags, nil) < 0 {
            let detail = PulseError.message(of: context)
            state.phase = .failed(.noSoundServer(detail: detail))
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

    /// Runs `body` with the main loop locked. Never call from a libpulse callback.
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
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            locked {
                switch state.phase {
                case .ready: continuation.resume()
                case .failed(let error): continuation.resume(throwing: error)
                case .closed: continuation.resume(throwing: CancellationError())
                case .connecting: state.waiters.append(continuation)
                }
            }
        }
    }

    /// Disconnects and stops the main loop thread. Idempotent.
    func close() {
        let wasRunning = locked {
            if case .closed = state.phase {
            } else {
                state.phase = .closed
                state.resumeWaiters(with: .failure(CancellationError()))
                pa_context_disconnect(context)
            }
            defer { running = false }
            return running
        }
        if wasRunning {
            pa_threaded_mainloop_stop(mainloop)
        }
    }

    private static func contextStateChanged(_ context: OpaquePointer, _ state: ContextState) {
        switch pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            if case .connecting = state.phase {
                state.phase = .ready
                state.resumeWaiters(with: .success(()))
            }
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            let detail = PulseError.message(of: context)
            switch state.phase {
            case .connecting:
                let error = AudioSinkError.noSoundServer(detail: detail)
                state.phase = .failed(error)
                state.resumeWaiters(with: .failure(error))
            case .ready:
                state.phase = .failed(.soundServerLost(detail: detail))
            case .failed, .closed:
                break
            }
        default:
            break
        }
    }

    /// Creates a playback stream, corked, and waits until the server has it ready.
    func openStream(
        format: PCMFormat,
        name: String,
        bufferSeconds: Double,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> PulseOutput {
        let output = try locked { () throws -> PulseOutput in
            guard case .ready = state.phase else {
                if case .failed(let error) = state.phase { throw error }
                throw AudioSinkError.soundServerLost(detail: "connection closed")
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
            let capacity = max(format.channels * 2, Int(bufferSeconds * Double(format.bytesPerSecond)))
            let streamState = PulseStreamState(format: format, capacity: capacity, onUnderrun: onUnderrun)
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
            let flags = pa_stream_flags_t(
                rawValue: PA_STREAM_START_CORKED.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue
                    | PA_STREAM_AUTO_TIMING_UPDATE.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue
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
            return PulseOutput(connection: self, streamState: streamState, contextState: state)
        }
        do {
            try await output.waitUntilReady()
        } catch {
            output.stop()
            throw error
        }
        return output
    }
}

// MARK: - Streams

/// One stream's state, shared with libpulse's callbacks; guarded by the main loop's lock. It stays
/// registered with the connection until libpulse reports the stream terminated or failed, so a callback
/// never sees freed memory.
final class PulseStreamState: @unchecked Sendable {
    enum Phase {
        case connecting
        case ready
        case failed(AudioSinkError)
        case closed
    }

    let format: PCMFormat
    let onUnderrun: @Sendable () -> Void
    var stream: OpaquePointer?
    var phase: Phase = .connecting
    var readyWaiter: CheckedContinuation<Void, any Error>?
    /// A `write` waiting for room in `queue`.
    var spaceWaiter: CheckedContinuation<Void, any Error>?
    /// A `drain` waiting for `queue` to empty, then for the server's drain.
    var drainWaiter: CheckedContinuation<Void, any Error>?
    /// Called when the stream is gone for good (to unregister it).
    var onGone: (() -> Void)?

    /// Audio accepted by `write` and not yet handed to the server (bytes from `queueStart` on). Bounded
    /// by `capacity`; the server itself holds only about `PulseConnection.latency` more.
    var queue: [UInt8] = []
    var queueStart = 0
    let capacity: Int
    var frameBytes: Int { format.channels * 2 }
    var pending: Int { queue.count - queueStart }

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

    func failAll(_ error: any Error) {
        readyWaiter?.resume(throwing: error)
        spaceWaiter?.resume(throwing: error)
        drainWaiter?.resume(throwing: error)
        readyWaiter = nil
        spaceWaiter = nil
        drainWaiter = nil
    }

    /// Hands queued audio to the server as far as it asks for it (main loop locked). Wakes a writer when
    /// there is room again.
    func pump() {
        guard let stream, case .ready = phase else { return }
        var writable = pa_stream_writable_size(stream)
        while writable != -1, pending >= frameBytes, writable >= frameBytes {
            let count = min(writable, pending) / frameBytes * frameBytes
            let status = queue.withUnsafeBytes { raw in
                pa_stream_write(stream, raw.baseAddress! + queueStart, count, nil, 0, PA_SEEK_RELATIVE)
            }
            if status < 0 {
                phase = .failed(.soundServerLost(detail: PulseError.message(status)))
                failAll(blockingError ?? CancellationError())
                return
            }
            queueStart += count
            writable -= count
        }
        if queueStart > 0 && queueStart >= queue.count / 2 {
            queue.removeFirst(queueStart)
            queueStart = 0
        }
        if pending < capacity, let waiter = spaceWaiter {
            spaceWaiter = nil
            waiter.resume()
        }
    }

    static let stateCallback: pa_stream_notify_cb_t = { stream, userdata in
        guard let stream, let userdata else { return }
        let state = Unmanaged<PulseStreamState>.fromOpaque(userdata).takeUnretainedValue()
        switch pa_stream_get_state(stream) {
        case PA_STREAM_READY:
            if case .connecting = state.phase { state.phase = .ready }
            state.readyWaiter?.resume()
            state.readyWaiter = nil
        case PA_STREAM_FAILED:
            let detail = PulseError.message(of: pa_stream_get_context(stream))
            if case .closed = state.phase {
            } else {
                state.phase = .failed(.soundServerLost(detail: detail))
            }
            state.failAll(state.blockingError ?? CancellationError())
            state.onGone?()
        case PA_STREAM_TERMINATED:
            if case .failed = state.phase {} else { state.phase = .closed }
            state.failAll(state.blockingError ?? CancellationError())
            state.onGone?()
        default:
            break
        }
    }

    static let writeCallback: pa_stream_request_cb_t = { _, _, userdata in
        guard let userdata else { return }
        let state = Unmanaged<PulseStreamState>.fromOpaque(userdata).takeUnretainedValue()
        state.pump()
        if state.pending == 0, let drain = state.drainWaiter, let stream = state.stream, !state.drainIssued {
            state.issueDrain(stream, drain)
        }
    }

    /// Asks the server to play out what it holds; `drainWaiter` is resumed by `drainCallback`.
    var drainIssued = false

    func issueDrain(_ stream: OpaquePointer, _ waiter: CheckedContinuation<Void, any Error>) {
        drainIssued = true
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        if let operation = pa_stream_drain(stream, PulseStreamState.drainCallback, userdata) {
            pa_operation_unref(operation)
        } else {
            drainWaiter = nil
            waiter.resume(throwing: AudioSinkError.soundServerLost(detail: "drain refused"))
        }
    }

    static let underflowCallback: pa_stream_notify_cb_t = { _, userdata in
        guard let userdata else { return }
        let state = Unmanaged<PulseStreamState>.fromOpaque(userdata).takeUnretainedValue()
        state.onUnderrun()
    }

    static let drainCallback: pa_stream_success_cb_t = { _, success, userdata in
        guard let userdata else { return }
        let state = Unmanaged<PulseStreamState>.fromOpaque(userdata).takeUnretainedValue()
        if success != 0 {
            state.drainWaiter?.resume()
        } else {
            state.drainWaiter?.resume(
                throwing: state.blockingError ?? AudioSinkError.soundServer(detail: "drain failed"))
        }
        state.drainWaiter = nil
    }
}

/// A track's playback stream on the session's connection.
final class PulseOutput: AudioOutput, @unchecked Sendable {
    private let connection: PulseConnection
    private let state: PulseStreamState
    private let contextState: ContextState

    fileprivate init(connection: PulseConnection, streamState: PulseStreamState, contextState: ContextState) {
        self.connection = connection
        self.state = streamState
        self.contextState = contextState
        let key = ObjectIdentifier(streamState)
        streamState.onGone = { [weak contextState] in
            contextState?.streams[key] = nil
        }
    }

    deinit {
        stop()
    }

    var format: PCMFormat { state.format }

    fileprivate func waitUntilReady() async throws {
        try await wait { state in
            if case .ready = state.phase { return true }
            return false
        } register: { state, continuation in
            state.readyWaiter = continuation
        }
    }

    func write(_ samples: [Int16]) async throws {
        let frameBytes = state.format.channels * 2
        let total = samples.count * 2
        var offset = 0
        while offset < total {
            try await wait { state in
                state.pending + frameBytes <= state.capacity
            } register: { state, continuation in
                state.spaceWaiter = continuation
            }
            try connection.locked {
                if let error = state.blockingError { throw error }
                let room = (state.capacity - state.pending) / frameBytes * frameBytes
                let count = min(room, total - offset)
                guard count > 0 else { return }
                samples.withUnsafeBytes { raw in
                    state.queue.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)]))
                }
                offset += count
                state.pump()
            }
        }
    }

    func start() throws {
        try cork(false)
    }

    func pause() throws {
        try cork(true)
    }

    private func cork(_ corked: Bool) throws {
        try connection.locked {
            if let error = state.blockingError { throw error }
            guard let stream = state.stream else { return }
            if let operation = pa_stream_cork(stream, corked ? 1 : 0, nil, nil) {
                pa_operation_unref(operation)
            }
        }
    }

    func drain() async throws {
        try await wait { _ in
            false
        } register: { state, continuation in
            guard let stream = state.stream, state.drainWaiter == nil else {
                continuation.resume(throwing: CancellationError())
                return
            }
            state.drainWaiter = continuation
            state.drainIssued = false
            state.pump()
            // Once our queue is empty the server is asked to drain; until then the write callback asks.
            if state.pending == 0 {
                state.issueDrain(stream, continuation)
            }
        }
    }

    func stop() {
        connection.locked {
            guard let stream = state.stream else { return }
            if case .ready = state.phase, let operation = pa_stream_flush(stream, nil, nil) {
                pa_operation_unref(operation)
            }
            switch state.phase {
            case .connecting, .ready:
                state.phase = .closed
                pa_stream_disconnect(stream)
            case .failed, .closed:
                break
            }
            state.failAll(state.blockingError ?? CancellationError())
            state.queue = []
            state.queueStart = 0
            state.stream = nil
            pa_stream_unref(stream)
        }
    }

    var playedSeconds: Double? {
        connection.locked {
            guard let stream = state.stream, case .ready = state.phase else { return nil }
            var microseconds: pa_usec_t = 0
            guard pa_stream_get_time(stream, &microseconds) == 0 else { return nil }
            return Double(microseconds) / 1_000_000
        }
    }

    /// Suspends until `ready` holds (checked with the lock held), registering the continuation with
    /// `register` otherwise; a stopped or failed stream, or task cancellation, ends the wait with an error.
    private func wait(
        until ready: @escaping (PulseStreamState) -> Bool,
        register: @escaping (PulseStreamState, CheckedContinuation<Void, any Error>) -> Void
    ) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                connection.locked {
                    if let error = state.blockingError {
                        continuation.resume(throwing: error)
                    } else if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else if ready(state) {
                        continuation.resume()
                    } else {
                        register(state, continuation)
                    }
                }
            }
        } onCancel: {
            // Not here: the cancel handler runs with the task's status lock held, while the mainloop thread,
            // holding the mainloop lock, may be resuming this very task (which needs the status lock).
            // Taking the mainloop lock from another thread breaks that cycle; it also orders this after any
            // registration in progress, so a continuation registered just before cancellation is still failed.
            let connection = self.connection
            let state = self.state
            DispatchQueue.global().async {
                connection.locked {
                    state.failAll(CancellationError())
                }
            }
        }
    }
}
