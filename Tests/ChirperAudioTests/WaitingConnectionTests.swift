import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Testing

/// A track waiting on its connection (for bytes, or for the back-off before a reconnect) meets a seek or a stop
/// as the next thing in its channel, beside the connection's news: nothing waits for the network first. A
/// stop hangs up an output being opened too: nothing waits for the sound server first.
@Suite("Player: a track waiting on its connection takes commands at once")
struct WaitingConnectionTests {
    /// 8 kHz mono 16-bit: 16,000 bytes a second.
    private static let bytesPerSecond = 16000

    @Test(
        "a seek back while the connection waits for bytes plays on from the held bytes at once; the bytes asked for before follow it",
        .timeLimit(.minutes(1)))
    func seekWhileTheConnectionWaits() async throws {
        let rig = Rig(seconds: 6, sinkSeconds: 10)
        let (wav, header, source) = (rig.wav, rig.header, rig.source)
        rig.player.play(PlayItem(label: "XC1", location: .remote("http://slow.example/a.wav")))
        // 4 s arrive at once, then nothing: the track decodes them, the sink takes them all, and the track waits
        // for its connection's next bytes, asked for already.
        let arrived = header + 4 * Self.bytesPerSecond
        source.release(wav.bytes[..<arrived])
        await source.waitForReads(2)
        try await rig.player.waitFor("an output") { $0.isPlaying }
        let first = try #require(rig.sink.outputs.first)
        await first.waitForSamples(4 * 8000)
        #expect(rig.player.seek(.absolute(1)) == nil)
        // The seek is carried out from the bytes held, with no new request and no byte more: it plays.
        let landed = try await rig.player.waitFor("playing from 0:01") { state in
            state.isPlaying && (state.progress?.segment ?? 0) >= 1
        }
        #expect(abs((landed.progress?.position ?? 0) - 1) < 0.01)
        #expect(first.isStopped)
        #expect(source.opens == [0])
        // The bytes the connection was asked for arrive, and play on after the held ones.
        let second = try #require(rig.sink.outputs.last)
        source.release(wav.bytes[arrived...])
        source.finish()
        await second.playUntilDrain()
        second.completeDrain()
        try await rig.player.waitFor("the end") { $0.isIdle }
        #expect(second.samples == Array(wav.expected[8000...]))
        #expect(source.opens == [0])
        await rig.player.shutdown()
    }

    @Test(
        "a source faster than the sound is read only as the decoding needs it: while the sink is full, nothing more is read",
        .timeLimit(.minutes(1)))
    func fullSinkStopsReading() async throws {
        let rig = Rig(seconds: 30, sinkSeconds: 1)
        rig.player.play(PlayItem(label: "XC1", location: .remote("http://fast.example/d.wav")))
        // The whole recording is there at once, in chunks of 2 s (larger than what is decoded in a step).
        let chunk = 2 * Self.bytesPerSecond
        rig.source.release(rig.wav.bytes[..<rig.header])
        for start in stride(from: rig.header, to: rig.wav.bytes.count, by: chunk) {
            rig.source.release(rig.wav.bytes[start..<min(rig.wav.bytes.count, start + chunk)])
        }
        rig.source.finish()
        try await rig.player.waitFor("playing") { $0.isPlaying }
        let output = try #require(rig.sink.outputs.first)
        await output.waitUntilWriteWaits()
        // The sink holds 1 s: the header, the chunk being decoded and the one asked for. Reading on while the
        // track decodes would take in chunk after chunk of the recording.
        #expect(rig.source.reads <= 3, "\(rig.source.reads) reads")
        await rig.player.shutdown()
    }

    @Test(
        "a stop during the back-off before a reconnect ends the track at once: the wait is hung up and no request follows",
        .timeLimit(.minutes(1)))
    func stopDuringTheBackOff() async throws {
        let rig = Rig(seconds: 3, sinkSeconds: 2)
        rig.player.play(PlayItem(label: "XC1", location: .remote("http://drop.example/b.wav")))
        rig.source.release(rig.wav.bytes[..<(rig.header + Self.bytesPerSecond)])
        rig.source.drop()
        try await rig.player.waitFor("playing") { $0.isPlaying }
        // The drop is met: the reconnect waits its back-off on the clock, which never moves.
        await rig.backoff.waitForSleepers(1)
        await rig.player.stop()
        #expect(rig.player.state.isIdle)
        #expect(rig.player.runningPipelines == 0)
        #expect(rig.backoff.sleeperCount == 0, "the back-off ended with its connection, before the track did")
        #expect(rig.source.opens == [0])
        await rig.player.shutdown()
    }

    @Test(
        "a stop while the sound server has not answered the output's open ends the track at once: the open is hung up",
        .timeLimit(.minutes(1)))
    func stopWhileTheOutputOpens() async throws {
        let rig = Rig(seconds: 3, sinkSeconds: 2)
        let soundServer = ManualClock()
        rig.sink.leaveOpensUnanswered(on: soundServer)
        rig.player.play(PlayItem(label: "XC1", location: .remote("http://slow.example/c.wav")))
        rig.source.release(rig.wav.bytes[..<(rig.header + Self.bytesPerSecond)])
        await soundServer.waitForSleepers(1)
        await rig.player.stop()
        #expect(rig.player.state.isIdle)
        #expect(rig.player.runningPipelines == 0)
        #expect(soundServer.sleeperCount == 0, "the open was hung up")
        #expect(rig.sink.outputs.isEmpty)
        await rig.player.shutdown()
    }
}

/// A player over a gated source and a gated sink of `sinkSeconds`: an 8 kHz mono WAV of `seconds`, whose bytes
/// arrive and play only as a scenario says. The stall, back-off and progress clocks move only when it says.
private struct Rig {
    let wav: (bytes: [UInt8], expected: [Int16])
    let header: Int
    let source: GatedSource
    let sink: GatedSink
    let backoff = ManualClock()
    let player: Player

    init(seconds: Double, sinkSeconds: Double) {
        wav = makeWAV(
            chirpSignal(frames: Int(seconds * 8000), sampleRate: 8000, channels: 1, seed: 21),
            encoding: .signed16, sampleRate: 8000, channels: 1, extraChunks: false)
        header = wav.bytes.count - wav.expected.count * 2
        source = GatedSource(totalLength: wav.bytes.count)
        sink = GatedSink(capacity: sinkSeconds)
        player = Player(
            sink: sink, sources: source.sources,
            clocks: Player.Clocks(stall: ManualClock(), backoff: backoff, progress: ManualClock()),
            configuration: Player.Configuration(
                policy: BufferingPolicy(startThreshold: 0.1, rebufferThreshold: 0.15, sinkBuffer: sinkSeconds)))
    }
}
