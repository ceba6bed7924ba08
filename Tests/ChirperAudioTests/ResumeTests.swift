import AsyncHTTPClient
import ChirperAudio
import ChirperCore
import ChirperHTTP
import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

// MARK: - Fixtures

/// The MP3 the resume tests serve: a real recording when `../shared/xeno-canto/audio/` is there, else a demo
/// asset from `assets/demo/audio/` (generated, always in the repository).
private let resumeMP3: (name: String, bytes: [UInt8])? = {
    if let name = Fixtures.named("XC5168"), let bytes = try? Fixtures.bytes(name) {
        return (name, bytes)
    }
    let demo = Fixtures.packageRoot + "/assets/demo/audio/demo-01.mp3"
    guard let data = FileManager.default.contents(atPath: demo) else { return nil }
    return ("demo-01.mp3", [UInt8](data))
}()

private let noMP3: Comment = "skipped: neither ../shared/xeno-canto/audio/ nor assets/demo/audio/demo-01.mp3 is present"

/// A generated WAV (2 s, 11025 Hz mono), always available.
private let resumeWAV = makeWAV(
    chirpSignal(frames: 22050, sampleRate: 11025, channels: 1, seed: 11),
    encoding: .signed16,
    sampleRate: 11025,
    channels: 1
)

/// The size of a leading ID3v2 tag (header included), or 0.
private func id3Size(_ bytes: [UInt8]) -> Int {
    guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 else { return 0 }
    let size = bytes[6...9].reduce(0) { ($0 << 7) | Int($1 & 0x7f) }
    return 10 + size
}

/// Cut points for an MP3: inside the ID3 tag (or the first frame when there is none), mid-frame in the
/// middle, and near the end.
private func mp3Cuts(_ bytes: [UInt8]) -> (insideTag: Int, midFrame: Int, nearEnd: Int) {
    let tag = id3Size(bytes)
    return (tag > 0 ? tag / 2 : 200, bytes.count / 2 + 37, bytes.count - 300)
}

// MARK: - A server that drops connections

/// How the test server answers: honouring `Range` with 206, or ignoring it with 200 and the whole file.
private enum RangeSupport { case honoured, ignored }

/// Serves `bytes` at `/a` (and `/file` redirects there with a 302, as xeno-canto's `file` URLs do), ending the
/// connection before its Content-Length (`ending`: a close, over TLS without close_notify; or a reset) the first
/// time each of `cuts` (absolute file offsets) is reached; later requests go on from where they ask.
private func droppingServer(
    _ bytes: [UInt8],
    cuts: [Int],
    range: RangeSupport = .honoured,
    contentType: String = "audio/mpeg",
    transport: Transport = .http,
    ending: @escaping @Sendable (Int) -> LoopbackResponse.Ending = { .cut(declaredLength: $0) },
    framing: LoopbackResponse.Framing = .contentLength
) async throws -> LoopbackServer {
    let pending = NIOLockedValueBox(cuts.sorted())
    return try await LoopbackServer.start(tls: transport.tls) { request in
        if request.path == "/file" { return .redirect(to: "/a") }
        let start: Int
        switch range {
        case .honoured:
            start = request.header("range").flatMap(rangeStart) ?? 0
        case .ignored:
            start = 0
        }
        let cut = pending.withLockedValue { cuts -> Int? in
            guard let index = cuts.firstIndex(where: { $0 > start }) else { return nil }
            return cuts.remove(at: index)
        }
        var served = request
        if range == .ignored { served.headers["range"] = nil }
        guard let cut else { return .file(bytes, contentType: contentType, for: served, chunkSize: 4096) }
        var headers = [("Content-Type", contentType), ("Accept-Ranges", "bytes")]
        var status = 200
        if start > 0 {
            status = 206
            headers.append(("Content-Range", "bytes \(start)-\(bytes.count - 1)/\(bytes.count)"))
        }
        var response = LoopbackResponse(
            status: status,
            headers: headers,
            chunks: LoopbackResponse.chunked(Array(bytes[start..<cut]), size: 4096),
            ending: ending(bytes.count - start)
        )
        response.framing = framing
        return response
    }
}

