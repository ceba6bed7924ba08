import ChirperCore
import ChirperAudio
import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers

/// A test sink whose "speaker" moves only when the test says: writes wait while `capacity` seconds are
/// queued; `play(seconds:)` consumes audio (if started); `underrun()` empties the queue and reports it;
/// `completeDrain()` ends a drain. Every call is logged, every sample accepted kept. `prepare` can be made to
/// fail.
final class GatedSink: AudioSink {
    private struct State {
        var outputs: [GatedOutput] = []
        var prepareFailures: [any Error] = []
        var prepares = 0
        var before: (@Sendable (String) -> Void)?
        /// Opens wait on this clock, which the test never moves: a sound server that does not answer.
        var unanswered: ManualClock?
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

    /// Called at the beginning of each output's `start` ("start") and `setVolume` ("volume"), before the call
    /// acts: what `action` does comes between the decision and the act.
    func before(_ action: @escaping @Sendable (String) -> Void) {
        state.withLockedValue { $0.before = action }
    }

    /// From now on, `openOutput` waits on `clock` (which the test never moves) until its task is cancelled.
    func leaveOpensUnanswered(on clock: ManualClock) {
        state.withLockedValue { $0.unanswered = clock }
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
        continuing: Bool,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> any AudioOutput {
        if let unanswered = state.withLockedValue({ $0.unanswered }) {
            try await unanswered.sleep(for: .seconds(3600))
        }
        let output = state.withLockedValue { state in
            let output = GatedOutput(
                format: format, capacity: min(capacity, bufferSeconds), onUnderrun: onUnderrun, before: state.before)
            state.outputs.append(output)
            return output
        }
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
        /// Whether a write was waiting in this output when `stop` was first called (nil before).
        var writeWaitingAtStop: Bool?
        var samples: [Int16] = []
        /// Writes accepted so far, and how many there had been when the output was first started.
        var writes = 0
        var writesBeforeFirstStart: Int?
        var writeWaiters: [CheckedContinuation<Void, any Error>] = []
        var drainWaiter: CheckedContinuation<Void, any Error>?
        /// What the completed drain reports: how long ago its last sample was heard.
        var drainLate = 0.0
        var logWatchers: [(entry: String, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var blockedWatchers: [CheckedContinuation<Void, Never>] = []
        /// Waiting for a write to wait for room or for a drain, whichever comes first.
        var settleWatchers: [CheckedContinuation<Void, Never>] = []
        /// Waiting for this many samples to be accepted.
        var sampleWaiters = CountWaiters()

        /// Appends to the log; returns the watchers to resume.
        mutating func record(_ entry: String) -> [CheckedContinuation<Void, Never>] {
            log.append(entry)
            let seen = log.filter { $0 == entry }.count
            let ready = logWatchers.filter { $0.entry == entry && $0.count <= seen }.map(\.continuation)
            logWatchers.removeAll { $0.entry == entry && $0.count <= seen }
            return ready
        }
    }
    private let state = NIOLockedValueBox(State())
    let format: PCMFormat
    private let capacityFrames: Int
    private let onUnderrun: @Sendable () -> Void
    private let before: (@Sendable (String) -> Void)?

    init(
        format: PCMFormat, capacity: Double, onUnderrun: @escaping @Sendable () -> Void,
        before: (@Sendable (String) -> Void)? = nil
    ) {
        self.format = format
        self.capacityFrames = Int(capacity * Double(format.sampleRate))
        self.onUnderrun = onUnderrun
        self.before = before
    }

    /// Calls made on this output: "start", "pause", "drain", "stop" (writes are not logged).
    var log: [String] { state.withLockedValue { $0.log } }
    var volume: Int { state.withLockedValue { $0.volume } }

    func setVolume(percent: Int) {
        before?("volume")
        state.withLockedValue { $0.volume = percent }
    }
    var isStopped: Bool { state.withLockedValue { $0.stopped } }
    var isRunning: Bool { state.withLockedValue { $0.running } }
    var drainRequested: Bool { state.withLockedValue { $0.drainRequested } }
    var queuedSeconds: Double { Double(state.withLockedValue { $0.queued }) / Double(format.sampleRate) }
    /// Every sample the output accepted, in order.
    var samples: [Int16] { state.withLockedValue { $0.samples } }
    /// How many writes the output had accepted when it was first started (nil before).
    var writesBeforeFirstStart: Int? { state.withLockedValue { $0.writesBeforeFirstStart } }

    func write(_ samples: [Int16]) async throws -> OutputWrite {
        try await OutputWrite.answering { try await queue(samples) }
    }

    /// Returns once the output has accepted `count` samples (at once if it has).
    func waitForSamples(_ count: Int) async {
        await state.wait(until: count, counted: { $0.samples.count }, in: \.sampleWaiters)
    }

    private func queue(_ samples: [Int16]) async throws {
        let frames = samples.count / format.channels
        while true {
            var watchers: [CheckedContinuation<Void, Never>] = []
            let outcome = state.withLockedValue { state -> Result<Bool, any Error> in
                if state.stopped { return .failure(CancellationError()) }
                if !state.gateClosed && state.queued - state.played < capacityFrames {
                    state.queued += frames
                    state.samples += samples
                    state.writes += 1
                    watchers = state.sampleWaiters.reached(state.samples.count)
                    return .success(true)
                }
                return .success(false)
            }
            watchers.forEach { $0.resume() }
            if try outcome.get() { return }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let (resumeNow, watchers) = state.withLockedValue { state in
                        if state.stopped || Task.isCancelled
                            || (!state.gateClosed && state.queued - state.played < capacityFrames)
                        {
                            return (true, [CheckedContinuation<Void, Never>]())
                        }
                        state.writeWaiters.append(continuation)
                        defer {
                            state.blockedWatchers.removeAll()
                            state.settleWatchers.removeAll()
                        }
                        return (false, state.blockedWatchers + state.settleWatchers)
                    }
                    for watcher in watchers { watcher.resume() }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                wakeAll(CancellationError())
            }
        }
    }

    func start() throws {
        before?("start")
        let watchers = state.withLockedValue { state in
            state.running = true
            if state.writesBeforeFirstStart == nil { state.writesBeforeFirstStart = state.writes }
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

    /// Returns once `entry` is in the log `count` times (at once if it already is).
    func waitForLog(_ entry: String, count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let present = state.withLockedValue { state in
                if state.log.filter({ $0 == entry }).count >= count { return true }
                state.logWatchers.append((entry, count, continuation))
                return false
            }
            if present { continuation.resume() }
        }
    }

    /// Returns once a write is waiting in the output for room (at once if one is).
    func waitUntilWriteWaits() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLockedValue { state in
                if !state.writeWaiters.isEmpty { return true }
                state.blockedWatchers.append(continuation)
                return false
            }
            if waiting { continuation.resume() }
        }
    }

    /// Plays a second at a time, each once the feed has filled the sink again (a write waits for room), until
    /// the player asks to drain: the whole track has been handed over.
    func playUntilDrain() async {
        while !drainRequested {
            play(seconds: 1)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let settled = state.withLockedValue { state in
                    if !state.writeWaiters.isEmpty || state.drainRequested { return true }
                    state.settleWatchers.append(continuation)
                    return false
                }
                if settled { continuation.resume() }
            }
        }
    }

