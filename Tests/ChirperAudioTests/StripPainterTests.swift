import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Synchronization
import Testing
import ChirperSystem

/// A recording only ever fetched by the player: the strip's painter must draw it from what the player decoded.
private struct NotFetchedHere: ByteSource {
    func open(from offset: Int64) async throws -> any ByteReader {
        Issue.record("the strip fetched the recording itself, from byte \(offset)")
        throw CancellationError()
    }
}

private let rate = 22_050
private let streamed = PlayItem(label: "XC1", location: .remote("http://127.0.0.1:1/1"), expectedDuration: 10)

/// `seconds` of a 2 kHz tone from `start`, as the player hands it on for request `ticket`.
private func tone(_ ticket: UInt64, from start: Double, seconds: Double) -> HeardAudio {
    let first = Int(start * Double(rate))
    let samples = (first..<(first + Int(seconds * Double(rate)))).map {
        Int16(16_000 * sin(2 * Double.pi * 2000 * Double($0) / Double(rate)))
    }
    return HeardAudio(ticket: PlaybackTicket(ticket), sampleRate: rate, channels: 1, frame: first, samples: samples)
}

/// Runs the painter over `work` (finished at its end); the pictures (or failures) it handed on, in order.
private func paint(_ work: [StripWork]) async -> [(PlaybackTicket, Result<Sonogram, any Error>)] {
    let reader = SonogramReader(sources: ByteSources { _ in NotFetchedHere() }, pieces: 1)
    let channel = Channel<StripWork, Never>()
    for piece in work { channel.post(piece) }
    channel.finish()
    let pictures = Mutex<[(PlaybackTicket, Result<Sonogram, any Error>)]>([])
    await reader.drawStrip(channel) { ticket, result in pictures.withLock { $0.append((ticket, result)) } }
    return pictures.withLock { $0 }
}

/// Columns of `picture` with anything drawn in them.
private func drawnColumns(_ picture: Sonogram) -> [Int] {
    (0..<picture.columns).filter { column in (0..<picture.rows).contains { picture.level(row: $0, column: column) > 0 }
    }
}

/// 100 columns over 10 s, 16 rows over 0-11 kHz.
private let shape = SonogramShape(columns: 100, rows: 16, maxFrequency: 11_025)

@Suite("The live strip drawn from what the player decodes")
struct StripPainterTests {
    @Test(
        "what was heard before the picture is asked for is drawn with what follows, over the whole recording's columns, the rest blank"
    )
    func heldThenGrown() async throws {
        let pictures = await paint([
            .heard(tone(1, from: 0, seconds: 1)),
            .heard(tone(2, from: 0, seconds: 1)),
            .heard(tone(2, from: 1, seconds: 1)),
            .draw(streamed, PlaybackTicket(2), shape, duration: 10),
            .heard(tone(2, from: 2, seconds: 1)),
        ])
        #expect(pictures.map(\.0) == [PlaybackTicket(2), PlaybackTicket(2)], "an older request's audio is not drawn")
        let first = try pictures[0].1.get()
        let last = try pictures[1].1.get()
        #expect(first.columns == 100 && abs(first.duration - 10) < 0.01, "laid out over the whole recording")
        #expect(drawnColumns(first) == Array(0..<20), "the first two seconds at once")
        #expect(drawnColumns(last) == Array(0..<30), "then the third, as it is heard")
        // The tone's row (2 kHz of 11 025 Hz over 16 rows: row 2) is the brightest of every column drawn.
        for column in drawnColumns(last) {
            let brightest = (0..<16).max { last.level(row: $0, column: column) < last.level(row: $1, column: column) }
            #expect(brightest == 2, "column \(column)")
        }
    }

    @Test("a seek forward leaves what was skipped blank, and a seek back draws over what was drawn")
    func seeks() async throws {
        let pictures = await paint([
            .draw(streamed, PlaybackTicket(1), shape, duration: 10),
            .heard(tone(1, from: 0, seconds: 1)),
            .heard(tone(1, from: 6, seconds: 1)),
            .heard(tone(1, from: 0.5, seconds: 1)),
        ])
        let last = try #require(try pictures.last?.1.get())
        #expect(drawnColumns(last) == Array(0..<15) + Array(60..<70))
    }

