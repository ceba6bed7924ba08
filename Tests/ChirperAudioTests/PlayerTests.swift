import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// Bodies served by one loopback server, by path.
private func serve(_ bodies: [String: [UInt8]], chunkSize: Int = 16 * 1024) async throws -> LoopbackServer {
    try await LoopbackServer.start { request in
        guard let body = bodies[request.path] else { return .text("not found", status: 404) }
        return .file(body, contentType: "audio/mpeg", for: request, chunkSize: chunkSize)
    }
}

private func item(_ label: String, _ url: String) -> PlayItem {
    PlayItem(label: label, location: .remote(url))
}

/// A short generated WAV, always available (no fixtures needed).
private let shortWAV = makeWAV(
    chirpSignal(frames: 22050, sampleRate: 22050, channels: 1),
    encoding: .signed16,
    sampleRate: 22050,
    channels: 1
)

@Suite("Player")
struct PlayerTests {
    @Test("a recording plays through to idle: idle → buffering → playing → idle, all samples to the sink")
    func playsToIdle() async throws {
        let server = try await serve(["/short.wav": shortWAV.bytes])
        let sink = NullSink()
        let player = Player(sink: sink, clocks: .unwatched())
        let log = StateLog(player)
        player.play(item("DEMO-1", server.baseURL + "/short.wav"))
        try await player.waitFor("idle after playing") { $0.isIdle }
        #expect(sink.totals.samples == shortWAV.expected.count)
        #expect(sink.totals.outputs == 1)
        #expect(player.runningPipelines == 0)
        try await log.waitFor("the log to catch up") { $0.last == "idle" && $0.count >= 4 }
        #expect(log.kinds == ["idle", "buffering", "playing", "idle"])
        // Each change is published once: no two consecutive states are equal.
        let states = log.all
        #expect(zip(states, states.dropFirst()).allSatisfy { $0 != $1 })
        await server.shutdown()
    }

    @Test(
        "real MP3s play from a local path and over HTTP, the decoder's duration is shown",
        .enabled(if: Fixtures.hasRecordings, Fixtures.noRecordings)
    )
    func playsRealMP3() async throws {
        guard let name = Fixtures.named("XC5168") else { return }
        let bytes = try Fixtures.bytes(name)
        let expected = try await decode(bytes, chunkSizes: [bytes.count]).samples.count
        let server = try await serve(["/5168/download": bytes])
        for location in [AudioLocation.local(path: Fixtures.path(name)), .remote(server.baseURL + "/5168/download")] {
            let sink = NullSink()
            let player = Player(sink: sink, clocks: .unwatched())
            player.play(PlayItem(label: "XC5168", location: location, expectedDuration: 5))
            let playing = try await player.waitFor("playing") { $0.isPlaying }
            let duration = try #require(playing.progress?.duration)
            #expect(abs(duration - 4.6) < 0.2, "duration \(duration)")
            try await player.waitFor("idle") { $0.isIdle }
            #expect(sink.totals.samples == expected)
        }
        await server.shutdown()
    }

    @Test(
        "bad audio fails with a reason, nothing crashes, and the next play works",
        .enabled(if: Fixtures.hasRecordings, Fixtures.noRecordings)
    )
    func badAudio() async throws {
        guard let name = Fixtures.named("XC178978") else { return }
        let mp3 = try Fixtures.bytes(name)
        let server = try await serve([
            "/empty": [],
            "/page.html": Array("<!DOCTYPE html><html><body>Service unavailable</body></html>".utf8),
            "/half.mp3": Array(mp3.prefix(mp3.count / 2)),
            "/tag-only.mp3": Array(mp3.prefix(3000)),
            "/random": randomBytes(50_000, seed: 99),
            "/good.wav": shortWAV.bytes,
        ])
        let cases: [(PlayItem, String)] = [
            (item("XC1", server.baseURL + "/empty"), "unsupported audio format: an empty body"),
            (item("XC2", server.baseURL + "/page.html"), "unsupported audio format: an HTML page"),
            (item("XC3", server.baseURL + "/half.mp3"), "recording cut short"),
            (item("XC4", server.baseURL + "/tag-only.mp3"), "no audio in this recording"),
            (item("XC5", server.baseURL + "/random"), "unsupported audio format: bytes"),
            (item("XC6", server.baseURL + "/missing"), "HTTP 404"),
            (PlayItem(label: "XC7", location: .remote("")), "no audio file for this recording"),
            (item("XC8", "ftp://example.org/a.mp3"), "refusing to fetch ftp: URLs"),
            (PlayItem(label: "XC9", location: .local(path: "/nonexistent/x.mp3")), "No such file or directory"),
        ]
        let sink = NullSink()
        let player = Player(sink: sink, clocks: .unwatched())
        for (badItem, expected) in cases {
            player.play(badItem)
            let state = try await player.waitFor("failure of \(badItem.label)") { $0.failureReason != nil }
            let reason = try #require(state.failureReason)
            #expect(reason.contains(expected), "\(badItem.label): \(reason)")
            #expect(state.item == badItem)
            #expect(!reason.contains("\n"))
            // The next play works.
            player.play(item("GOOD", server.baseURL + "/good.wav"))
            try await player.waitFor("good play after \(badItem.label)") { $0.isIdle }
            #expect(player.runningPipelines == 0)
        }
        await server.shutdown()
    }