    func drain() async throws -> OutputDrain {
        do {
            return .played(secondsAgo: try await waitForDrain())
        } catch is CancellationError {
            return .stopped
        }
    }

    private func waitForDrain() async throws -> Double {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (stopped, watchers) = state.withLockedValue { state in
                    let watchers = state.record("drain") + state.settleWatchers
                    state.settleWatchers.removeAll()
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
        return state.withLockedValue { $0.drainLate }
    }

    /// Whether a write was waiting in the output when `stop` was first called: then the stop came from
    /// outside the writing task, not from that task winding down (nil before any stop).
    var writeWaitingAtStop: Bool? { state.withLockedValue { $0.writeWaitingAtStop } }

    func stop() {
        let watchers = state.withLockedValue { state in
            if state.writeWaitingAtStop == nil { state.writeWaitingAtStop = !state.writeWaiters.isEmpty }
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
    /// Ends the drain, its last sample heard `late` seconds before.
    func completeDrain(late: Double = 0) {
        let waiter = state.withLockedValue { state in
            state.played = state.queued
            state.drainLate = late
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

extension OutputWrite {
    /// A test output's answer to a write whose waits end with `CancellationError` when it is stopped or its task
    /// is cancelled: `.stopped`, as a real output answers.
    static func answering(_ queue: () async throws -> Void) async throws -> OutputWrite {
        do {
            try await queue()
            return .queued
        } catch is CancellationError {
            return .stopped
        }
    }
}
