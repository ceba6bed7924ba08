import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// The player's commands for studying a recording, against a sink whose speaker the test moves.
@Suite("Player: seek, volume and loop on the sink's outputs")
struct PlayerStudyTests {
    static func rig(transport: Transport = .http) async throws -> (LoopbackServer, GatedSink, Player, PlayItem) {
        try await makeLongWAV()
        let server = try await LoopbackServer.start(tls: transport.tls) { request in
            .file(longWAV.bytes, contentType: "audio/wav", for: request)
        }
        let sink = GatedSink()
        let player = Player(sink: sink, sources: transport.sources, clocks: .unwatched())
        return (server, sink, player, PlayItem(label: "XC-LONG", location: .remote(server.baseURL + "/long.wav")))
    }

    @Test("seek while paused: the old output stops at once, a new one fills silent at the target; resume starts it")
    func seekWhilePaused() async throws {
        let (server, sink, player, item) = try await Self.rig()
        player.play(item)
        try await player.waitFor("playing") { $0.isPlaying }
        #expect(player.pause() == nil)
        #expect(player.seek(.absolute(30)) == nil)
        // The seek's segment (1): a state published before the seek may be read after its output exists.
        let paused = try await player.waitFor("the seek's segment paused on a second output, full") { state in
            state.isPaused && state.progress?.segment == 1 && sink.outputs.count == 2
                && (state.progress?.buffered ?? 0) >= 1.5
        }
        #expect(paused.progress?.position == 30)
        #expect(sink.outputs[0].isStopped, "the old output was silenced")
        #expect(!sink.outputs[1].log.contains("start"), "the new output stays silent while paused")
        #expect(player.resume() == nil)
        await sink.outputs[1].waitForLog("start")
        sink.outputs[1].play(seconds: 1)
        let moved = try await player.waitFor("the position moving from 30 s") { ($0.progress?.position ?? 0) >= 30.9 }
        #expect((moved.progress?.position ?? 0) < 31.1)
        await player.shutdown()
        await server.shutdown()
    }

    @Test(
        "a seek back inside what arrived makes no new request; one beyond it asks with Range from the WAV offset",
        arguments: Transport.allCases)
    func seekRequests(transport: Transport) async throws {
        let (server, sink, player, item) = try await Self.rig(transport: transport)
        player.play(item)
        try await player.waitFor("playing") { $0.isPlaying }
        #expect(player.seek(.absolute(0.5)) == nil)
        try await player.waitFor("buffered at 0.5 s") { state in
            state.progress?.position == 0.5 && sink.outputs.count == 2 && (state.progress?.buffered ?? 0) > 0.5
        }
        #expect(server.requests.count == 1, "the start had arrived: no request")
        #expect(player.seek(.absolute(59)) == nil)
        try await player.waitFor("buffered at 59 s") { state in
            state.progress?.position == 59 && sink.outputs.count == 3 && (state.progress?.buffered ?? 0) > 0.5
        }
        let ranges = server.requests.compactMap { $0.header("range") }
        // The whole 1.9 MB file may have arrived by then (no Range); a Range, if any, is the byte of 59 s:
        // 44 + 59 × 8000 × 4.
        #expect(ranges.allSatisfy { $0 == "bytes=\(44 + 59 * 8000 * 4)-" }, "\(ranges)")
        #expect(server.requests.count == 1 + ranges.count)
        await player.shutdown()
        await server.shutdown()
    }

    @Test(
        "a server that ignores Range: the seek still lands (read forward and discarded) and the state says so",
        arguments: Transport.allCases)
    func serverIgnoresRange(transport: Transport) async throws {
        try await makeLongWAV()
        let server = try await LoopbackServer.start(tls: transport.tls) { request in
            // The whole file with 200 whatever the Range header asks, slowly enough that 50 s is not yet here.
            LoopbackResponse(
                status: 200, headers: [("Content-Type", "audio/wav")],
                chunks: LoopbackResponse.chunked(longWAV.bytes, size: 64 * 1024, delay: .milliseconds(20)))
        }
        let sink = GatedSink()
        let player = Player(sink: sink, sources: transport.sources, clocks: .unwatched())
        player.play(PlayItem(label: "XC-LONG", location: .remote(server.baseURL + "/long.wav")))
        try await player.waitFor("playing") { $0.isPlaying }
        #expect(player.seek(.absolute(50)) == nil)
        let landed = try await player.waitFor("buffered at 50 s") { state in
            state.progress?.position == 50 && (state.progress?.buffered ?? 0) > 0.5
        }
        #expect(landed.progress?.rangeIgnored == true)
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.header("range") == "bytes=\(44 + 50 * 8000 * 4)-")
        // What reaches the sink after the seek is the recording from 50 s.
        let output = try #require(sink.outputs.last)
        let from50 = Array(longWAV.expected[(50 * 8000 * 2)...].prefix(output.samples.count))
        #expect(output.samples.count >= 8000 && output.samples == from50)
        await player.shutdown()
        await server.shutdown()
    }

    @Test("volume reaches the playing output at once and every output opened after it; mute is volume 0")
    func volume() async throws {
        let (server, sink, player, item) = try await Self.rig()
        player.play(item)
        try await player.waitFor("playing") { $0.isPlaying }
        #expect(player.setVolume(50) == nil)
        #expect(sink.outputs[0].volume == 50)
        #expect(player.setMuted(true) == nil)
        #expect(sink.outputs[0].volume == 0)
        #expect(player.setMuted(false) == nil)
        #expect(player.seek(.absolute(10)) == nil)
        try await player.waitFor("a second output") { _ in sink.outputs.count == 2 }
        #expect(sink.outputs[1].volume == 50)
        #expect(player.settings == PlaybackSettings(volume: 50))
        await player.shutdown()
        await server.shutdown()
    }
}

