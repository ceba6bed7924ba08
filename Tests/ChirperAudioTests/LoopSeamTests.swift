import ChirperTestSupport
import ChirperAudio
import ChirperCore
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Keeps what each output is given, up to `limit` samples; then its writes wait until it is stopped (so a
/// loop, which never ends, fills it and holds still).
private final class FillingSink: AudioSink {
    private let outputs = NIOLockedValueBox<[FillingOutput]>([])
    private let opened = AsyncStream<Int>.makeStream()
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Waits until `count` outputs were opened; returns the last.
    func output(_ count: Int) async -> FillingOutput? {
        for await opened in opened.stream where opened >= count { break }
        return outputs.withLockedValue { $0.count >= count ? $0[count - 1] : nil }
    }

    func prepare() async throws {}

    func openOutput(
        format: PCMFormat,
        label: String,
        bufferSeconds: Double,
        continuing: Bool,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> any AudioOutput {
        let output = FillingOutput(format: format, limit: limit)
        let count = outputs.withLockedValue {
            $0.append(output)
            return $0.count
        }
        opened.continuation.yield(count)
        return output
    }

    func shutdown() {}
}

private final class FillingOutput: AudioOutput {
    let format: PCMFormat
    let limit: Int
    private struct State {
        var samples: [Int16] = []
        var stopped = false
        var blocked: CheckedContinuation<Void, any Error>?
        var full: [CheckedContinuation<Void, Never>] = []
    }
    private let state = NIOLockedValueBox(State())

    init(format: PCMFormat, limit: Int) {
        self.format = format
        self.limit = limit
    }

    var samples: [Int16] { state.withLockedValue { $0.samples } }

    /// Returns once `limit` samples arrived (or the output was stopped, or the waiting task cancelled: that
    /// stops the output).
    func filled() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLockedValue { state in
                    let done = state.samples.count >= limit || state.stopped
                    if !done { state.full.append(continuation) }
                    return done
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            stop()
        }
    }

    func write(_ samples: [Int16]) async throws -> OutputWrite {
        try await OutputWrite.answering { try await queue(samples) }
    }

    private func queue(_ samples: [Int16]) async throws {
        let (full, waiters) = state.withLockedValue { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            state.samples += samples.prefix(max(0, limit - state.samples.count))
            guard state.samples.count >= limit else { return (false, []) }
            defer { state.full.removeAll() }
            return (true, state.full)
        }
        for waiter in waiters { waiter.resume() }
        guard full else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let stopped = state.withLockedValue { state in
                if !state.stopped { state.blocked = continuation }
                return state.stopped
            }
            if stopped { continuation.resume(throwing: CancellationError()) }
        }
    }

    func start() throws {}
    func pause() throws {}
    func drain() async throws -> OutputDrain { .played(secondsAgo: 0) }
    func setVolume(percent: Int) {}
    var playedSeconds: Double? { nil }

    func stop() {
        let (blocked, waiters) = state.withLockedValue { state in
            state.stopped = true
            defer {
                state.blocked = nil
                state.full.removeAll()
            }
            return (state.blocked, state.full)
        }
        blocked?.resume(throwing: CancellationError())
        for waiter in waiters { waiter.resume() }
    }
}

/// What reaches the sink across a loop's seams, sample by sample (no sound server, no clock).
@Suite("Loops: gap-free seams in the PCM handed to the sink")
struct LoopSeamTests {
    static let rate = 44100
    static let passFrames = rate * 3 / 2

    /// Plays `bytes` from a file, loops 12.0–13.5 s once the first output opened, and returns what the loop's
    /// output was given (three passes and a bit) with the straight decode.
    static func loopedPCM(_ bytes: [UInt8], name: String) async throws -> (looped: [Int16], reference: [Int16]) {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reference = try SeekTests.feed(StreamDecoder(expectedLength: Int64(bytes.count)), bytes, from: 0)
        let sink = FillingSink(limit: passFrames * 3 + rate / 2)
        let player = Player(sink: sink, clocks: .unwatched())
        player.play(PlayItem(label: "XC-LOOP", location: .local(path: path)))
        _ = try await bounded("the first output") { await sink.output(1) }
        #expect(player.loop(from: .absolute(12), to: .absolute(13.5)) == nil)
        let output = try #require(
            try await bounded("the loop's output") { await sink.output(2) }, "the loop opened no output")
        try await bounded("three passes") { await output.filled() }
        await player.shutdown()
        return (output.samples, reference)
    }

    @Test("WAV: every pass is the section exactly, back to back: 3 × 1.5 s, no sample lost or added")
    func wavSeams() async throws {
        let signal = try await StudySignals.steppedToneOffThePool(seconds: 20, sampleRate: Self.rate)
        let wav = makeWAV(signal, encoding: .signed16, sampleRate: Self.rate, channels: 1)
        let (looped, reference) = try await Self.loopedPCM(wav.bytes, name: "loop.wav")
        let section = Array(reference[(12 * Self.rate)..<(12 * Self.rate + Self.passFrames)])
        for pass in 0..<3 {
            let start = pass * Self.passFrames
            #expect(Array(looped[start..<(start + Self.passFrames)]) == section, "pass \(pass + 1) differs")
        }
    }

    @Test(
        "MP3: every pass is the section a to b of the straight decode, to the sample, back to back",
        .enabled(if: StudySignals.hasLame, StudySignals.noLame))
    func mp3Seams() async throws {
        let signal = try await StudySignals.steppedToneOffThePool(seconds: 20, sampleRate: Self.rate)
        let mp3 = try await StudySignals.encodeMP3(signal, sampleRate: Self.rate, options: ["-b", "128"])
        let (looped, reference) = try await Self.loopedPCM(mp3, name: "loop.mp3")
        let a = 12 * Self.rate
        let section = reference[a..<(a + Self.passFrames)]
        // Each pass equals the straight decode from a to b, to one LSB (after a seek libmpg123's synthesis
        // filter starts its ring buffer elsewhere, and its float sums round differently).
        for k in 0..<3 {
            let pass = looped[(k * Self.passFrames)..<((k + 1) * Self.passFrames)]
            let worst = zip(pass, section).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "pass \(k + 1) differs from the recording's a to b by \(worst)")
        }
        // And the fourth pass begins at a again: no sample is added at a seam.
        let next = looped[(3 * Self.passFrames)...].prefix(4410)
        #expect(zip(next, section).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "the fourth pass does not start at a")
    }
}