    @Test("stop silences the output itself, before the pipeline winds down, and returns with nothing left running")
    func stopIsPrompt() async throws {
        try await makeLongWAV()
        let server = try await serve(["/long.wav": longWAV.bytes])
        let sink = GatedSink()
        let player = Player(sink: sink, clocks: .unwatched())
        player.play(item("LONG", server.baseURL + "/long.wav"))
        try await player.waitFor("playing") { $0.isPlaying }
        let output = try #require(sink.outputs.first)
        await output.waitForLog("start")
        output.play(seconds: 0.5)
        // The pipeline refills what was played, then its write waits for room: it is busy in the output.
        await output.waitUntilWriteWaits()
        let accepted = output.samples.count
        await player.stop()
        // The output was stopped while that write still waited, so by `stop` itself, not by the pipeline
        // noticing the cancellation later: the sound does not wait for the pipeline to end.
        #expect(output.writeWaitingAtStop == true)
        #expect(output.log == ["start", "stop"])
        #expect(output.samples.count == accepted, "no audio accepted after the stop")
        #expect(output.isStopped)
        #expect(player.state.isIdle)
        #expect(player.runningPipelines == 0)
        await server.shutdown()
    }

    @Test("pause silences the output keeping its place; resume restarts it")
    func pauseAndResume() async throws {
        try await makeLongWAV()
        let server = try await serve(["/long.wav": longWAV.bytes])
        let sink = GatedSink()
        // The position is read on the progress clock, which moves only here: one tick reads it.
        let progress = ManualClock()
        let player = Player(sink: sink, clocks: .unwatched(progress: progress))
        player.play(item("LONG", server.baseURL + "/long.wav"))
        try await player.waitFor("playing") { $0.isPlaying }
        let output = try #require(sink.outputs.first)
        // `playing` is published once the runner has started the output.
        #expect(output.log == ["start"])
        // The speaker plays 1 s once the output holds more: its queue is full when a write waits for room.
        await output.waitUntilWriteWaits()
        output.play(seconds: 1.0)
        // Tick the progress clock (only while its reader sleeps on it) until the position shows.
        let ticker = Task {
            while !Task.isCancelled {
                await progress.waitForSleepers()
                if Task.isCancelled { break }
                progress.advance(by: Player.Configuration().progressInterval)
            }
        }
        try await player.waitFor("position 1 s") { ($0.progress?.position ?? 0) >= 1.0 }
        ticker.cancel()
        player.pause()
        let paused = try await player.waitFor("paused") { $0.isPaused }
        #expect(output.log.last == "pause")
        #expect(!output.isRunning)
        output.play(seconds: 5)  // a paused speaker plays nothing
        #expect(output.playedSeconds == 1.0)
        #expect(paused.progress?.position == 1.0)
        player.resume()
        try await player.waitFor("playing again") { $0.isPlaying }
        #expect(output.log.suffix(2) == ["pause", "start"])
        await player.stop()
        await server.shutdown()
    }

    @Test("an underrun shows buffering and playback restarts once 1 s is queued or has arrived again")
    func underrunRebuffers() async throws {
        try await makeLongWAV()
        let server = try await serve(["/long.wav": longWAV.bytes])
        let sink = GatedSink(capacity: 1.5)
        let player = Player(sink: sink, clocks: .unwatched())
        player.play(item("LONG", server.baseURL + "/long.wav"))
        try await player.waitFor("playing") { $0.isPlaying }
        let output = try #require(sink.outputs.first)
        output.underrun()
        try await player.waitFor("buffering after the underrun") { $0.isBuffering }
        #expect(output.log.last == "pause")
        output.openGate()
        let again = try await player.waitFor("playing after refilling") { $0.isPlaying }
        // The whole file has arrived (the loopback server is fast): the threshold counts it, so the sound
        // restarts once the floor (0.2 s) is queued (PlaybackMachineTests checks the threshold itself).
        #expect((again.progress?.buffered ?? 0) >= 0.2)
        #expect(output.log.suffix(2) == ["pause", "start"])
        await player.stop()
        await server.shutdown()
    }

