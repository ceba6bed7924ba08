import ChirperAudio
import Foundation
import NIOConcurrencyHelpers

/// A test sink whose "speaker" moves only when the test says: writes wait while `capacity` seconds are
/// queued; `play(seconds:)` consumes audio (if started); `underrun()` empties the queue and reports it;
/// `completeDrain()` ends a drain. Every call is logged. `prepare` can be made to fail.
final class GatedSink: AudioSink {
    private struct State {
        var outputs: [GatedOutput] = []
        var prepareFailures: [any Error] = []
        var prepares = 0
    }
    private let state = NIOLockedValueBox(State())
    let capacity: Double

    init(capacity: Double = 2.0) {
        self.capacity = capacity
    }

    /// The next `prepare` calls fail with these errors, in order.
    func failNextPrepares(with errors: [any Error]) {
        state.withLockedValue { $0.prepareFailures = errors }
    }

    var outputs: [GatedOutput] { state.withLockedValue { $0.outputs } }
    var prepareCount: Int { state.withLockedValue { $0.prepares } }

    func prepare() async throws {
        let failure = state.withLockedValue { state -> (any Error)? in
            state.prepares += 1
            return state.prepareFailures.isEmpty ? nil : state.prepareFailures.removeFirst()
        }
        if let failure { throw failure }
    }

    func openOutput(
        format: PCMFormat,
        label: String,
        bufferSeconds: Double,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> any AudioOutput {
        let output = GatedOutput(format: format, capacity: min(capacity, bufferSeconds), onUnderrun: onUnderrun)
        state.withLockedValue { $0.outputs.append(output) }
        return output
    }

    func shutdown() {}
}

final class GatedOutput: AudioOutput {
    private struct State {
        var queued = 0  // frames
        var played = 0  // frames
        var running = false
        var stopped = false
        /// Closed by `underrun()`: writes wait until `openGate()`.
        var gateClosed = false
        var drainRequested = false
        var log: [String] = []
        /// The volume last set (not logged: every output gets one when it is installed).
        var volume = 100
        var stoppedAt: ContinuousClock.Instant?
        var writeWaiters: [CheckedContinuation<Void, any Error>] = []
        var drainWaiter: CheckedContinuation<Void, any Error>?
        var logWatchers: [(entry: String, continuation: CheckedContinuation<Void, Never>)] = []

        /// Appends to the log; returns the watchers to resume.
        mutating func record(_ entry: String) -> [CheckedContinuation<Void, Never>] {
            log.append(entry)
            let ready = logWatchers.filter { $0.entry == entry }.map(\.continuation)
            logWatchers.removeAll { $0.entry == entry }
            return ready
        }
    }
    private let state = NIOLockedValueBox(State())
    let format: PCMFormat
    private let capacityFrames: Int
    private let onUnderrun: @Sendable () -> Void

    init(format: PCMFormat, capacity: Double, onUnderrun: @escaping @Sendable () -> Void) {
        self.format = format
        self.capacityFrames = Int(capacity * Double(format.sampleRate))
        self.onUnderrun = onUnderrun
    }

    /// Calls made on this output: "start", "pause", "drain", "stop" (writes are not logged).
    var log: [String] { state.withLockedValue { $0.log } }
    var volume: Int { state.withLockedValue { $0.volume } }

    func setVolume(percent: Int) {
        state.withLockedValue { $0.volume = percent }
    }
    var isStopped: Bool { state.withLockedValue { $0.stopped } }
    var isRunning: Bool { state.withLockedValue { $0.running } }
    var drainRequested: Bool { state.withLockedValue { $0.drainRequested } }
    var queuedSeconds: Double { Double(state.withLockedValue { $0.queued }) / Double(format.sampleRate) }

    func write(_ samples: [Int16]) async throws {
        let frames = samples.count / format.channels
        while true {
            let outcome = state.withLockedValue { state -> Result<Bool, any Error> in
                if state.stopped { return .failure(CancellationError()) }
                if !state.gateClosed && state.queued - state.played < capacityFrames {
                    state.queued += frames
                    return .success(true)
                }
                return .success(false)
            }
            if try outcome.get() { return }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let resumeNow = state.withLockedValue { state in
                        if state.stopped || Task.isCancelled
                            || (!state.gateClosed && state.queued - state.played < capacityFrames)
                        {
                            return true
                        }
                        state.writeWaiters.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                wakeAll(CancellationError())
            }
        }
    }

    func start() throws {
        let watchers = state.withLockedValue { state in
            state.running = true
            return state.record("start")
        }
        for watcher in watchers { watcher.resume() }
    }

    func pause() throws {
        let watchers = state.withLockedValue { state in
            state.running = false
            return state.record("pause")
        }
        for watcher in watchers { watcher.resume() }
    }

    /// Returns once `entry` is in the log (at once if it already is).
    func waitForLog(_ entry: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let present = state.withLockedValue { state in
                if state.log.contains(entry) { return true }
                state.logWatchers.append((entry, continuation))
                return false
            }
            if present { continuation.resume() }
        }
    }

    func drain() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (stopped, watchers) = state.withLockedValue { state in
                    let watchers = state.record("drain")
                    state.drainRequested = true
                    if state.stopped || Task.isCancelled { return (true, watchers) }
                    state.drainWaiter = continuation
                    return (false, watchers)
                }
                for watcher in watchers { watcher.resume() }
                if stopped { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            wakeAll(CancellationError())
        }
    }

    /// When `stop` was first called.
    var stoppedAt: ContinuousClock.Instant? { state.withLockedValue { $0.stoppedAt } }

    func stop() {
        let watchers = state.withLockedValue { state in
            if state.stoppedAt == nil { state.stoppedAt = .now }
            defer { state.stopped = true }
            return state.stopped ? [] : state.record("stop")
        }
        for watcher in watchers { watcher.resume() }
        wakeAll(CancellationError())
    }

    var playedSeconds: Double? {
        Double(state.withLockedValue { $0.played }) / Double(format.sampleRate)
    }

    // MARK: Test controls

    /// The speaker plays `seconds` of what is queued (only while started).
    func play(seconds: Double) {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, any Error>] in
            guard state.running else { return [] }
            state.played = min(state.queued, state.played + Int(seconds * Double(format.sampleRate)))
            defer { state.writeWaiters.removeAll() }
            return state.writeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The queue runs dry: everything queued counts as played, and the player is told. Writes then wait
    /// until `openGate()`, so the test sees the refill happen when it says.
    func underrun() {
        state.withLockedValue { state in
            state.played = state.queued
            state.gateClosed = true
        }
        onUnderrun()
    }

    /// Lets writes continue after `underrun()`.
    func openGate() {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, any Error>] in
            state.gateClosed = false
            defer { state.writeWaiters.removeAll() }
            return state.writeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Ends a requested drain successfully.
    func completeDrain() {
        let waiter = state.withLockedValue { state in
            state.played = state.queued
            defer { state.drainWaiter = nil }
            return state.drainWaiter
        }
        waiter?.resume()
    }

    private func wakeAll(_ error: any Error) {
        let (writers, drain) = state.withLockedValue { state in
            defer {
                state.writeWaiters.removeAll()
                state.drainWaiter = nil
            }
            return (state.writeWaiters, state.drainWaiter)
        }
        for writer in writers { writer.resume(throwing: error) }
        drain?.resume(throwing: error)
    }
}
