import ChirperCore
import Glibc
import NIOConcurrencyHelpers

/// Writes what would have been played to a WAV file (16-bit PCM), for `--output wav:PATH`.
///
/// Each track replaces the file; within a track (after a seek or a loop) the audio is appended, so the file
/// holds what was heard. The header's sizes are kept right after every write, so the file is a valid WAV at
/// any moment, including after `stop`. Tracks are written as fast as they decode.
public final class WAVFileSink: AudioSink {
    public let path: String
    /// The last output, for a continuing one to append to.
    private let last = NIOLockedValueBox<WAVFileOutput?>(nil)

    public init(path: String) {
        self.path = path
    }

    public func openOutput(
        format: PCMFormat,
        label: String,
        bufferSeconds: Double,
        continuing: Bool,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> any AudioOutput {
        let previous = last.withLockedValue { $0 }
        let output: WAVFileOutput
        if continuing, let previous, previous.format == format {
            previous.stop()
            output = try WAVFileOutput(path: path, format: format, appendingAfter: previous.dataBytes)
        } else {
            previous?.stop()
            output = try WAVFileOutput(path: path, format: format)
        }
        last.withLockedValue { $0 = output }
        return output
    }

    public func prepare() async throws {}

    public var playsInRealTime: Bool { false }

    public func shutdown() {}
}

final class WAVFileOutput: AudioOutput {
    let format: PCMFormat
    private let path: String
    private struct State {
        var descriptor: Int32
        var dataBytes: Int = 0
        /// Applied to what is written (a file has no stream volume).
        var gain: Double = 1
    }
    private let state: NIOLockedValueBox<State>

    /// The largest data size a RIFF header can state.
    private static let maximumDataBytes = Int(UInt32.max) - 36

    /// Starts the file over, or (`appendingAfter`) goes on after that many bytes of samples already in it.
    init(path: String, format: PCMFormat, appendingAfter dataBytes: Int? = nil) throws {
        self.path = path
        self.format = format
        let truncate = dataBytes == nil ? O_TRUNC : 0
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | truncate | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AudioSinkError.file(path: path, reason: String(cString: strerror(errno))) }
        do {
            try Self.writeAll(Self.header(format: format, dataBytes: dataBytes ?? 0), to: fd, at: 0, path: path)
        } catch {
            Glibc.close(fd)
            throw error
        }
        state = NIOLockedValueBox(State(descriptor: fd, dataBytes: dataBytes ?? 0))
    }

    /// Bytes of samples in the file.
    var dataBytes: Int { state.withLockedValue { $0.dataBytes } }

    deinit {
        stop()
    }

    func write(_ samples: [Int16]) async throws -> OutputWrite {
        if Task.isCancelled { return .stopped }
        return try state.withLockedValue { state in
            guard state.descriptor >= 0 else { return .stopped }
            let room = Self.maximumDataBytes - state.dataBytes
            let count = min(samples.count, room / 2)
            guard count > 0 else { return .queued }
            var scaled = samples
            Gain.apply(state.gain, to: &scaled)
            var bytes = [UInt8](repeating: 0, count: count * 2)
            for index in 0..<count {
                let value = UInt16(bitPattern: scaled[index])
                bytes[2 * index] = UInt8(value & 0xFF)
                bytes[2 * index + 1] = UInt8(value >> 8)
            }
            try Self.writeAll(bytes, to: state.descriptor, at: 44 + state.dataBytes, path: path)
            state.dataBytes += bytes.count
            try Self.writeAll(
                Self.header(format: format, dataBytes: state.dataBytes), to: state.descriptor, at: 0, path: path)
            return .queued
        }
    }

    func start() throws {}
    func pause() throws {}

    func setVolume(percent: Int) {
        state.withLockedValue { $0.gain = Gain.linear(percent: percent) }
    }

    func drain() async throws -> OutputDrain {
        state.withLockedValue { $0.descriptor < 0 } || Task.isCancelled ? .stopped : .played(secondsAgo: 0)
    }

    func stop() {
        state.withLockedValue { state in
            if state.descriptor >= 0 {
                Glibc.close(state.descriptor)
                state.descriptor = -1
            }
        }
    }

    var playedSeconds: Double? {
        format.seconds(ofSamples: state.withLockedValue { $0.dataBytes } / 2)
    }

    /// A 44-byte canonical header for 16-bit PCM.
    static func header(format: PCMFormat, dataBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44)
        func append32(_ value: Int) {
            let value = UInt32(truncatingIfNeeded: value)
            bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
        }
        func append16(_ value: Int) {
            bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
        }
        bytes += Array("RIFF".utf8)
        append32(36 + dataBytes)
        bytes += Array("WAVEfmt ".utf8)
        append32(16)
        append16(1)  // WAVE_FORMAT_PCM
        append16(format.channels)
        append32(format.sampleRate)
        append32(format.bytesPerSecond)
        append16(format.channels * 2)
        append16(16)
        bytes += Array("data".utf8)
        append32(dataBytes)
        return bytes
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32, at offset: Int, path: String) throws {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw AudioSinkError.file(path: path, reason: String(cString: strerror(errno)))
            }
            done += count
        }
    }
}
