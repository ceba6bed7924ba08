import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Shown when the private PulseAudio server cannot run here.
private let noPulse = Comment(rawValue: PulseHarness.unavailableReason ?? "")

/// One recording to play end to end: its bytes, the reference samples and their format.
private struct Case: Sendable {
    var label: String
    var bytes: [UInt8]
    var reference: [Int16]
    var format: PCMFormat

    static func mp3(_ id: String) async throws -> Case? {
        guard let name = Fixtures.named(id) else { return nil }
        let bytes = try Fixtures.bytes(name)
        guard case .format(let format, _) = try StreamDecoder().feed(bytes).first else { return nil }
        return Case(
            label: id, bytes: bytes, reference: try await Fixtures.referenceDecode(Fixtures.path(name)), format: format)
    }

    /// 2.5 s of stereo 24-bit PCM at 44.1 kHz.
    static func wav() -> Case {
        let signal = chirpSignal(frames: 44100 * 5 / 2, sampleRate: 44100, channels: 2)
        let wav = makeWAV(signal, encoding: .signed24, sampleRate: 44100, channels: 2)
        return Case(
            label: "WAV", bytes: wav.bytes, reference: wav.expected, format: PCMFormat(sampleRate: 44100, channels: 2))
    }

    /// 2.5 s of stereo 24-bit FLAC at 48 kHz made by sox and flac; the reference is `flac -d`'s.
    static func flac() async throws -> Case? {
        guard ReferenceDecoders.available else { return nil }
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await ReferenceDecoders.makeWAV(
            "\(folder)/in.wav", rate: 48000, channels: 2, encoding: ["-e", "signed", "-b", "24"], seconds: 2.5)
        try await ReferenceDecoders.encodeFLAC("\(folder)/in.wav", "\(folder)/in.flac")
        return Case(
            label: "FLAC", bytes: try ReferenceDecoders.bytes("\(folder)/in.flac"),
            reference: try await ReferenceDecoders.flac16("\(folder)/in.flac"),
            format: PCMFormat(sampleRate: 48000, channels: 2))
    }

    /// 2.5 s of a 4-channel 32-bit float WAV at 48 kHz made by sox: its first channel plays.
    static func wavFourChannels() async throws -> Case? {
        guard ReferenceDecoders.available else { return nil }
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await ReferenceDecoders.makeWAV(
            "\(folder)/in.wav", rate: 48000, channels: 4, encoding: ["-e", "floating-point", "-b", "32"], seconds: 2.5)
        return Case(
            label: "WAV-4ch", bytes: try ReferenceDecoders.bytes("\(folder)/in.wav"),
            reference: try await ReferenceDecoders.sox16("\(folder)/in.wav", channel: 1),
            format: PCMFormat(sampleRate: 48000, channels: 1))
    }

    static func named(_ id: String) async throws -> Case? {
        switch id {
        case "WAV": wav()
        case "FLAC": try await flac()
        case "WAV-4ch": try await wavFourChannels()
        default: try await mp3(id)
        }
    }
}

/// A private server, a loopback HTTP server with the bytes, and a player on a PulseAudio sink.
private struct Rig {
    var harness: PulseHarness
    var http: LoopbackServer
    var sink: PulseAudioSink
    var player: Player

    static func make(
        serving bytes: [UInt8], format: PCMFormat, startServer: Bool = true,
        sinkClock: any Clock<Duration> = ContinuousClock()
    ) async throws -> Rig {
        let harness = try PulseHarness()
        if startServer {
            try await harness.start(sampleRate: format.sampleRate, channels: format.channels)
        }
        let http = try await LoopbackServer.start { request in
            .file(bytes, contentType: "audio/mpeg", for: request)
        }
        let sink = PulseAudioSink(server: harness.serverAddress, clock: sinkClock)
        return Rig(harness: harness, http: http, sink: sink, player: Player(sink: sink, clocks: .unwatched()))
    }

    var item: PlayItem { PlayItem(label: "XC-E2E", location: .remote(http.baseURL + "/download")) }

    func tearDown() async {
        await player.shutdown()
        await http.shutdown()
        await harness.stop()
    }
}

/// A private server recorded at its monitor and a PulseAudio sink on it, for tests that drive outputs directly:
/// 44.1 kHz stereo.
private struct SinkRig {
    var harness: PulseHarness
    var recorder: MonitorRecorder
    var sink: PulseAudioSink
    let format = PCMFormat(sampleRate: 44100, channels: 2)

    static func make(clock: any Clock<Duration> = ContinuousClock()) async throws -> SinkRig {
        let harness = try PulseHarness()
        try await harness.start(sampleRate: 44100, channels: 2)
        let recorder = try await harness.startRecording(sampleRate: 44100, channels: 2)
        return SinkRig(
            harness: harness, recorder: recorder, sink: PulseAudioSink(server: harness.serverAddress, clock: clock))
    }