    @Test("the sound starts on the first write once the start floor is decoded, however little each piece gives")
    func startsOnOneWrite() async throws {
        // 44.1 kHz stereo: a 4 KiB piece of input is 23 ms, far below the start floor (0.2 s).
        let wav = makeWAV(
            chirpSignal(frames: 88200, sampleRate: 44100, channels: 2, seed: 3),
            encoding: .signed16, sampleRate: 44100, channels: 2, extraChunks: false)
        let header = wav.bytes.count - wav.expected.count * 2
        let source = GatedSource(totalLength: wav.bytes.count)
        let sink = GatedSink()
        let player = Player(
            sink: sink, sources: source.sources,
            clocks: Player.Clocks(stall: ManualClock(), backoff: RecordingClock(), progress: ManualClock()))
        player.play(PlayItem(label: "XC1", location: .remote("http://fast.example/fast.wav")))
        // The header and a second of audio arrive at once: enough to start on the floor.
        source.release(wav.bytes[..<(header + 176_400)])
        try await player.waitFor("playing") { $0.isPlaying }
        let output = try #require(sink.outputs.first)
        await output.waitForLog("start")
        // The pieces are decoded one after another and handed on together: one write of the floor, one report,
        // and the sound starts (not a write and a report per 23 ms piece).
        #expect(output.writesBeforeFirstStart == 1)
        await player.shutdown()
    }

    @Test("play while playing stops the current track first, then plays the new one")
    func playReplaces() async throws {
        try await makeLongWAV()
        let server = try await serve(["/long.wav": longWAV.bytes, "/short.wav": shortWAV.bytes])
        let sink = GatedSink()
        let player = Player(sink: sink, clocks: .unwatched())
        player.play(item("LONG", server.baseURL + "/long.wav"))
        try await player.waitFor("playing the long one") { $0.isPlaying && $0.item?.label == "LONG" }
        player.play(item("SHORT", server.baseURL + "/short.wav"))
        try await player.waitFor("playing the short one") { $0.isPlaying && $0.item?.label == "SHORT" }
        #expect(sink.outputs.count == 2)
        #expect(sink.outputs[0].isStopped)
        let second = sink.outputs[1]
        second.play(seconds: 5)
        await second.waitForLog("drain")
        second.completeDrain()
        try await player.waitFor("idle") { $0.isIdle }
        #expect(player.runningPipelines == 0)
        await server.shutdown()
    }

    /// Plays the short WAV to its end on a gated sink, holding the end at the drain until `drained` says so.
    private func playShortToItsDrain(
        _ drained: (Player, GatedOutput) async throws -> Void
    ) async throws {
        let server = try await serve(["/short.wav": shortWAV.bytes])
        let sink = GatedSink()
        let player = Player(sink: sink, clocks: .unwatched())
        player.play(item("SHORT", server.baseURL + "/short.wav"))
        try await player.waitFor("playing") { $0.isPlaying }
        let output = try #require(sink.outputs.first)
        await output.waitForLog("drain")
        try await drained(player, output)
        await server.shutdown()
    }

    @Test("the natural end drains the sink before going idle")
    func drainsAtTheEnd() async throws {
        try await playShortToItsDrain { player, output in
            #expect(player.state.isPlaying)  // still audible while the sink drains
            output.completeDrain()
            try await player.waitFor("idle") { $0.isIdle }
            #expect(output.log == ["start", "drain", "stop"])
        }
    }

    @Test("a drain that says its last sample was heard 60 ms before: the track's ending says so too")
    func lateDrainInTheEnding() async throws {
        try await playShortToItsDrain { player, output in
            output.completeDrain(late: 0.06)
            try await player.waitFor("idle") { $0.isIdle }
            guard case .idle(let ending?) = player.state else {
                Issue.record("not idle with an ending: \(player.state)")
                return
            }
            #expect(ending.reason == .finished)
            #expect(ending.late == 0.06)
        }
    }