@Suite("Player: studying into a WAV file")
struct PlayerWAVStudyTests {
    @Test("--output wav: a seek back appends what is heard after it (the file is not started over); loops are refused")
    func seekAppends() async throws {
        try await makeLongWAV()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("study-\(UUID()).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = GatedSource(totalLength: longWAV.bytes.count)
        let player = Player(sink: WAVFileSink(path: path), sources: source.sources, clocks: .unwatched())
        player.play(PlayItem(label: "XC-LONG", location: .local(path: "/gated")))
        // The first 10 s arrive and are written (8000 frames/s × 4 bytes).
        source.release(longWAV.bytes.prefix(44 + 10 * 8000 * 4))
        try await player.waitFor("10 s written") { ($0.progress?.buffered ?? 0) + ($0.progress?.position ?? 0) >= 9.9 }
        #expect(
            player.loop(from: .absolute(1), to: .absolute(2))
                == "loops need a sound server: --output wav and null run faster than real time")
        #expect(player.seek(.absolute(8)) == nil)
        // The pipeline took the seek from the bytes it holds (8 s is held) while its connection waited; the
        // rest arrives in 16 KiB pieces and follows.
        let rest = Array(longWAV.bytes.dropFirst(44 + 10 * 8000 * 4))
        for start in stride(from: 0, to: rest.count, by: 16 * 1024) {
            source.release(rest[start..<min(rest.count, start + 16 * 1024)])
        }
        source.finish()
        let end = try await player.waitFor("idle") { $0.isIdle || $0.failureReason != nil }
        #expect(end.failureReason == nil)
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        let frames = (file.count - 44) / 4
        // 10 s, then from 8 s to the end (52 s): 62 s in all, one valid header saying so.
        #expect(frames == 62 * 8000, "\(frames) frames")
        let declared = file[40..<44].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(declared == file.count - 44)
        await player.shutdown()
    }
}

@Suite("Player: seeks land on the sample, to the recording's end")
struct PlayerSeekToSampleTests {
    @Test(
        "--output wav from a slow server: seek 0:30 beyond what arrived, then 0:12.345; each part is mpg123 -s's decode from its target, to the last sample",
        .enabled(if: StudySignals.hasLame && Fixtures.hasMPG123, StudySignals.noLame))
    func seeksInACBRMP3() async throws {
        let rate = 44100
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mp3 = try await StudySignals.encodeMP3(
            try await StudySignals.steppedToneOffThePool(seconds: 40, sampleRate: rate), sampleRate: rate,
            options: ["-b", "128"])
        try Data(mp3).write(to: URL(fileURLWithPath: directory + "/in.mp3"))
        let reference = try await Fixtures.referenceDecode(directory + "/in.mp3")
        // 4 KiB every 100 ms (2.5 s of audio a second): 30 s in is 12 s of network away when the seek comes, and
        // the 8 s after 0:32 take 3 s to arrive, time enough for the second seek on a loaded machine (at 16 KiB
        // the track once ended before it).
        let server = try await LoopbackServer.start { request in
            .file(mp3, contentType: "audio/mpeg", for: request, chunkSize: 4 * 1024, chunkDelay: .milliseconds(100))
        }
        let path = directory + "/out.wav"
        let player = Player(sink: WAVFileSink(path: path), clocks: .unwatched())
        player.play(PlayItem(label: "XC-SEEK", location: .remote(server.baseURL + "/in.mp3")))
        try await player.waitFor("playing") { ($0.progress?.position ?? 0) > 0.2 }
        #expect(player.seek(.absolute(30)) == nil)
        try await player.waitFor("past 32 s") { ($0.progress?.position ?? 0) > 32 }
        #expect(player.seek(.absolute(12.345)) == nil)
        let end = try await player.waitFor("the end") { $0.isIdle || $0.failureReason != nil }
        #expect(end.failureReason == nil)
        await player.shutdown()
        await server.shutdown()

        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        // Compared off the cooperative pool: millions of samples in a debug build.
        let parts = try await offThePool { () -> (firstSeek: Int?, secondSeek: Int, last: Bool, middle: Bool) in
            let written = file.dropFirst(44).withUnsafeBytes { raw in
                (0..<raw.count / 2).map {
                    Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))
                }
            }
            let closeEnough = { (a: ArraySlice<Int16>, b: ArraySlice<Int16>) in
                a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
            }
            // The first part is the decode from the start, until the first seek.
            let firstSeek = written.indices.first { $0 >= reference.count || written[$0] != reference[$0] }
            // The last part is the decode from 12.345 s to the recording's very end (the encoder's padding cut).
            let second = Int(12.345 * Double(rate))
            let secondSeek = written.count - (reference.count - second)
            let last = closeEnough(written[max(0, secondSeek)...], reference[second...])
            // Between them, the decode from 30.0 s on.
            let from = firstSeek ?? 0
            let middle = written[from..<max(from, secondSeek)]
            let first = 30 * rate
            return (firstSeek, secondSeek, last, closeEnough(middle, reference[first..<(first + middle.count)]))
        }
        let firstSeek = try #require(parts.firstSeek, "the seek left no mark")
        #expect(parts.secondSeek > firstSeek)
        #expect(parts.last, "the part after 0:12.345 is not the recording's from there to its end")
        #expect(parts.middle, "the part after 0:30 is not the recording's from there")
    }
}