/// N of `bytes=N-`.
private func rangeStart(_ header: String) -> Int? {
    guard header.hasPrefix("bytes="), header.hasSuffix("-") else { return nil }
    return Int(header.dropFirst(6).dropLast())
}

// MARK: - Test doubles

/// Keeps every sample written, across all outputs, with the formats opened.
private final class CapturingSink: AudioSink {
    private let captured = NIOLockedValueBox<(formats: [PCMFormat], samples: [Int16])>(([], []))

    var formats: [PCMFormat] { captured.withLockedValue { $0.formats } }
    var samples: [Int16] { captured.withLockedValue { $0.samples } }

    func prepare() async throws {}

    func openOutput(
        format: PCMFormat,
        label: String,
        bufferSeconds: Double,
        continuing: Bool,
        onUnderrun: @escaping @Sendable () -> Void
    ) async throws -> any AudioOutput {
        captured.withLockedValue { $0.formats.append(format) }
        return CapturingOutput(format: format, captured: captured)
    }

    func shutdown() {}
}

private final class CapturingOutput: AudioOutput {
    let format: PCMFormat
    private let captured: NIOLockedValueBox<(formats: [PCMFormat], samples: [Int16])>
    private let written = NIOLockedValueBox<(count: Int, stopped: Bool)>((0, false))

    init(format: PCMFormat, captured: NIOLockedValueBox<(formats: [PCMFormat], samples: [Int16])>) {
        self.format = format
        self.captured = captured
    }

    func write(_ samples: [Int16]) async throws -> OutputWrite {
        let cancelled = Task.isCancelled
        let stopped = written.withLockedValue { state in
            if !state.stopped, !cancelled { state.count += samples.count }
            return state.stopped || cancelled
        }
        if stopped { return .stopped }
        captured.withLockedValue { $0.samples += samples }
        return .queued
    }

    func start() throws {}
    func pause() throws {}
    func setVolume(percent: Int) {}
    func drain() async throws -> OutputDrain {
        written.withLockedValue { $0.stopped } || Task.isCancelled ? .stopped : .played(secondsAgo: 0)
    }
    func stop() { written.withLockedValue { $0.stopped = true } }
    var playedSeconds: Double? { format.seconds(ofSamples: written.withLockedValue { $0.count }) }
}

// MARK: - Helpers

/// Plays `url` to the end through a capturing sink; returns the sink, the back-off clock and the states seen.
/// The stall watchdog has its own manual clock that never moves, so it cannot fire while the back-offs
/// (recorded, never waited) are checked.
private func playToEnd(
    _ url: String,
    transport: Transport = .http,
    configuration: Player.Configuration = Player.Configuration()
) async throws -> (sink: CapturingSink, clock: RecordingClock, kinds: [String]) {
    let sink = CapturingSink()
    let clock = RecordingClock()
    let player = Player(
        sink: sink, sources: transport.sources, clocks: Player.Clocks(stall: ManualClock(), backoff: clock),
        configuration: configuration)
    let log = StateLog(player)
    player.play(PlayItem(label: "XC1", location: .remote(url)))
    let end = try await player.waitFor("the end of the track") { $0.isIdle || $0.failureReason != nil }
    if let reason = end.failureReason { throw TestFailure("failed: \(reason)") }
    try await log.waitFor("the log to catch up") { $0.last == "idle" && $0.count >= 3 }
    await player.shutdown()
    return (sink, clock, log.kinds)
}

/// The `Range` headers of the audio requests the server saw, in order (`nil` for a request without one); the
/// redirects in front of them are not counted.
private func ranges(_ server: LoopbackServer) -> [String?] {
    server.requests.filter { $0.path != "/file" }.map { $0.header("range") }
}

