import ChirperCore
import NIOConcurrencyHelpers

/// Decodes and discards: every track "plays" as fast as it decodes. For `--output null`, benchmarks and tests.
public final class NullSink: AudioSink {
    private let counters = NIOLockedValueBox<(outputs: Int, samples: Int)>((0, 0))

    public init() {}

    /// Tracks opened and samples written so far (for tests and benchmarks).
    public var totals: (outputs: Int, samples: Int) { counters.withLockedValue { $0 } }

    public func prepare() async throws {}

    public var playsInRealTime: Bool { false }

    public func openOutput(
        format: PCMFormat,
        label: String,
        bufferSeconds: Double,
        continuing: Bool,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> any AudioOutput {
        counters.withLockedValue { $0.outputs += 1 }
        return NullOutput(format: format, counters: counters)
    }

    public func shutdown() {}
}

final class NullOutput: AudioOutput {
    let format: PCMFormat
    private let written = NIOLockedValueBox<(samples: Int, stopped: Bool)>((0, false))
    private let counters: NIOLockedValueBox<(outputs: Int, samples: Int)>

    init(format: PCMFormat, counters: NIOLockedValueBox<(outputs: Int, samples: Int)>) {
        self.format = format
        self.counters = counters
    }

    func write(_ samples: [Int16]) async throws -> OutputWrite {
        let cancelled = Task.isCancelled
        let stopped = written.withLockedValue { state in
            if !state.stopped, !cancelled { state.samples += samples.count }
            return state.stopped || cancelled
        }
        if stopped { return .stopped }
        counters.withLockedValue { $0.samples += samples.count }
        return .queued
    }

    func start() throws {}
    func pause() throws {}
    // Nothing is heard: the volume changes nothing.
    func setVolume(percent: Int) {}

    func drain() async throws -> OutputDrain {
        written.withLockedValue { $0.stopped } || Task.isCancelled ? .stopped : .played(secondsAgo: 0)
    }

    func stop() {
        written.withLockedValue { $0.stopped = true }
    }

    var playedSeconds: Double? {
        format.seconds(ofSamples: written.withLockedValue { $0.samples })
    }
}
