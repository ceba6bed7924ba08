import ChirperCore
import NIOConcurrencyHelpers

/// Plays through PulseAudio (or PipeWire's PulseAudio server), the default output.
///
/// One connection (a threaded main loop and a context) is kept for the session; each track gets its own
/// playback stream at the track's rate and channel count. A missing server fails fast (autospawn is off);
/// a connection that died is replaced on the next `prepare`. A track's audio is held back until `start`;
/// `stop` empties the stream, which silences it at once, and keeps it for the next track of the same format.
public final class PulseAudioSink: AudioSink {
    /// The server to use (`unix:/path/native`, `tcp:host`), or `nil` for libpulse's default (`PULSE_SERVER`,
    /// then the user's session server).
    public let server: String?
    private let applicationName: String
    /// Times how long a stopped track's stream waits, ready, for the next.
    private let clock: any Clock<Duration>
    private let current = NIOLockedValueBox<PulseConnection?>(nil)

    public init(
        server: String? = nil, applicationName: String = "chirper-play", clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.server = server
        self.applicationName = applicationName
        self.clock = clock
    }

    deinit {
        shutdown()
    }

    public func prepare() async throws {
        // Before the first connection, libpulse brings some twenty libraries to load and relocate, milliseconds
        // of CPU that do not await: loaded on a thread of its own, they do not hold a thread of the cooperative
        // pool (one per core) from the session's tasks meanwhile, such as the first search's. Later tracks find
        // the connection (`connection` decides whether it is still good, and waits until it is ready).
        if current.withLockedValue({ $0 == nil }) { try await onOwnThread { try PulseLibrary.load() } }
        _ = try await connection()
    }

    public func openOutput(
        format: PCMFormat,
        label: String,
        bufferSeconds: Double,
        continuing: Bool,
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
            let fresh = try PulseConnection(server: server, applicationName: applicationName, clock: clock)
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
