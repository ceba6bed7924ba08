import ChirperAudio
import ChirperCore
import ChirperSystem
import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The real recordings beside the repository (`../shared/xeno-canto/audio/` from the package root).
enum Fixtures {
    static let packageRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static let audioDirectory: String = URL(fileURLWithPath: packageRoot)
        .appendingPathComponent("../shared/xeno-canto/audio").standardized.path

    /// File names of the MP3s, sorted; empty when the folder is absent.
    static let mp3Names: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: audioDirectory)) ?? []
        return names.filter { $0.hasSuffix(".mp3") }.sorted()
    }()

    /// The trait condition and the message shown when the real recordings are not there.
    static let hasRecordings = !mp3Names.isEmpty
    static let noRecordings: Comment = "skipped: ../shared/xeno-canto/audio/ (real recordings) is absent"

    static let hasMPG123 = PulseHarness.executable(named: "mpg123") != nil
    static let noMPG123: Comment = "skipped: mpg123 (the reference decoder) is not installed"

    static func path(_ name: String) -> String { "\(audioDirectory)/\(name)" }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// The name of the recording whose file name contains `fragment` (e.g. "XC5168").
    static func named(_ fragment: String) -> String? {
        mp3Names.first { $0.contains(fragment + "-") }
    }

    /// `mpg123 -s` (raw native-endian s16 at the stream's own rate and channels) of a file; `options` such as
    /// `-r 44100 --mono` force an output format. Read through a pipe: to a regular file, mpg123 rewinds its
    /// output when the stream changes format.
    static func referenceDecode(_ path: String, options: [String] = []) async throws -> [Int16] {
        guard let mpg123 = PulseHarness.executable(named: "mpg123") else { throw TestFailure("mpg123 missing") }
        let result = try await Tool.run(mpg123, ["-q", "-s"] + options + [path], captureOutput: true)
        guard result.status == 0 else { throw TestFailure("mpg123 failed on \(path)") }
        return result.output.withUnsafeBytes { raw in
            (0..<raw.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "/chirper-audio-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What a decode produced: every format announced and all samples, concatenated.
struct Decoded: Equatable {
    var formats: [PCMFormat] = []
    var samples: [Int16] = []

    mutating func append(_ output: [DecodedAudio]) {
        for item in output {
            switch item {
            case .format(let format, _): formats.append(format)
            case .samples(let samples): self.samples += samples
            }
        }
    }
}

/// Decodes `bytes` with `StreamDecoder`, feeding them in pieces of the sizes `sizes` yields (cycled).
/// Yields now and then, so a long decode does not keep a thread from the timing-sensitive tests.
func decode(_ bytes: [UInt8], chunkSizes sizes: [Int]) async throws -> Decoded {
    let decoder = StreamDecoder(expectedLength: Int64(bytes.count))
    var result = Decoded()
    var offset = 0
    var index = 0
    while offset < bytes.count {
        let size = max(1, sizes[index % sizes.count])
        index += 1
        let end = min(offset + size, bytes.count)
        result.append(try bytes[offset..<end].withUnsafeBytes { try decoder.feed($0) })
        offset = end
        if index % 512 == 0 { await Task.yield() }
    }
    result.append(try decoder.finish())
    return result
}

/// Deterministic pseudo-random numbers (SplitMix64), so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func randomSizes(count: Int, upTo maximum: Int, seed: UInt64) -> [Int] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in Int.random(in: 1...maximum, using: &generator) }
}

func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

// MARK: - WAV fixtures

/// Sample encodings a generated WAV can use.
enum WAVEncoding: String, CaseIterable, CustomStringConvertible {
    case unsigned8, signed16, signed24, signed32, float32, float64
    case extensible24, extensibleFloat32

    var description: String { rawValue }

    var bytesPerSample: Int {
        switch self {
        case .unsigned8: 1
        case .signed16: 2
        case .signed24, .extensible24: 3
        case .signed32, .float32, .extensibleFloat32: 4
        case .float64: 8
        }
    }

    var isFloat: Bool { self == .float32 || self == .float64 || self == .extensibleFloat32 }
    var isExtensible: Bool { self == .extensible24 || self == .extensibleFloat32 }
}

/// A test signal: a rising chirp with a little noise, as 16-bit samples (interleaved, `channels` wide).
func chirpSignal(frames: Int, sampleRate: Int, channels: Int, seed: UInt64 = 7) -> [Int16] {
    var generator = SeededGenerator(seed: seed)
    var samples: [Int16] = []
    samples.reserveCapacity(frames * channels)
    for frame in 0..<frames {
        let t = Double(frame) / Double(sampleRate)
        let frequency = 400 + 2000 * t
        for channel in 0..<channels {
            let phase = 2 * Double.pi * frequency * t + Double(channel) * 0.7
            let noise = Double(Int.random(in: -200...200, using: &generator))
            samples.append(Int16(max(-32768, min(32767, (sin(phase) * 20000 + noise).rounded()))))
        }
    }
    return samples
}

/// Builds a WAV file holding `signal` in `encoding`, with extra chunks around the data to exercise the
/// parser. Returns the bytes and the 16-bit samples a correct reader must produce.
func makeWAV(
    _ signal: [Int16],
    encoding: WAVEncoding,
    sampleRate: Int,
    channels: Int,
    declaredDataSize: UInt32? = nil,
    extraChunks: Bool = true
) -> (bytes: [UInt8], expected: [Int16]) {
    var data: [UInt8] = []
    var expected: [Int16] = []
    var generator = SeededGenerator(seed: 11)
    for sample in signal {
        let value = Int32(sample)
        switch encoding {
        case .unsigned8:
            data.append(UInt8(truncatingIfNeeded: (value >> 8) + 128))
            expected.append(Int16(truncatingIfNeeded: (value >> 8) << 8))
        case .signed16:
            data += le(UInt32(bitPattern: value), bytes: 2)
            expected.append(sample)
        case .signed24, .extensible24:
            let low = Int32.random(in: 0...255, using: &generator)
            data += le(UInt32(bitPattern: value << 8 | low), bytes: 3)
            // Rounded half up to 16 bits, clipped at the top, as `sox -D` does.
            expected.append(Int16(min(32767, ((value << 8 | low) + 0x80) >> 8)))
        case .signed32:
            let low = Int32.random(in: 0...65535, using: &generator)
            data += le(UInt32(bitPattern: value << 16 | low), bytes: 4)
            expected.append(Int16(min(32767, (Int64(value << 16 | low) + 0x8000) >> 16)))
        case .float32, .extensibleFloat32:
            data += le(Float(Double(sample) / 32768).bitPattern, bytes: 4)
            expected.append(sample)
        case .float64:
            let bits = (Double(sample) / 32768).bitPattern
            data +=
                le(UInt32(truncatingIfNeeded: bits), bytes: 4) + le(UInt32(truncatingIfNeeded: bits >> 32), bytes: 4)
            expected.append(sample)
        }
    }
    let bits = encoding.bytesPerSample * 8
    let tag: UInt32 = encoding.isExtensible ? 0xFFFE : (encoding.isFloat ? 3 : 1)
    var format: [UInt8] = []
    format += le(tag, bytes: 2)
    format += le(UInt32(channels), bytes: 2)
    format += le(UInt32(sampleRate), bytes: 4)
    format += le(UInt32(sampleRate * channels * encoding.bytesPerSample), bytes: 4)
    format += le(UInt32(channels * encoding.bytesPerSample), bytes: 2)
    format += le(UInt32(bits), bytes: 2)
    if encoding.isExtensible {
        format += le(22, bytes: 2)  // cbSize
        format += le(UInt32(bits), bytes: 2)  // valid bits
        format += le(channels == 1 ? 0x4 : 0x3, bytes: 4)  // channel mask
        // SubFormat GUID: the format tag, then the fixed tail 00000000-0010-8000-00AA00389B71.
        format += le(encoding.isFloat ? 3 : 1, bytes: 4)
        format += [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
    }
    var body: [UInt8] = Array("WAVE".utf8)
    if extraChunks {
        body += chunk("LIST", Array("INFOISFT\u{5}\0\0\0test\0\0".utf8))  // before fmt
        body += chunk("junk", [1, 2, 3])  // odd size, padded
    }
    body += chunk("fmt ", format)
    if extraChunks {
        body += chunk("fact", le(UInt32(signal.count / channels), bytes: 4))
    }
    var dataChunk = chunk("data", data)
    if let declaredDataSize {
        dataChunk.replaceSubrange(4..<8, with: le(declaredDataSize, bytes: 4))
    }
    body += dataChunk
    if extraChunks && declaredDataSize == nil {
        body += chunk("id3 ", [9, 9, 9, 9, 9])  // after data, odd size
    }
    let riff = Array("RIFF".utf8) + le(UInt32(body.count), bytes: 4) + body
    return (riff, expected)
}

func chunk(_ id: String, _ payload: [UInt8]) -> [UInt8] {
    var bytes = Array(id.utf8) + le(UInt32(payload.count), bytes: 4) + payload
    if payload.count % 2 == 1 { bytes.append(0) }
    return bytes
}

/// 60 s of stereo audio at 8 kHz (a chirp with noise), for the player's tests that stop, pause and seek
/// mid-track. Call `makeLongWAV` first in a test: made where first used, its samples (seconds in a debug
/// build) held a cooperative-pool thread, or the test server's event loop.
let longWAV = makeWAV(
    chirpSignal(frames: 60 * 8000, sampleRate: 8000, channels: 2), encoding: .signed16, sampleRate: 8000,
    channels: 2, extraChunks: false)

/// Makes `longWAV` off the cooperative pool, if it is not made yet.
func makeLongWAV() async throws {
    _ = try await offThePool { longWAV.bytes.count }
}

func le(_ value: UInt32, bytes count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
}

// MARK: - Player helpers

/// `testDeadline` in seconds, as these waits take it.
private let deadlineSeconds = Double(testDeadline.components.seconds)

extension Player {
    /// Waits (without sleeping) until the published state satisfies `predicate`; returns that state.
    /// Fails after `seconds` so a broken player cannot hang the suite.
    @discardableResult
    func waitFor(
        _ what: String,
        seconds: Double = deadlineSeconds,
        _ predicate: @escaping @Sendable (PlaybackState) -> Bool
    ) async throws -> PlaybackState {
        let updates = stateUpdates()
        defer { updates.cancel() }
        let found = try await within(seconds: seconds) { () -> PlaybackState? in
            while let state = await updates.next() {
                if predicate(state) { return state }
            }
            return nil
        }
        guard let state = found else {
            throw TestFailure("timed out after \(seconds) s waiting for \(what); state is \(self.state)")
        }
        return state
    }
}

/// `work`'s result, or nil if `seconds` pass first (or `work` gives nil): a deadline for a wait that a stuck or
/// failed player would never end, not a synchronisation. `work` must end when cancelled.
func within<T: Sendable>(seconds: Double, _ work: @escaping @Sendable () async -> T?) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { await work() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// `work`'s result, or a failure after `seconds`: a wait on a sink or a stream fails its test instead of hanging
/// the run. `work` must end when cancelled.
func bounded<T: Sendable>(_ what: String, seconds: Double = deadlineSeconds, _ work: @escaping @Sendable () async -> T)
    async throws
    -> T
{
    guard let result = try await within(seconds: seconds, { () -> T? in await work() }) else {
        throw TestFailure("timed out after \(seconds) s waiting for \(what)")
    }
    return result
}

extension PlaybackState {
    var isPlaying: Bool {
        if case .playing = self { return true }
        return false
    }
    var isPaused: Bool {
        if case .paused = self { return true }
        return false
    }
    var isBuffering: Bool {
        if case .buffering = self { return true }
        return false
    }
    var failureReason: String? {
        if case .failed(let failure) = self { return failure.reason }
        return nil
    }
}

/// Collects every state a player publishes, in order; `waitFor` wakes as the log takes each one.
final class StateLog: Sendable {
    private struct Watcher {
        var id: Int
        var predicate: @Sendable ([String]) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct Log {
        var states: [PlaybackState] = []
        var watchers: [Watcher] = []
        var nextID = 0
        /// Waits cancelled before they were registered.
        var cancelled: Set<Int> = []
    }

    private let log = NIOLockedValueBox(Log())
    private let task: Task<Void, Never>

    init(_ player: Player) {
        let updates = player.stateUpdates()
        let log = self.log
        task = Task {
            while let state = await updates.next() {
                let met = log.withLockedValue { log -> [Watcher] in
                    log.states.append(state)
                    let kinds = Self.kinds(of: log.states)
                    let met = log.watchers.filter { $0.predicate(kinds) }
                    log.watchers.removeAll { $0.predicate(kinds) }
                    return met
                }
                met.forEach { $0.continuation.resume(returning: true) }
            }
        }
    }

    deinit { task.cancel() }

    var all: [PlaybackState] { log.withLockedValue { $0.states } }

    /// The kinds of state seen, with repeats collapsed: e.g. ["idle", "buffering", "playing", "idle"].
    var kinds: [String] { Self.kinds(of: all) }

    /// Returns once the kinds seen satisfy `predicate` (now, or as the log takes a state); throws after `seconds`,
    /// a deadline for a player that never gets there, not a synchronisation.
    func waitFor(_ what: String, seconds: Double = deadlineSeconds, _ predicate: @escaping @Sendable ([String]) -> Bool)
        async throws
    {
        let met = try await within(seconds: seconds) { await self.until(predicate) ? true : nil }
        guard met == true else { throw TestFailure("timed out after \(seconds) s waiting for \(what); log \(kinds)") }
    }

    /// True once `predicate` holds; false if the waiting task is cancelled first.
    private func until(_ predicate: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        let id = log.withLockedValue { log in
            log.nextID += 1
            return log.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = log.withLockedValue { log -> Bool? in
                    if log.cancelled.remove(id) != nil { return false }
                    if predicate(Self.kinds(of: log.states)) { return true }
                    log.watchers.append(Watcher(id: id, predicate: predicate, continuation: continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiting = log.withLockedValue { log -> Watcher? in
                guard let index = log.watchers.firstIndex(where: { $0.id == id }) else {
                    log.cancelled.insert(id)
                    return nil
                }
                return log.watchers.remove(at: index)
            }
            waiting?.continuation.resume(returning: false)
        }
    }

    private static func kinds(of states: [PlaybackState]) -> [String] {
        var result: [String] = []
        for state in states {
            let kind: String
            switch state {
            case .idle: kind = "idle"
            case .buffering: kind = "buffering"
            case .playing: kind = "playing"
            case .paused: kind = "paused"
            case .failed: kind = "failed"
            }
            if result.last != kind { result.append(kind) }
        }
        return result
    }
}

extension Player.Clocks {
    /// For scenarios that are not about stalls: the watchdog waits on a clock nobody moves. Hundreds of tests
    /// start at once on two cores, and a track whose next step waits behind them all for 20 s would otherwise
    /// fail as stalled; the stall scenarios drive a clock of their own.
    static func unwatched(progress: any Clock<Duration> = ContinuousClock()) -> Player.Clocks {
        Player.Clocks(stall: ManualClock(), backoff: ContinuousClock(), progress: progress)
    }
}
