import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// Shown when the private PipeWire cannot run here.
private let noPipeWire = Comment(rawValue: PipeWireHarness.unavailableReason ?? "")

// Nested in the PulseAudio suite, which is serialized: two real-time sound servers playing at once on a
// loaded machine starve each other (measured: correlation 0.62 at the PulseAudio monitor in a full run).
extension PulseEndToEndTests {
    @Suite(
        "PipeWire end to end (pipewire-pulse)",
        .serialized,
        .enabled(if: PipeWireHarness.unavailableReason == nil, noPipeWire)
    )
    struct PipeWireEndToEndTests {
        @Test(
            "a real recording and a WAV played over loopback HTTP reach a PipeWire null sink intact (±2 %, ≥ 0.9)",
            .enabled(if: Fixtures.hasMPG123, Fixtures.noMPG123),
            arguments: ["XC178978", "WAV"]
        )
        func playsThroughPipeWire(id: String) async throws {
            let bytes: [UInt8]
            let reference: [Int16]
            let format: PCMFormat
            if id == "WAV" {
                let signal = chirpSignal(frames: 48000 * 2, sampleRate: 48000, channels: 2)
                let wav = makeWAV(signal, encoding: .signed16, sampleRate: 48000, channels: 2)
                (bytes, reference, format) = (wav.bytes, wav.expected, PCMFormat(sampleRate: 48000, channels: 2))
            } else {
                guard let name = Fixtures.named(id) else {
                    print("skipped \(id): ../shared/xeno-canto/audio/ is absent")
                    return
                }
                bytes = try Fixtures.bytes(name)
                reference = try await Fixtures.referenceDecode(Fixtures.path(name))
                guard case .format(let first, _) = try StreamDecoder().feed(bytes).first else {
                    throw TestFailure("\(id) announces no format")
                }
                format = first
            }
            let harness = try PipeWireHarness()
            try await harness.start(sampleRate: format.sampleRate, channels: format.channels)
            let http = try await LoopbackServer.start { request in
                .file(bytes, contentType: "audio/mpeg", for: request)
            }
            let player = Player(sink: PulseAudioSink(server: harness.serverAddress), clocks: .unwatched())
            let recorder = try await harness.startRecording(sampleRate: format.sampleRate, channels: format.channels)
            player.play(PlayItem(label: "XC-PW", location: .remote(http.baseURL + "/download")))
            try await player.waitFor("playing", seconds: 10) { $0.isPlaying }
            try await player.waitFor("idle after the drain", seconds: 60) { $0.isIdle || $0.failureReason != nil }
            #expect(player.state.isIdle, "\(player.state)")
            await recorder.waitForMore(seconds: 0.2)  // the monitor's own clock: the tail, without sleeping
            let recording = await recorder.stop()
            await player.shutdown()
            await http.shutdown()
            await harness.stop()

            let comparison = try #require(
                SignalComparison(
                    recorded: recording.samples, reference: reference, channels: format.channels,
                    sampleRate: format.sampleRate),
                "nothing audible was recorded"
            )
            print("pipewire e2e \(id) \(format): \(comparison)")
            #expect(comparison.correlation >= 0.9, "\(comparison)")
            #expect(comparison.durationError <= 0.02, "\(comparison)")
            let covered = recording.samples.count / format.channels - comparison.lagFrames
            #expect(covered >= reference.count / format.channels * 98 / 100, "the recording stops early")
        }
    }
}