/// One request without `Range`, then one `Range: bytes=N-` per cut, each N past the last and at most the cut.
///
/// N is what the player had received, which can be less than the server sent before closing (the HTTP
/// client drops body parts it had not handed over when the connection fails). That N is exactly right is
/// proven by the byte-identical PCM: one byte too few or too many would shift or repeat the stream.
private func expectResumed(_ server: LoopbackServer, cuts: [Int], sourceLocation: SourceLocation = #_sourceLocation) {
    let seen = ranges(server)
    #expect(seen.count == cuts.count + 1, "requests: \(seen)", sourceLocation: sourceLocation)
    #expect(seen.first == .some(nil), "the first request has no Range: \(seen)", sourceLocation: sourceLocation)
    var previous = 0
    for (cut, header) in zip(cuts, seen.dropFirst()) {
        let start = header.flatMap(rangeStart) ?? -1
        #expect(
            start > previous && start <= cut, "Range \(header ?? "none") for a cut at \(cut)",
            sourceLocation: sourceLocation)
        previous = start
    }
}

@Suite("Resume after a dropped connection")
struct ResumeTests {
    /// How a connection ends early: a TCP close (over TLS with no close_notify), a reset, or a chunked body
    /// closed without its last chunk.
    enum Drop: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case close, reset, chunkedClose
        var testDescription: String { rawValue }
        var ending: @Sendable (Int) -> LoopbackResponse.Ending {
            let reset = self == .reset
            return { length in reset ? .reset(declaredLength: length) : .cut(declaredLength: length) }
        }
        var framing: LoopbackResponse.Framing { self == .chunkedClose ? .chunked : .contentLength }
    }

    @Test(
        "behind a 302, a 1.1 MB recording dropped at 300 kB, at byte 1 and inside its last frame resumes to identical PCM",
        .enabled(if: Fixtures.named("XC34430") != nil, "skipped: ../shared/xeno-canto/audio/ is absent"),
        arguments: Transport.allCases, Drop.allCases
    )
    func dunnockDropped(transport: Transport, drop: Drop) async throws {
        let bytes = try Fixtures.bytes(try #require(Fixtures.named("XC34430")))
        let reference = try await uninterrupted(bytes)
        for cut in [300_000, 1, bytes.count - 100] {
            let server = try await droppingServer(
                bytes, cuts: [cut], transport: transport, ending: drop.ending, framing: drop.framing)
            let played = try await playToEnd(server.baseURL + "/file", transport: transport)
            #expect(played.sink.samples == reference, "cut at \(cut)")
            #expect(played.clock.sleeps == [.milliseconds(500)], "cut at \(cut)")
            await server.shutdown()
        }
    }

    @Test(
        "an MP3 cut once (inside the ID3 tag, mid-frame, near the end) resumes from the received byte: identical PCM",
        .enabled(if: resumeMP3 != nil, noMP3), arguments: Transport.allCases
    )
    func mp3CutOnce(transport: Transport) async throws {
        let mp3 = try #require(resumeMP3)
        let reference = try await uninterrupted(mp3.bytes)
        #expect(reference == (try await decode(mp3.bytes, chunkSizes: [mp3.bytes.count]).samples))
        let cuts = mp3Cuts(mp3.bytes)
        for cut in [cuts.insideTag, cuts.midFrame, cuts.nearEnd] {
            let server = try await droppingServer(mp3.bytes, cuts: [cut], transport: transport)
            let played = try await playToEnd(server.baseURL + "/file", transport: transport)
            #expect(played.sink.samples == reference, "\(mp3.name) cut at \(cut)")
            #expect(played.sink.formats.count == 1)
            expectResumed(server, cuts: [cut])
            #expect(played.clock.sleeps == [.milliseconds(500)])
            #expect(played.kinds.first(where: { $0 == "failed" }) == nil)
            await server.shutdown()
        }
    }

    @Test(
        "an MP3 cut twice resumes twice, with a doubling back-off, and plays identical PCM",
        .enabled(if: resumeMP3 != nil, noMP3), arguments: Transport.allCases
    )
    func mp3CutTwice(transport: Transport) async throws {
        let mp3 = try #require(resumeMP3)
        let reference = try await uninterrupted(mp3.bytes)
        let cuts = mp3Cuts(mp3.bytes)
        for pair in [[cuts.insideTag, cuts.midFrame], [cuts.midFrame, cuts.nearEnd]] {
            let server = try await droppingServer(mp3.bytes, cuts: pair, transport: transport)
            let played = try await playToEnd(server.baseURL + "/file", transport: transport)
            #expect(played.sink.samples == reference, "\(mp3.name) cut at \(pair)")
            expectResumed(server, cuts: pair)
            #expect(played.clock.sleeps == [.milliseconds(500), .seconds(1)])
            await server.shutdown()
        }
    }

    @Test(
        "a server that ignores Range (200 with the whole file) still gives identical PCM",
        .enabled(if: resumeMP3 != nil, noMP3), arguments: Transport.allCases
    )
    func rangeIgnored(transport: Transport) async throws {
        let mp3 = try #require(resumeMP3)
        let reference = try await uninterrupted(mp3.bytes)
        let cuts = mp3Cuts(mp3.bytes)
        let server = try await droppingServer(
            mp3.bytes, cuts: [cuts.insideTag, cuts.midFrame], range: .ignored, transport: transport)
        let played = try await playToEnd(server.baseURL + "/file", transport: transport)
        #expect(played.sink.samples == reference)
        // The client still asked from the right place; the server answered from 0 and the skip did the rest.
        expectResumed(server, cuts: [cuts.insideTag, cuts.midFrame])
        await server.shutdown()
    }

    @Test(
        "a WAV cut in its header, mid-sample and near the end, once and twice, plays identical PCM",
        arguments: Transport.allCases)
    func wavCuts(transport: Transport) async throws {
        let bytes = resumeWAV.bytes
        let reference = try await uninterrupted(bytes, contentType: "audio/wav")
        #expect(reference == resumeWAV.expected)
        let cutSets = [[20], [bytes.count / 2 + 1], [bytes.count - 99], [21, bytes.count / 3 + 1]]
        for cuts in cutSets {
            for range in [RangeSupport.honoured, .ignored] {
                let server = try await droppingServer(
                    bytes, cuts: cuts, range: range, contentType: "audio/wav", transport: transport)
                let played = try await playToEnd(server.baseURL + "/file", transport: transport)
                #expect(played.sink.samples == reference, "cuts \(cuts), \(range)")
                expectResumed(server, cuts: cuts)
                await server.shutdown()
            }
        }
    }

    @Test(
        "when the retries run out the track fails with the count, and the next play works",
        arguments: Transport.allCases)
    func retriesExhausted(transport: Transport) async throws {
        let bytes = resumeWAV.bytes
        // Every answer is cut 1000 bytes after where it starts: 4 drops are more than 3 reconnects.
        let server = try await droppingServer(bytes, cuts: [1000, 2000, 3000, 4000], transport: transport)
        let good = try await LoopbackServer.start(tls: transport.tls) {
            .file(bytes, contentType: "audio/wav", for: $0)
        }
        let sink = CapturingSink()
        let clock = RecordingClock()
        let player = Player(
            sink: sink, sources: transport.sources, clocks: Player.Clocks(stall: ManualClock(), backoff: clock))
        player.play(PlayItem(label: "XC1", location: .remote(server.baseURL + "/a")))
        let failed = try await player.waitFor("the failure") { $0.failureReason != nil }
        #expect(failed.failureReason == "the connection dropped 4 times; play again to retry")
        #expect(server.requests.count == 4, "the first try and 3 reconnects: \(ranges(server))")
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1), .seconds(2)])
        #expect(player.runningPipelines == 0)

        player.play(PlayItem(label: "XC2", location: .remote(good.baseURL + "/b.wav")))
        try await player.waitFor("the next play to finish") { $0.isIdle }
        #expect(sink.samples.suffix(resumeWAV.expected.count) == resumeWAV.expected[...])
        await player.shutdown()
        await server.shutdown()
        await good.shutdown()
    }

    @Test(
        "a drop while the sink holds its full buffer plays on from the queue while it reconnects; no hang",
        .timeLimit(.minutes(1)))
    func dropWithFullSink() async throws {
        // 6 s of 8 kHz mono; the sink holds 2 s. The stall, back-off and progress clocks never move: the
        // back-off is recorded, not waited.
        let rig = GatedRig(seconds: 6, seed: 7)
        let (wav, header, source, sink, player, log) = (rig.wav, rig.header, rig.source, rig.sink, rig.player, rig.log)
        player.play(PlayItem(label: "XC1", location: .remote("http://drop.example/a.wav")))
        // 3 s arrive: the sound starts, the sink fills to its 2 s and the next write waits.
        let dropAt = header + 3 * 16000
        source.release(wav.bytes[..<dropAt])
        try await player.waitFor("playing") { $0.isPlaying }
        let output = try #require(sink.outputs.first)
        await output.waitUntilWriteWaits()
        // The connection drops; the speaker plays 1 s, so the feed writes on, reads, and meets the drop.
        source.drop()
        output.play(seconds: 1)
        await source.waitForOpens(2)
        #expect(source.opens == [0, Int64(dropAt)])
        #expect(player.state.isPlaying, "the queue still plays while the connection is resumed")
        // The rest arrives on the new connection; the speaker plays everything.
        source.release(wav.bytes[dropAt...])
        source.finish()
        await output.playUntilDrain()
        output.completeDrain()
        let end = try await player.waitFor("the end") { $0.isIdle || $0.failureReason != nil }
        #expect(end.isIdle)
        try await log.waitFor("the log to catch up") { $0.last == "idle" }
        #expect(log.kinds == ["idle", "buffering", "playing", "idle"])
        #expect(output.samples == wav.expected)
        await player.shutdown()
    }

    @Test(
        "a drop whose reconnect outlasts the queue shows buffering once it runs dry, then plays on, whole",
        .timeLimit(.minutes(1)))
    func dropOutlastsQueue() async throws {
        let rig = GatedRig(seconds: 3, seed: 9)
        let (wav, header, source, sink, player, log) = (rig.wav, rig.header, rig.source, rig.sink, rig.player, rig.log)
        let backoff = rig.backoff
        player.play(PlayItem(label: "XC1", location: .remote("http://drop.example/b.wav")))
        let dropAt = header + 16000
        source.release(wav.bytes[..<dropAt])
        source.drop()
        try await player.waitFor("playing") { $0.isPlaying }
        await source.waitForOpens(2)
        // Nothing more has come on the new connection: the speaker plays the 1 s queued and runs dry.
        let output = try #require(sink.outputs.first)
        output.play(seconds: 1)
        output.underrun()
        try await player.waitFor("buffering after running dry") { $0.isBuffering }
        output.openGate()
        source.release(wav.bytes[dropAt...])
        source.finish()
        try await player.waitFor("playing again") { $0.isPlaying }
        await output.playUntilDrain()
        output.completeDrain()
        try await player.waitFor("the end") { $0.isIdle }
        try await log.waitFor("the log to catch up") { $0.last == "idle" }
        #expect(log.kinds == ["idle", "buffering", "playing", "buffering", "playing", "idle"])
        #expect(output.samples == wav.expected)
        #expect(backoff.sleeps == [.milliseconds(500)])
        await player.shutdown()
    }

    @Test("a server slower than the bit rate gives buffering ⇄ playing cycles and the full PCM, no failure")
    func slowServer() async throws {
        // 1.5 s of 8 kHz mono. The source hands over only what the scenario releases; the sink plays only what
        // the scenario plays; the stall and progress clocks never move. So the sound runs dry twice, for sure.
        let rig = GatedRig(seconds: 1.5, seed: 5)
        let (wav, header, source, sink, player, log) = (rig.wav, rig.header, rig.source, rig.sink, rig.player, rig.log)
        let bytesPerSecond = 16000
        player.play(PlayItem(label: "XC1", location: .remote("http://slow.example/slow.wav")))
        var sent = 0
        func send(seconds: Double) {
            let end = min(wav.bytes.count, header + sent + Int(seconds * Double(bytesPerSecond)))
            source.release(wav.bytes[(header + sent)..<end])
            sent = end - header
        }
        // The header and 0.2 s arrive: more than the start threshold, so the sound starts.
        source.release(wav.bytes[..<header])
        send(seconds: 0.2)
        try await player.waitFor("playing") { $0.isPlaying }
        let output = try #require(sink.outputs.first)
        for round in 1...2 {
            await output.waitForLog("start", count: round)
            // The speaker plays all of it before the next bytes arrive: it runs dry while the track goes on.
            output.play(seconds: 0.2)
            output.underrun()
            try await player.waitFor("buffering after running dry (\(round))") { $0.isBuffering }
            output.openGate()
            // Then 0.2 s more arrive: more than the rebuffer threshold, so the sound goes on.
            send(seconds: 0.2)
            try await player.waitFor("playing again (\(round))") { $0.isPlaying }
        }
        // The rest arrives and the body ends; the sink plays it out.
        send(seconds: 1.5)
        source.finish()
        await output.waitForLog("drain")
        output.completeDrain()
        let end = try await player.waitFor("the end") { $0.isIdle || $0.failureReason != nil }
        #expect(end.isIdle)
        try await log.waitFor("the log to catch up") { $0.last == "idle" }
        #expect(log.kinds == ["idle", "buffering", "playing", "buffering", "playing", "buffering", "playing", "idle"])
        #expect(output.samples == wav.expected)
        #expect(sink.outputs.count == 1)
        await player.shutdown()
    }
}

