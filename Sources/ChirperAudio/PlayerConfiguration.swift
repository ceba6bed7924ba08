import ChirperCore

extension Player {
    public struct Configuration: Sendable {
        /// When to start and restart the sound.
        public var policy: BufferingPolicy
        /// No sign of life (audio queued, the position moving) for this long while buffering or playing:
        /// `failed("network stalled…")`, whatever the transport and whichever request is waiting.
        public var stallTimeout: Duration
        /// A stall watchdog that wakes this much or more after its deadline was itself not running (the machine
        /// slept, or the process got no processor): what arrived meanwhile has not been seen yet, so the watch
        /// is given this long again, counted from the wake-up, before the track is failed.
        public var lateWakeGrace: Duration
        /// How often the position is read from the sink while playing.
        public var progressInterval: Duration
        /// Largest piece of input fed to the decoder at once (bounds the PCM produced per step).
        public var decodeChunkBytes: Int
        /// How many dropped connections a track survives (each resumed with `Range: bytes=N-`).
        public var maxReconnects: Int
        /// The wait before the first reconnect; it doubles for each further one (on the injected clock).
        public var reconnectBackoff: Duration

        public init(
            policy: BufferingPolicy = .default,
            stallTimeout: Duration = .seconds(20),
            lateWakeGrace: Duration = .seconds(2),
            progressInterval: Duration = .milliseconds(250),
            decodeChunkBytes: Int = 16 * 1024,
            maxReconnects: Int = 3,
            reconnectBackoff: Duration = .milliseconds(500)
        ) {
            self.policy = policy
            self.stallTimeout = stallTimeout
            self.lateWakeGrace = lateWakeGrace
            self.progressInterval = progressInterval
            self.decodeChunkBytes = max(1, decodeChunkBytes)
            self.maxReconnects = max(0, maxReconnects)
            self.reconnectBackoff = reconnectBackoff
        }

        /// The wait before reconnect number `attempt` (1, 2, …): the back-off, doubled per earlier attempt.
        public func backoff(attempt: Int) -> Duration {
            reconnectBackoff * (1 << min(max(attempt - 1, 0), 16))
        }
    }

    /// The clocks the player waits on, each injectable on its own so tests can drive one without the others.
    public struct Clocks: Sendable {
        /// Times the stall watchdog (`Configuration.stallTimeout`, over the machine's `stallWatch`).
        public var stall: any Clock<Duration>
        /// Times the wait before each reconnect (`Configuration.backoff(attempt:)`).
        public var backoff: any Clock<Duration>
        /// Times the position reads (`Configuration.progressInterval`) and the publish throttle.
        public var progress: any Clock<Duration>

        public init(
            stall: any Clock<Duration> = ContinuousClock(),
            backoff: any Clock<Duration> = ContinuousClock(),
            progress: any Clock<Duration> = ContinuousClock()
        ) {
            self.stall = stall
            self.backoff = backoff
            self.progress = progress
        }
    }
}
