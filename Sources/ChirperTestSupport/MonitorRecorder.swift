import Foundation
import Glibc
import NIOConcurrencyHelpers

/// What `parec` captured from the monitor.
public struct MonitorRecording: Sendable {
    /// Interleaved 16-bit samples.
    public var samples: [Int16]
    public var sampleRate: Int
    public var channels: Int
    /// When the first sample louder than the silence threshold arrived from `parec`.
    public var firstSoundAt: ContinuousClock.Instant?
    /// When the last data holding such a sample arrived.
    public var lastSoundAt: ContinuousClock.Instant?
}

/// A running `parec` on the harness's monitor, collecting samples as they arrive.
public final class MonitorRecorder: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var firstSoundAt: ContinuousClock.Instant?
        var lastSoundAt: ContinuousClock.Instant?
        var flowing = false
        var ended = false
        var watchers: [(condition: @Sendable (Progress) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

        var progress: Progress {
            Progress(bytes: bytes.count, heardSound: firstSoundAt != nil, ended: ended)
        }
    }

    /// What a wait can look at.
    struct Progress: Sendable {
        var bytes: Int
        var heardSound: Bool
        var ended: Bool
    }

    /// A sample whose magnitude exceeds this counts as sound.
    public static let silenceThreshold: Int16 = 64

    private let process: ChildProcess
    private let state = NIOLockedValueBox(State())
    public let sampleRate: Int
    public let channels: Int

    init(executable: String, arguments: [String], environment: [String: String], sampleRate: Int, channels: Int) throws
    {
        self.sampleRate = sampleRate
        self.channels = channels
        let state = self.state
        process = try ChildProcess(
            executable: executable,
            arguments: arguments,
            environment: environment,
            captureOutput: true,
            onOutput: { data in
                let now = ContinuousClock.now
                let ready = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
                    if data.isEmpty {
                        state.ended = true
                    } else {
                        let start = state.bytes.count
                        state.bytes.append(contentsOf: data)
                        state.flowing = true
                        // Scan the whole samples that arrived for sound.
                        var index = start - start % 2
                        while index + 1 < state.bytes.count {
                            let value = Int16(
                                bitPattern: UInt16(state.bytes[index]) | UInt16(state.bytes[index + 1]) << 8)
                            if abs(Int(value)) > Int(MonitorRecorder.silenceThreshold) {
                                if state.firstSoundAt == nil { state.firstSoundAt = now }
                                state.lastSoundAt = now
                                break
                            }
                            index += 2
                        }
                    }
                    let progress = state.progress
                    let ready = state.watchers.filter { progress.ended || $0.condition(progress) }
                    state.watchers.removeAll { progress.ended || $0.condition(progress) }
                    return ready.map(\.continuation)
                }
                for continuation in ready { continuation.resume() }
            }
        )
    }

    deinit {
        process.kill()
    }

    /// Returns once `parec` delivers data (it is connected and recording).
    func waitUntilFlowing() async throws {
        await wait { $0.bytes > 0 }
        if state.withLockedValue({ $0.bytes.isEmpty }) {
            throw HarnessError.failed("parec exited before recording")
        }
    }

    /// Returns when `condition` holds for what has arrived (checked as data arrives), or parec has ended.
    private func wait(_ condition: @escaping @Sendable (Progress) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { state in
                let progress = state.progress
                if progress.ended || condition(progress) { return true }
                state.watchers.append((condition, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Returns once a non-silent sample has arrived.
    public func waitForSound() async {
        await wait { $0.heardSound }
    }

    /// Returns once `seconds` more audio (sound or silence) has been recorded: the monitor's own clock,
    /// so a test can capture a tail without sleeping.
    public func waitForMore(seconds: Double) async {
        let target = state.withLockedValue { $0.bytes.count } + Int(seconds * Double(sampleRate)) * channels * 2
        await wait { $0.bytes >= target }
    }

    /// Seconds recorded so far.
    public var recordedSeconds: Double {
        Double(state.withLockedValue { $0.bytes.count } / 2 / channels) / Double(sampleRate)
    }

    /// When the first non-silent sample arrived, if one has.
    public var firstSoundAt: ContinuousClock.Instant? { state.withLockedValue { $0.firstSoundAt } }

    /// When the last data holding a non-silent sample arrived.
    public var lastSoundAt: ContinuousClock.Instant? { state.withLockedValue { $0.lastSoundAt } }

    /// Stops `parec` and returns everything it recorded.
    public func stop() async -> MonitorRecording {
        process.terminate()
        await process.waitForExit()
        let (bytes, first, last) = state.withLockedValue { ($0.bytes, $0.firstSoundAt, $0.lastSoundAt) }
        let count = bytes.count / 2
        var samples = [Int16](repeating: 0, count: count)
        for index in 0..<count {
            samples[index] = Int16(bitPattern: UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8)
        }
        return MonitorRecording(
            samples: samples,
            sampleRate: sampleRate,
            channels: channels,
            firstSoundAt: first,
            lastSoundAt: last
        )
    }
}