/// What an uninterrupted play over HTTP hands the sink.
private func uninterrupted(_ bytes: [UInt8], contentType: String = "audio/mpeg") async throws -> [Int16] {
    let server = try await LoopbackServer.start { .file(bytes, contentType: contentType, for: $0) }
    let played = try await playToEnd(server.baseURL + "/whole")
    await server.shutdown()
    #expect(played.clock.sleeps.isEmpty)
    return played.sink.samples
}

/// A player over a gated source and a gated sink (2 s): an 8 kHz mono WAV of `seconds`, whose bytes arrive
/// and play only as a scenario says. The stall and progress clocks never move; the back-off is recorded.
private struct GatedRig {
    let wav: (bytes: [UInt8], expected: [Int16])
    let header: Int
    let source: GatedSource
    let sink = GatedSink(capacity: 2)
    let backoff = RecordingClock()
    let player: Player
    let log: StateLog

    init(seconds: Double, seed: UInt64) {
        wav = makeWAV(
            chirpSignal(frames: Int(seconds * 8000), sampleRate: 8000, channels: 1, seed: seed),
            encoding: .signed16, sampleRate: 8000, channels: 1, extraChunks: false)
        header = wav.bytes.count - wav.expected.count * 2
        source = GatedSource(totalLength: wav.bytes.count)
        player = Player(
            sink: sink, sources: source.sources,
            clocks: Player.Clocks(stall: ManualClock(), backoff: backoff, progress: ManualClock()),
            configuration: Player.Configuration(
                policy: BufferingPolicy(startThreshold: 0.1, rebufferThreshold: 0.15, sinkBuffer: 2)))
        log = StateLog(player)
    }
}