    func tearDown() async {
        sink.shutdown()
        await harness.stop()
    }
}

@Suite(
    "PulseAudio end to end",
    .serialized,
    .enabled(if: PulseHarness.unavailableReason == nil, noPulse)
)
struct PulseEndToEndTests {
    @Test(
        "recordings played over loopback HTTP reach a real PulseAudio sink intact (duration ±2 %, correlation ≥ 0.9)",
        .enabled(if: Fixtures.hasMPG123, Fixtures.noMPG123),
        arguments: ["XC5168", "XC178978", "WAV", "FLAC", "WAV-4ch"]
    )
    func playsThroughPulse(id: String) async throws {
        guard let test = try await Case.named(id) else {
            print("skipped \(id): ../shared/xeno-canto/audio/ (or sox and flac) is absent")
            return
        }
        let rig = try await Rig.make(serving: test.bytes, format: test.format)
        let recorder = try await rig.harness.startRecording(
            sampleRate: test.format.sampleRate, channels: test.format.channels)
        let start = ContinuousClock.now
        rig.player.play(rig.item)
        try await rig.player.waitFor("playing", seconds: 10) { $0.isPlaying }
        try await rig.player.waitFor("idle after the drain", seconds: 60) { $0.isIdle || $0.failureReason != nil }
        #expect(rig.player.state.isIdle)
        await recorder.waitForMore(seconds: 0.2)  // the monitor's own clock: the tail, without sleeping
        let recording = await recorder.stop()
        await rig.tearDown()

        // CHIRPER_E2E_DUMP=1 keeps both signals in /tmp for a closer look when this fails.
        if ProcessInfo.processInfo.environment["CHIRPER_E2E_DUMP"] != nil {
            recording.samples.withUnsafeBytes {
                try? Data($0).write(to: URL(fileURLWithPath: "/tmp/dbg-\(id)-rec.raw"))
            }
            test.reference.withUnsafeBytes { try? Data($0).write(to: URL(fileURLWithPath: "/tmp/dbg-\(id)-ref.raw")) }
        }
        let comparison = try #require(
            SignalComparison(
                recorded: recording.samples,
                reference: test.reference,
                channels: test.format.channels,
                sampleRate: test.format.sampleRate
            ),
            "nothing audible was recorded"
        )
        // Time to first sound: from play() to the first audible sample arriving from the monitor, less
        // where that sample sits in the recording (some recordings open with near-silence).
        let firstSound = recording.firstSoundAt.map {
            start.duration(to: $0) - .seconds(comparison.referenceFirstSound)
        }
        print(
            "e2e \(test.label) \(test.format): \(comparison); play to first sound \(firstSound.map { "\($0)" } ?? "-")")
        #expect(comparison.correlation >= 0.9, "\(comparison)")
        #expect(comparison.durationError <= 0.02, "\(comparison)")
        let covered = recording.samples.count / test.format.channels - comparison.lagFrames
        #expect(covered >= test.reference.count / test.format.channels * 98 / 100, "the recording stops early")
    }

    @Test("a clip shorter than the sink's prebuffer (20 ms) still plays out and ends in idle")
    func tinyClip() async throws {
        let signal = chirpSignal(frames: 882, sampleRate: 44100, channels: 2)
        let wav = makeWAV(signal, encoding: .signed16, sampleRate: 44100, channels: 2)
        let rig = try await Rig.make(serving: wav.bytes, format: PCMFormat(sampleRate: 44100, channels: 2))
        let recorder = try await rig.harness.startRecording(sampleRate: 44100, channels: 2)
        rig.player.play(rig.item)
        try await rig.player.waitFor("idle", seconds: 10) { $0.isIdle || $0.failureReason != nil }
        #expect(rig.player.state.isIdle)
        await recorder.waitForMore(seconds: 0.1)
        let recording = await recorder.stop()
        #expect(recording.firstSoundAt != nil, "the clip was not heard")
        await rig.tearDown()
    }

    @Test(
        "stop silences the sink within 100 ms, keeps the stream ready for the next track (uncorked for 3 s, then corked), leaves nothing running",
        .enabled(if: Fixtures.hasRecordings, Fixtures.noRecordings)
    )
    func stopIsPrompt() async throws {
        guard let name = Fixtures.named("XC34430") else { return }
        let clock = ManualClock()
        let rig = try await Rig.make(
            serving: try Fixtures.bytes(name), format: PCMFormat(sampleRate: 44100, channels: 1), sinkClock: clock)
        let recorder = try await rig.harness.startRecording(sampleRate: 44100, channels: 1)
        rig.player.play(rig.item)
        await recorder.waitForSound()
        await recorder.waitForMore(seconds: 0.5)
        #expect(await rig.harness.sinkInputCount() == 1)
        let stopAt = ContinuousClock.now
        await rig.player.stop()
        let stopReturned = stopAt.duration(to: .now)
        await recorder.waitForMore(seconds: 0.3)
        let recording = await recorder.stop()
        let silentAfter = try #require(recording.lastSoundAt).duration(to: stopAt) * -1
        print("stop: returned after \(stopReturned), last sound at the monitor \(silentAfter) after stop")
        #expect(stopReturned < .milliseconds(100))
        #expect(silentAfter < .milliseconds(100), "sound continued \(silentAfter) after stop")
        // The stream stays, empty and uncorked, for the next track of the same format (issue 12)...
        #expect(await rig.harness.sinkInputsCorked() == [false])
        // ...for 3 s; then it is corked, so that the sink may sleep.
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(2900))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(100))
        #expect(await rig.harness.waitForSinkInputs(corked: [true]))
        #expect(rig.player.runningPipelines == 0)
        #expect(rig.player.state.isIdle)
        await rig.tearDown()
    }

    @Test("a second track of the same format plays on the first one's stream (no new stream), whole")
    func reusesTheStream() async throws {
        let wav = Case.wav()
        let rig = try await Rig.make(serving: wav.bytes, format: wav.format)
        let recorder = try await rig.harness.startRecording(sampleRate: 44100, channels: 2)
        rig.player.play(rig.item)
        try await rig.player.waitFor("idle after the first play", seconds: 30) { $0.isIdle || $0.failureReason != nil }
        let first = await rig.harness.pactl(["list", "short", "sink-inputs"]).output
        rig.player.play(rig.item)
        try await rig.player.waitFor("playing again") { $0.isPlaying }
        try await rig.player.waitFor("idle after the second play", seconds: 30) { $0.isIdle || $0.failureReason != nil }
        let second = await rig.harness.pactl(["list", "short", "sink-inputs"]).output
        await recorder.waitForMore(seconds: 0.2)
        let recording = await recorder.stop()
        await rig.tearDown()
        #expect(rig.player.state.isIdle)
        let index = { (text: String) in text.split(separator: "\n").first?.split(separator: "\t").first }
        #expect(index(first) != nil && index(first) == index(second), "\(first) then \(second)")
        // Both plays reached the sink whole: twice the clip's sound (2.5 s each).
        let loud = recording.samples.count { abs(Int($0)) > 300 } / 2
        #expect(Double(loud) / 44100 > 2 * 2.5 * 0.9, "\(Double(loud) / 44100) s of sound")
    }

    @Test(
        "tracks back to back on one stream, the next starting at once or up to 100 ms after the stop, report no underrun as they start and are each heard",
        .timeLimit(.minutes(1))
    )
    func backToBackWithoutFalseUnderruns() async throws {
        // Stopping a playing stream must not leave the server an underflow to report to the next track just as it
        // starts. A flush while uncorked does, some milliseconds later; corked first, PulseAudio sends none.
        let rig = try await SinkRig.make()
        let recorder = rig.recorder
        let tone = chirpSignal(frames: 44100 * 4 / 10, sampleRate: 44100, channels: 2)
        let underruns = NIOLockedValueBox<[(round: Int, at: ContinuousClock.Instant)]>([])
        let gaps = [0, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0]
        var starts: [ContinuousClock.Instant] = []
        var windows: [Range<Double>] = []
        for (round, gap) in gaps.enumerated() {
            let output = try await rig.sink.openOutput(
                format: rig.format, label: "round \(round)", bufferSeconds: 2,
                onUnderrun: { underruns.withLockedValue { $0.append((round, .now)) } })
            #expect(try await output.write(tone) == .queued)
            let from = recorder.recordedSeconds
            starts.append(.now)
            try output.start()
            #expect(try await output.write(tone) == .queued)
            // Stopped while it plays (0.8 s were given), then the next track after `gap` of the monitor's time.
            await recorder.waitForMore(seconds: 0.15)
            output.stop()
            windows.append(from..<recorder.recordedSeconds)
            if gap > 0 { await recorder.waitForMore(seconds: gap) }
        }
        await recorder.waitForMore(seconds: 0.2)
        let recording = await recorder.stop()
        #expect(await rig.harness.sinkInputCount() == 1)
        await rig.tearDown()
        // A false underrun comes as the track starts; a real one (a loaded machine starving the server's 100 ms)
        // cannot come that soon.
        let early = underruns.withLockedValue { $0 }.filter { starts[$0.round].duration(to: $0.at) < .milliseconds(50) }
        #expect(early.map(\.round) == [], "underruns as rounds started")
        // Each round was heard in its own window (0.15 s of the monitor's time from its start to its stop).
        for (round, window) in windows.enumerated() {
            let lower = min(recording.samples.count, Int(window.lowerBound * 44100) * 2)
            let upper = min(recording.samples.count, Int(window.upperBound * 44100) * 2)
            let loud = Double(recording.samples[lower..<upper].count { abs(Int($0)) > 300 }) / 2 / 44100
            #expect(loud > 0.05, "round \(round): \(loud) s of sound in \(window)")
        }
    }

    @Test(
        "a stream that waited long enough to be corked plays the next track from its start, whole",
        .timeLimit(.minutes(1))
    )
    func corkedParkedStreamPlaysWhole() async throws {
        let clock = ManualClock()
        let rig = try await SinkRig.make(clock: clock)
        let tone = chirpSignal(frames: 44100 / 2, sampleRate: 44100, channels: 2)
        let first = try await rig.sink.openOutput(
            format: rig.format, label: "first", bufferSeconds: 2, onUnderrun: {})
        #expect(try await first.write(tone) == .queued)
        try first.start()
        #expect(try await first.drain() != .stopped)
        first.stop()
        await clock.waitForSleepers()
        clock.advance(by: .seconds(3))
        #expect(await rig.harness.waitForSinkInputs(corked: [true]))
        let heardBefore = await rig.recorder.stop().samples.count { abs(Int($0)) > 300 }

        let again = try await rig.harness.startRecording(sampleRate: 44100, channels: 2)
        let second = try await rig.sink.openOutput(
            format: rig.format, label: "second", bufferSeconds: 2, onUnderrun: {})
        #expect(try await second.write(tone) == .queued)
        try second.start()
        #expect(try await second.drain() != .stopped)
        await again.waitForMore(seconds: 0.1)
        let recording = await again.stop()
        #expect(await rig.harness.sinkInputCount() == 1)
        second.stop()
        await rig.tearDown()
        #expect(Double(heardBefore) / 2 / 44100 > 0.45)
        // The whole half second again: the stream was uncorked for it.
        let comparison = try #require(
            SignalComparison(recorded: recording.samples, reference: tone, channels: 2, sampleRate: 44100))
        #expect(comparison.correlation > 0.9, "\(comparison)")
        #expect(comparison.durationError < 0.02, "\(comparison)")
    }

    @Test("with no sound server the failure is the plain hint, fast; once a server exists the next play works")
    func missingServerThenPresent() async throws {
        let wav = Case.wav()
        let rig = try await Rig.make(serving: wav.bytes, format: wav.format, startServer: false)
        let start = ContinuousClock.now
        rig.player.play(rig.item)
        let failed = try await rig.player.waitFor("failed", seconds: 10) { $0.failureReason != nil }
        let elapsed = start.duration(to: .now)
        #expect(
            failed.failureReason == "no sound server: is PulseAudio or PipeWire running? (or use --output wav:PATH)")
        #expect(elapsed < .seconds(1), "failing took \(elapsed)")
        #expect(rig.player.runningPipelines == 0)

        try await rig.harness.start(sampleRate: 44100, channels: 2)
        let started = ContinuousClock.now
        rig.player.play(rig.item)
        try await rig.player.waitFor("playing after the server appeared", seconds: 10) { $0.isPlaying }
        try await rig.player.waitFor("idle", seconds: 30) { $0.isIdle || $0.failureReason != nil }
        // Played in real time (2.5 s), not rushed through.
        #expect(started.duration(to: .now) > .seconds(2.3))
        #expect(rig.player.state.isIdle)
        await rig.tearDown()
    }

    @Test("the sound server dying mid-play fails with a reason; after a restart the next play works")
    func serverDiesMidPlay() async throws {
        let wav = Case.wav()
        let rig = try await Rig.make(serving: wav.bytes, format: wav.format)
        rig.player.play(rig.item)
        try await rig.player.waitFor("playing", seconds: 10) { $0.isPlaying }
        await rig.harness.stop()
        let failed = try await rig.player.waitFor("failed", seconds: 10) { $0.failureReason != nil }
        let reason = try #require(failed.failureReason)
        #expect(reason.hasPrefix("lost the sound server"), "\(reason)")
        #expect(rig.player.runningPipelines == 0)

        try await rig.harness.start(sampleRate: 44100, channels: 2)
        rig.player.play(rig.item)
        try await rig.player.waitFor("idle after a full play", seconds: 30) { $0.isIdle || $0.failureReason != nil }
        #expect(rig.player.state.isIdle)
        await rig.tearDown()
    }
}
