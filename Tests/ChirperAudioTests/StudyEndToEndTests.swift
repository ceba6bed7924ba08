import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// Shown when the private PulseAudio server cannot run here.
private let noPulse = Comment(rawValue: PulseHarness.unavailableReason ?? "")

/// A private PulseAudio server (mono, 44.1 kHz), a loopback HTTP server with the bytes, a player, and the
/// monitor recording what the sink played.
private struct StudyRig {
    static let rate = 44100
    var harness: PulseHarness
    var http: LoopbackServer
    var player: Player
    var recorder: MonitorRecorder

    /// - Parameter chunkDelay: the server's pause between 16 KiB chunks (a slow server, so that a seek
    ///   lands beyond what arrived).
    static func make(serving bytes: [UInt8], chunkDelay: Duration = .zero) async throws -> StudyRig {
        let harness = try PulseHarness()
        try await harness.start(sampleRate: rate, channels: 1)
        let http = try await LoopbackServer.start { request in
            .file(bytes, contentType: "audio/mpeg", for: request, chunkDelay: chunkDelay)
        }
        let player = Player(sink: PulseAudioSink(server: harness.serverAddress), clocks: .unwatched())
        let recorder = try await harness.startRecording(sampleRate: rate, channels: 1)
        return StudyRig(harness: harness, http: http, player: player, recorder: recorder)
    }

    var item: PlayItem { PlayItem(label: "XC-STUDY", location: .remote(http.baseURL + "/download")) }

    func tearDown() async {
        await player.shutdown()
        await http.shutdown()
        await harness.stop()
    }
}

/// Reads the monitor recording back.
private enum Monitor {
    static let rate = StudyRig.rate

    /// Every onset of a stepped-tone step in `samples`, with the step's frequency.
    static func onsets(_ samples: [Int16]) -> [(index: Int, frequency: Double)] {
        var found: [(Int, Double)] = []
        var from = 0
        while let onset = StudySignals.nextOnset(samples, from: from, sampleRate: rate) {
            let end = min(samples.count, onset + rate * 2 / 5)
            if end - onset > rate / 10,
                let frequency = StudySignals.pitch(samples[(onset + rate / 50)..<end], sampleRate: rate)
            {
                found.append((onset, frequency))
            }
            from = onset + rate / 10
        }
        return found
    }

    /// Walks back from `index` (inside a tone of `frequency`) in 1 ms steps while the 5 ms before it is still
    /// that tone: where the tone began at the sink, to about 5 ms.
    static func toneStart(before index: Int, frequency: Double, in samples: [Int16]) -> Int {
        let window = rate / 200
        var position = index
        while position - window >= 0 {
            let slice = samples[(position - window)..<position]
            guard StudySignals.rmsDecibels(slice) > -30,
                let measured = StudySignals.pitch(slice, sampleRate: rate),
                abs(measured - frequency) / frequency < 0.05
            else { break }
            position -= rate / 1000
        }
        return position
    }

    /// First and last audible samples: how long the sound lasted at the sink, in seconds.
    static func soundingSeconds(_ samples: [Int16]) -> Double? {
        guard let first = samples.firstIndex(where: { abs(Int($0)) > 2000 }),
            let last = samples.lastIndex(where: { abs(Int($0)) > 2000 })
        else { return nil }
        return Double(last - first) / Double(rate)
    }
}

@Suite(
    "Studying a recording at the sink: seek, loop, speed, volume",
    .serialized,
    .enabled(if: PulseHarness.unavailableReason == nil, noPulse),
    .enabled(if: StudySignals.hasLame, StudySignals.noLame)
)
struct StudyEndToEndTests {
    static let rate = StudyRig.rate

    static func steppedMP3(seconds: Double = 40) async throws -> [UInt8] {
        try await StudySignals.encodeMP3(
            try await StudySignals.steppedToneOffThePool(seconds: seconds, sampleRate: rate), sampleRate: rate,
            options: ["-b", "128"])
    }

