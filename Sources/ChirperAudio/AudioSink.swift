import ChirperCore

/// Where decoded audio goes: the sound server, a WAV file, or nowhere.
///
/// A sink lives for the session (the PulseAudio sink keeps one connection); each track gets its own
/// `AudioOutput` in the track's format.
public protocol AudioSink: Sendable {
    /// Gets ready to play, e.g. connects (or reconnects) to the sound server. Fails fast, with a
    /// user-facing error, when that is impossible.
    func prepare() async throws
    /// Opens an output for one track. It starts silent: nothing is heard until `start()`.
    ///
    /// - Parameters:
    ///   - bufferSeconds: how much audio the output may hold ahead of the listener before `write` waits.
    ///   - continuing: the output goes on with the same track (after a seek, a loop or a format change), so a
    ///     sink that records (a WAV file) appends instead of starting over; a sink that plays ignores it.
    ///   - onUnderrun: called (on any thread) when a started output runs out of audio.
    func openOutput(
        format: PCMFormat,
        label: String,
        bufferSeconds: Double,
        continuing: Bool,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> any AudioOutput
    /// Ends the session: closes any connection. Idempotent; `prepare` may connect again later.
    func shutdown()
    /// Whether the sink plays in real time (a sound server) rather than as fast as audio is decoded.
    var playsInRealTime: Bool { get }
}

extension AudioSink {
    public var playsInRealTime: Bool { true }

    /// An output for a new track (not continuing one).
    public func openOutput(
        format: PCMFormat,
        label: String,
        bufferSeconds: Double,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> any AudioOutput {
        try await openOutput(
            format: format, label: label, bufferSeconds: bufferSeconds, continuing: false, onUnderrun: onUnderrun)
    }
}

/// One track's output stream.
///
/// `stop()` may be called from any task at any time: it silences at once, and a waiting `write` or `drain`
/// returns `.stopped`, as does one whose task is cancelled. Only a failure of the output is thrown.
public protocol AudioOutput: AnyObject, Sendable {
    var format: PCMFormat { get }
    /// Queues interleaved samples, waiting while the output holds `bufferSeconds` already.
    func write(_ samples: [Int16]) async throws -> OutputWrite
    /// Lets the output play.
    func start() throws
    /// Silences the output, keeping what is queued.
    func pause() throws
    /// Waits until everything queued has been played.
    func drain() async throws -> OutputDrain
    /// Drops what is queued, silences at once and closes. Idempotent.
    func stop()
    /// Seconds this output has played, if it can tell; `nil` to count what was written.
    var playedSeconds: Double? { get }
    /// Sets the volume (0…100, linear in amplitude: 50 halves it) of what is heard from now on, at once
    /// where the sound server can (a stream volume), else on what is written next.
    func setVolume(percent: Int)
}

/// How a write to an output ended, when the output did not fail.
public enum OutputWrite: Sendable, Equatable {
    /// Every sample given is queued.
    case queued
    /// The output was stopped under the write (a seek, a stop, a new track), or its task was cancelled: what
    /// was not queued is dropped.
    case stopped
}

/// How a drain of an output ended, when the output did not fail.
public enum OutputDrain: Sendable, Equatable {
    /// Everything queued was played, the last sample heard `secondsAgo` (a sound server reports the drain
    /// late; 0 when the output cannot tell).
    case played(secondsAgo: Double)
    /// The output was stopped under the drain, or its task was cancelled.
    case stopped
}

/// Why the sound could not be played.
public enum AudioSinkError: UserFacingError, Hashable {
    /// No sound server answered.
    case noSoundServer(detail: String)
    /// The sound server went away or failed while playing.
    case soundServerLost(detail: String)
    /// The sound server refused something.
    case soundServer(detail: String)
    /// A WAV output file could not be written.
    case file(path: String, reason: String)

    public var userMessage: String {
        switch self {
        case .noSoundServer:
            return "no sound server: is PulseAudio or PipeWire running? (or use --output wav:PATH)"
        case .soundServerLost(let detail):
            return "lost the sound server (\(detail)); play again to reconnect, or use --output wav:PATH"
        case .soundServer(let detail):
            return "sound server error: \(detail); play again, or use --output wav:PATH"
        case .file(let path, let reason):
            return "cannot write \(path): \(reason)"
        }
    }
}
