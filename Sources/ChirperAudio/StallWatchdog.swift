import NIOConcurrencyHelpers

/// Told by the reading loop when it starts and stops waiting for bytes; `run` throws
/// `ByteSourceError.stalled` once a wait lasts the whole timeout (by the injected clock).
protocol StallMonitor: Sendable {
    /// The reader is about to wait for bytes (the timeout starts now).
    func waiting()
    /// Bytes arrived, or the reader is busy elsewhere (decoding, or blocked on a full sink): no timeout.
    func notWaiting()
    /// Returns only by throwing: `stalled`, or `CancellationError` when cancelled.
    func run() async throws
}

/// Opens the clock existential so the watchdog can keep the clock's own instants.
func makeStallMonitor(clock: some Clock<Duration>, timeout: Duration) -> any StallMonitor {
    StallWatchdog(clock: clock, timeout: timeout)
}

final class StallWatchdog<C: Clock<Duration>>: StallMonitor {
    private struct State: Sendable {
        var waitingSince: C.Instant?
        var generation = 0
    }

    private let clock: C
    private let timeout: Duration
    private let state = NIOLockedValueBox(State())
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation

    init(clock: C, timeout: Duration) {
        self.clock = clock
        self.timeout = timeout
        (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    deinit {
        changed.finish()
    }

    func waiting() {
        let now = clock.now
        state.withLockedValue { state in
            state.waitingSince = now
            state.generation += 1
        }
        changed.yield()
    }

    func notWaiting() {
        state.withLockedValue { state in
            state.waitingSince = nil
            state.generation += 1
        }
        changed.yield()
    }

    func run() async throws {
        var signals = changes.makeAsyncIterator()
        while true {
            try Task.checkCancellation()
            let snapshot = state.withLockedValue { $0 }
            if let since = snapshot.waitingSince {
                try await clock.sleep(until: since.advanced(by: timeout), tolerance: nil)
                let unchanged = state.withLockedValue { $0.generation == snapshot.generation }
                if unchanged {
                    throw ByteSourceError.stalled(seconds: Self.seconds(timeout))
                }
            } else {
                _ = await signals.next()
            }
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