    @Test(
        "seek 0:30.2 beyond what arrived: the sink's first new sound is the 30.2 s tone, on the sample, after one Range request"
    )
    func seekBeyondWhatArrived() async throws {
        let mp3 = try await Self.steppedMP3()
        // 16 KiB every 100 ms: 10× real time, so 30 s in is minutes of bytes away when the seek comes.
        let rig = try await StudyRig.make(serving: mp3, chunkDelay: .milliseconds(100))
        rig.player.play(rig.item)
        try await rig.player.waitFor("playing", seconds: 10) { $0.isPlaying }
        #expect(rig.player.seek(.absolute(30.2)) == nil)
        try await rig.player.waitFor("playing past 31 s", seconds: 20) {
            ($0.progress?.position ?? 0) > 31 && $0.isPlaying
        }
        let recording = await rig.recorder.stop()
        let ranges = rig.http.requests.compactMap { $0.header("range") }
        await rig.tearDown()

        // Where the audio after the seek starts, read from the audio: the onset of step 61 (30.5 s) and the
        // step-60 tone before it, back to where the sink began playing it.
        let step61 = StudySignals.stepFrequency(61)
        let onset = try #require(
            Monitor.onsets(recording.samples).first { abs($0.frequency - step61) / step61 < 0.01 },
            "the 30.5 s step was never heard")
        let tone60End = onset.index - Self.rate * 6 / 100
        let start = Monitor.toneStart(
            before: tone60End, frequency: StudySignals.stepFrequency(60), in: recording.samples)
        let landed = 30.5 - Double(onset.index - start) / Double(Self.rate)
        print("seek to 30.2 s: the sink's first new sound is recording time \(landed) s; Range requests \(ranges)")
        // On the sample; the monitor shows a stream's start up to 6 ms late (the null sink's rewind), and
        // the onsets are read in 10 ms windows.
        #expect(abs(landed - 30.2) <= 0.012, "landed at \(landed) s")
        #expect(ranges.count == 1, "one Range request, got \(ranges)")
        // The offset is where a CBR file holds 30.2 s (bytes ∝ time), less the 9 frames (0.235 s) decoded in
        // advance to fill the bit reservoir.
        let offset = try #require(ranges.first.flatMap { Int($0.dropFirst(6).dropLast()) })
        let primed: Double = 30.2 - 9 * 1152 / Double(Self.rate)
        let offsetSeconds = Double(offset) / Double(mp3.count) * 40
        #expect(abs(offsetSeconds - primed) < 0.05, "Range from \(offset)")
    }

    @Test(
        "loop 12.0 13.5 played three times: the sink gets 3 × 1.5 s, the seam without a gap (MP3 and WAV)",
        arguments: ["mp3", "wav"])
    func loopIsGapFree(kind: String) async throws {
        let signal = try await StudySignals.steppedToneOffThePool(seconds: 20, sampleRate: Self.rate)
        let bytes =
            kind == "mp3"
            ? try await StudySignals.encodeMP3(signal, sampleRate: Self.rate, options: ["-b", "128"])
            : makeWAV(signal, encoding: .signed16, sampleRate: Self.rate, channels: 1).bytes
        let rig = try await StudyRig.make(serving: bytes)
        rig.player.play(rig.item)
        try await rig.player.waitFor("playing", seconds: 10) { $0.isPlaying }
        #expect(rig.player.loop(from: .absolute(12), to: .absolute(13.5)) == nil)
        try await rig.player.waitFor("the loop playing", seconds: 10) { $0.isPlaying && $0.progress?.loop != nil }
        await rig.recorder.waitForMore(seconds: 6.5)
        let recording = await rig.recorder.stop()
        await rig.tearDown()

        let step24 = StudySignals.stepFrequency(24)
        // The first start is the jump into the loop (a seek, on a new stream); the later ones are seams.
        let starts = Monitor.onsets(recording.samples).filter { abs($0.frequency - step24) / step24 < 0.01 }
            .map(\.index).dropFirst()
        #expect(starts.count >= 3, "the loop wrapped \(starts.count) times")
        // MP3 and WAV alike: every pass starts on a's sample (a seek inside what arrived is exact in libmpg123's
        // frame index, one beyond it by the CBR frame grid).
        let tolerance = 2
        for (first, next) in zip(starts, starts.dropFirst()) {
            let frames = next - first
            print("\(kind) loop: one pass = \(frames) frames (1.5 s = \(Self.rate * 3 / 2))")
            #expect(abs(frames - Self.rate * 3 / 2) <= tolerance, "one pass took \(frames) frames")
        }
    }

    @Test("a section played once (A/B listening): 12.0-13.5 s is heard whole, steps 24, 25 and 26, then the track ends")
    func sectionOnce() async throws {
        let rig = try await StudyRig.make(serving: try await Self.steppedMP3(seconds: 20))
        rig.player.play(rig.item)
        try await rig.player.waitFor("playing", seconds: 10) { $0.isPlaying }
        #expect(rig.player.playSection(from: .absolute(12), to: .absolute(13.5), band: nil) == nil)
        try await rig.player.waitFor("the section finished", seconds: 15) { state in
            if case .idle(let ending?) = state { return ending.reason == .finished }
            return false
        }
        await rig.recorder.waitForMore(seconds: 0.3)
        let recording = await rig.recorder.stop()
        await rig.tearDown()

        // After the jump into the section, its three steps in order and nothing after them.
        let heard = Monitor.onsets(recording.samples)
        let jump = heard.lastIndex {
            abs($0.frequency - StudySignals.stepFrequency(24)) / StudySignals.stepFrequency(24) < 0.01
        }
        let after = jump.map { Array(heard[$0...]) } ?? []
        let steps = after.map { frequency in
            (0..<40).min { a, b in
                abs(StudySignals.stepFrequency(a) - frequency.frequency)
                    < abs(StudySignals.stepFrequency(b) - frequency.frequency)
            }!
        }
        #expect(steps == [24, 25, 26], "steps heard from the section's start: \(steps)")
        // The last step is whole: its tone lasts its 0.45 s at the sink.
        if let last = after.last {
            let tail = Array(recording.samples[last.index...])
            let sounding = Monitor.soundingSeconds(tail) ?? 0
            #expect(abs(sounding - 0.45) < 0.03, "the last step sounded \(sounding) s")
        }
    }

    @Test(
        "speed 0.5: tape plays a 1 kHz tone at 500 Hz, keep at 1 kHz (±1 %), a 4 s tone sounds 8 s (±0.5 %), its end whole",
        arguments: [PlaybackSpeed.Mode.tape, .keep])
    func halfSpeed(mode: PlaybackSpeed.Mode) async throws {
        let tone = StudySignals.tone(1000, seconds: 4, sampleRate: Self.rate)
        let wav = makeWAV(tone, encoding: .signed16, sampleRate: Self.rate, channels: 1)
        let rig = try await StudyRig.make(serving: wav.bytes)
        #expect(rig.player.setSpeed(PlaybackSpeed(factor: 0.5, mode: mode)) == nil)
        rig.player.play(rig.item)
        try await rig.player.waitFor("idle after the play", seconds: 20) { $0.isIdle || $0.failureReason != nil }
        await rig.recorder.waitForMore(seconds: 0.2)
        let recording = await rig.recorder.stop()
        await rig.tearDown()

        let seconds = try #require(Monitor.soundingSeconds(recording.samples), "nothing was heard")
        let first = try #require(recording.samples.firstIndex { abs(Int($0)) > 2000 })
        let middle = recording.samples[(first + Self.rate)..<(first + Self.rate * 3)]
        let pitch = try #require(StudySignals.pitch(middle, sampleRate: Self.rate))
        let expected = mode == .tape ? 500.0 : 1000.0
        print("speed 0.5 \(mode): \(pitch) Hz, \(seconds) s at the sink (from 4 s)")
        #expect(abs(pitch - expected) / expected <= 0.01, "\(pitch) Hz")
        #expect(abs(seconds - 8) / 8 <= 0.005, "\(seconds) s")
    }

    @Test("volume 50 while playing halves the amplitude at the monitor (−6 dB ± 1 dB), at once")
    func volumeHalves() async throws {
        let tone = StudySignals.tone(1000, seconds: 4, sampleRate: Self.rate)
        let wav = makeWAV(tone, encoding: .signed16, sampleRate: Self.rate, channels: 1)
        let rig = try await StudyRig.make(serving: wav.bytes)
        rig.player.play(rig.item)
        try await rig.player.waitFor("1.5 s played", seconds: 10) { ($0.progress?.position ?? 0) >= 1.5 }
        #expect(rig.player.setVolume(50) == nil)
        try await rig.player.waitFor("idle", seconds: 20) { $0.isIdle || $0.failureReason != nil }
        let recording = await rig.recorder.stop()
        await rig.tearDown()

        let samples = recording.samples
        let first = try #require(samples.firstIndex { abs(Int($0)) > 2000 })
        let last = try #require(samples.lastIndex { abs(Int($0)) > 1000 })
        let before = StudySignals.rmsDecibels(samples[(first + Self.rate / 4)..<(first + Self.rate)])
        let after = StudySignals.rmsDecibels(samples[(last - Self.rate)..<(last - Self.rate / 4)])
        print("volume 50: \(before) dB → \(after) dB (\(after - before) dB)")
        #expect(abs(after - before + 6.02) <= 1, "\(after - before) dB")
    }
}
