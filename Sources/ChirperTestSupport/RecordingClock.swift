import NIOConcurrencyHelpers

/// A clock for tests that never waits: `sleep` returns at once, moving the clock's time forward to the
/// deadline and recording how long it was asked to sleep. Code under test sees time pass; tests run in
/// microseconds and can assert every wait.
public final class RecordingClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Sendable {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = NIOLockedValueBox<(now: Instant, sleeps: [Duration])>((Instant(offset: .zero), []))

    public init() {}

    public var now: Instant { state.withLockedValue { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Every sleep asked for, in order.
    public var sleeps: [Duration] { state.withLockedValue { $0.sleeps } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLockedValue { value in
            value.sleeps.append(value.now.duration(to: deadline))
            if value.now < deadline { value.now = deadline }
        }
    }

    /// Moves time forward without sleeping (e.g. to model time spent elsewhere).
    public func advance(by duration: Duration) {
        state.withLockedValue { $0.now = $0.now.advanced(by: duration) }
    }
}