    @Test(
        "a server that stops mid-body, or never answers the resumed request, fails the track after the stall limit (by the injected clock) with one line; the next play works",
        arguments: Transport.allCases, ["/stall.wav", "/cut.wav"])
    func stallTimeout(transport: Transport, path: String) async throws {
        try await makeLongWAV()
        let body = longWAV.bytes
        let server = try await LoopbackServer.start(tls: transport.tls) { request in
            switch (request.path, request.header("range")) {
            case ("/stall.wav", _):
                return LoopbackResponse(
                    chunks: [.init(Array(body.prefix(8000)))], ending: .stall(declaredLength: body.count))
            case ("/cut.wav", nil):
                return LoopbackResponse(
                    chunks: [.init(Array(body.prefix(8000)))], ending: .cut(declaredLength: body.count))
            case ("/cut.wav", _):
                // The resumed request: its answer never comes.
                return LoopbackResponse(delayBeforeHead: .seconds(3600))
            default:
                return .file(shortWAV.bytes, for: request)
            }
        }
        let clock = ManualClock()
        let player = Player(
            sink: NullSink(), sources: transport.sources,
            clocks: Player.Clocks(stall: clock, backoff: RecordingClock()),
            configuration: .init(stallTimeout: .seconds(5)))
        player.play(item("STALL", server.baseURL + path))
        // The clock moves only once the body's 8000 bytes are out (and, for the cut, the resumed request is
        // in), and then only while the watchdog sleeps on it; the test itself never sleeps.
        await server.waitForBodiesSent(1)
        if path == "/cut.wav" { await server.waitForRequests(2) }
        let reason = try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    await clock.waitForSleepers()
                    if Task.isCancelled { break }
                    clock.advance(by: .seconds(5))
                }
                return nil
            }
            group.addTask {
                try await player.waitFor("stalled") { $0.failureReason != nil }.failureReason
            }
            var reason: String?
            while reason == nil, let next = try await group.next() { reason = next }
            group.cancelAll()
            return reason
        }
        #expect(reason == "network stalled: no audio for 5 s; check the connection and play again")
        #expect(player.runningPipelines == 0)
        if path == "/cut.wav" {
            #expect(server.requests.map { $0.header("range") } == [nil, "bytes=8000-"])
        }
        player.play(item("GOOD", server.baseURL + "/good.wav"))
        try await player.waitFor("good play") { $0.isIdle }
        await server.shutdown()
    }

    @Test("a sound server that is missing fails with the plain hint; the next play tries again and works")
    func missingSoundServerHint() async throws {
        let server = try await serve(["/short.wav": shortWAV.bytes])
        let sink = GatedSink()
        sink.failNextPrepares(with: [AudioSinkError.noSoundServer(detail: "Connection refused")])
        let player = Player(sink: sink, clocks: .unwatched())
        player.play(item("SHORT", server.baseURL + "/short.wav"))
        let failed = try await player.waitFor("failed") { $0.failureReason != nil }
        #expect(
            failed.failureReason == "no sound server: is PulseAudio or PipeWire running? (or use --output wav:PATH)")
        player.play(item("SHORT", server.baseURL + "/short.wav"))
        try await player.waitFor("playing") { $0.isPlaying }
        #expect(sink.prepareCount == 2)
        await player.stop()
        await server.shutdown()
    }

    @Test(
        "wav:PATH writes a valid WAV holding exactly what would have been played",
        .enabled(if: Fixtures.hasRecordings, Fixtures.noRecordings)
    )
    func wavOutput() async throws {
        guard let name = Fixtures.named("XC794002") else { return }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/out.wav"
        // The stall watch is a wall-clock rule, not this scenario's: a loaded machine may starve the pipeline.
        let player = Player(sink: try OutputChoice(parsing: "wav:" + path).makeSink(), clocks: .unwatched())
        player.play(PlayItem(label: "XC794002", location: .local(path: Fixtures.path(name))))
        try await player.waitFor("idle") { $0.isIdle }
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let expected = try await decode(try Fixtures.bytes(name), chunkSizes: [1 << 20])
        // The file is itself a WAV our reader accepts, with the right header sizes and the same samples.
        let readBack = try await decode(written, chunkSizes: [4096])
        #expect(readBack.formats == [PCMFormat(sampleRate: 48000, channels: 2)])
        #expect(readBack.samples == expected.samples)
        #expect(written.count == 44 + expected.samples.count * 2)
        #expect(Array(written[4..<8]) == le(UInt32(36 + expected.samples.count * 2), bytes: 4))
    }
}