    @Test("a band the recording does not reach is one line, and nothing more is drawn of that request")
    func bandAboveNyquist() async throws {
        let high = SonogramShape(columns: 100, rows: 16, maxFrequency: 20_000, minFrequency: 12_000)
        let pictures = await paint([
            .draw(streamed, PlaybackTicket(1), high, duration: 10),
            .heard(tone(1, from: 0, seconds: 1)),
            .heard(tone(1, from: 1, seconds: 1)),
        ])
        #expect(pictures.count == 1)
        let error = try #require(
            pictures.first.map { result -> (any Error)? in
                if case .failure(let error) = result.1 { return error } else { return nil }
            } ?? nil)
        #expect(
            userMessage(for: error)
                == "sono: cannot draw XC1: the band starts at 12.0 kHz, but the recording goes up to 11.0 kHz; ask for a lower band"
        )
    }

    @Test("a recording on disk is drawn whole from its file at once; what the player decodes of it is not needed")
    func onDiskDrawnWhole() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/tone.wav"
        let wav = makeWAV(tone(1, from: 0, seconds: 10).samples, encoding: .signed16, sampleRate: rate, channels: 1)
        try Data(wav.bytes).write(to: URL(fileURLWithPath: path))
        let reader = SonogramReader(sources: ByteSources { _ in FileByteSource(path: path) }, pieces: 1)
        let onDisk = PlayItem(label: "DEMO-1", location: .local(path: path), expectedDuration: 10)
        let channel = Channel<StripWork, Never>()
        for piece in [
            StripWork.heard(tone(1, from: 0, seconds: 1)), .draw(onDisk, PlaybackTicket(1), shape, duration: 10),
            .heard(tone(1, from: 1, seconds: 1)), .heard(tone(1, from: 2, seconds: 1)),
        ] {
            channel.post(piece)
        }
        channel.finish()
        let pictures = Mutex<[Sonogram?]>([])
        await reader.drawStrip(channel) { _, result in pictures.withLock { $0.append(try? result.get()) } }
        let drawn = pictures.withLock { $0 }.compactMap { $0 }
        #expect(drawn.count == 1 && pictures.withLock { $0.count } == 1)
        #expect(drawn.first.map(drawnColumns) == Array(0..<100), "the whole recording at once")
        #expect(drawn.first == (try await reader.sonogram(of: onDisk, shape: shape)))
    }

    @Test(
        "a newer request is drawn at once while an older one is still being drawn from its file, which stops",
        .timeLimit(.minutes(1)))
    func newerNotHeldUpByWhole() async throws {
        let release = Channel<Void, Never>()
        let onDisk = PlayItem(label: "DEMO-1", location: .local(path: "/demo/slow.wav"), expectedDuration: 10)
        let reader = SonogramReader(
            sources: ByteSources { location -> any ByteSource in
                location == onDisk.location ? SlowFile(release: release) : NotFetchedHere()
            }, pieces: 1)
        let (work, pictures) = (Channel<StripWork, Never>(), Channel<PlaybackTicket, Never>())
        let painter = Task {
            await reader.drawStrip(work) { ticket, _ in pictures.post(ticket) }
            pictures.finish()
        }
        // Only the file of the first is on disk (it never ends until released): the second is grown.
        work.post(.draw(onDisk, PlaybackTicket(1), shape, duration: 10))
        work.post(.draw(streamed, PlaybackTicket(2), shape, duration: 10))
        work.post(.heard(tone(2, from: 0, seconds: 1)))
        // Should the painter wait for the first, the time limit cancels the wait, which then fails; the file is
        // released either way, so that the painter ends.
        #expect(await pictures.next() == PlaybackTicket(2), "the newer request waited for the older picture")
        release.finish()
        work.finish()
        await painter.value
        #expect(pictures.pollAll() == [], "the older picture was stopped")
    }

    @Test("the player hands on every frame it decodes, in order, at its place in the recording")
    func playerHandsOnWhatItDecodes() async throws {
        let signal = chirpSignal(frames: 22_050, sampleRate: rate, channels: 2)
        let wav = makeWAV(signal, encoding: .signed16, sampleRate: rate, channels: 2)
        let server = try await LoopbackServer.start { .file(wav.bytes, contentType: "audio/wav", for: $0) }
        let player = Player(sink: NullSink(), clocks: .unwatched())
        let heard = player.heardAudio()
        let ticket = player.play(PlayItem(label: "DEMO-1", location: .remote(server.baseURL + "/a.wav")))
        try await player.waitFor("idle after playing") { $0.isIdle }
        let pieces = heard.pollAll()
        #expect(pieces.allSatisfy { $0.ticket == ticket && $0.sampleRate == rate && $0.channels == 2 })
        var next = 0
        for piece in pieces {
            #expect(piece.frame == next)
            next += piece.samples.count / 2
        }
        #expect(pieces.flatMap(\.samples) == wav.expected)
        heard.cancel()
        await player.shutdown()
        await server.shutdown()
    }
}

/// A recording on disk whose reading never ends until `release` does (or the reader is cancelled).
private struct SlowFile: ByteSource {
    let release: Channel<Void, Never>
    var wholeLocalFile: String? { "/demo/slow.wav" }

    func open(from offset: Int64) async throws -> any ByteReader {
        _ = await release.next()
        try Task.checkCancellation()
        throw CancellationError()
    }
}
