import CPulse
import Dispatch

/// One stream's state, shared with libpulse's callbacks; guarded by the main loop's lock. It stays
/// registered with the connection until libpulse reports the stream terminated or failed, so a callback
/// never sees freed memory.
// @unchecked: every field is read and written only with the main loop locked (callbacks run with it held).
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
final class PulseOutput: AudioOutput, Sendable {
    private let connection: PulseConnection
    private let state: PulseStreamState
    private let contextState: ContextState

    init(connection: PulseConnection, streamState: PulseStreamState, contextState: ContextState) {
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

    func waitUntilReady() async throws {
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

    func setVolume(percent: Int) {
        connection.setVolume(percent: percent, of: state)
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
                // Decided under the lock, resumed outside it (`register` may still resume at once).
                let decided: Result<Void, any Error>? = connection.locked {
                    if let error = state.blockingError { return .failure(error) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if ready(state) { return .success(()) }
                    register(state, continuation)
                    return nil
                }
                if let decided { continuation.resume(with: decided) }
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
