import ChirperCore
import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import ChirperAudio

@Suite("Field kit: the play cache")
struct RecordingCacheTests {
    /// An MP3-looking body (ID3 header, then counting bytes).
    static let body: [UInt8] = Array("ID3".utf8) + (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("chirper-cache-\(UUID())")
    }

    func drain(_ sources: ByteSources, _ url: String, from offset: Int64 = 0) async throws -> [UInt8] {
        let reader = try await sources.source(for: .remote(url)).open(from: offset)
        var bytes: [UInt8] = []
        while let chunk = try await reader.read() { bytes += chunk }
        return bytes
    }

    /// A cache in a fresh folder (removed afterwards) that says nothing, and a server of `body` in 4 KiB chunks
    /// at `/<id>/download`: `scenario` gets the cache, the server and the recording's URL.
    func withCacheAndServer(
        id: String, _ scenario: (RecordingCache, LoopbackServer, String) async throws -> Void
    ) async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = RecordingCache(directory: directory, limit: 1 << 20, now: { 1 }) { line in
            Issue.record("unexpected cache notice: \(line)")
        }
        // Its index is written in the background: written before the folder is removed.
        defer { cache.flush() }
        try await LoopbackServer.with(handler: { request in
            LoopbackResponse.file(Self.body, for: request, chunkSize: 4096)
        }) { server in
            try await scenario(cache, server, server.baseURL + "/\(id)/download")
        }
    }

    @Test("a cached replay makes no request and gives the same bytes, from any offset")
    func cachedReplay() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let notices = NIOLockedValueBox<[String]>([])
        let cache = RecordingCache(directory: directory, limit: 1 << 20, now: { 1000 }) { line in
            notices.withLockedValue { $0.append(line) }
        }
        // Its index is written in the background: written before the folder is removed.
        defer { cache.flush() }
        try await LoopbackServer.with(handler: { request in
            LoopbackResponse.file(Self.body, for: request, chunkSize: 5000)
        }) { server in
            let url = server.baseURL + "/254462/download"
            let sources = ByteSources.cached(.live(), cache: cache)
            let first = try await drain(sources, url)
            #expect(first == Self.body)
            #expect(server.requests.count == 1)
            let replay = try await drain(sources, url)
            let seek = try await drain(sources, url, from: 100)
            #expect(replay == Self.body)
            #expect(seek == Array(Self.body[100...]))
            #expect(server.requests.count == 1, "the replay and the seek were served from the cache")
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("XC254462.mp3").path))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("XC254462.part").path))
        let index = try JSONDecoder().decode(
            CacheIndex.self, from: Data(contentsOf: directory.appendingPathComponent("index.json")))
        #expect(index.entries["254462"]?.size == Int64(Self.body.count))
        #expect(notices.withLockedValue { $0 }.isEmpty)
    }

    @Test("the metadata is written beside complete audio only: a play stopped early leaves none, a replay restores it")
    func sidecarWithAudio() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = RecordingCache(directory: directory, limit: 1 << 20, now: { 1 }) { line in
            Issue.record("unexpected cache notice: \(line)")
        }
        // Its index is written in the background: written before the folder is removed.
        defer { cache.flush() }
        let sidecar = directory.appendingPathComponent("XC254462.json")
        try await LoopbackServer.with(handler: { request in
            LoopbackResponse.file(Self.body, for: request, chunkSize: 5000)
        }) { server in
            let url = server.baseURL + "/254462/download"
            let sources = ByteSources.cached(.live(), cache: cache)
            cache.remember(Recording(id: "254462", englishName: "Lazuli Bunting"), fetched: Date())
            // Stopped after the first chunk: the reader is dropped, the part stays, no metadata is written.
            do {
                let stopped = try await sources.source(for: .remote(url)).open(from: 0)
                _ = try await stopped.read()
            }
            cache.flush()
            #expect(!FileManager.default.fileExists(atPath: sidecar.path))
            // Played to the end: the audio is committed, the metadata beside it.
            _ = try await drain(sources, url)
            cache.flush()
            let written = try #require(Sidecar.decode(try Data(contentsOf: sidecar)))
            #expect(written.recording.englishName == "Lazuli Bunting")
            // Deleted behind the cache's back: playing the cached audio again writes it back.
            try FileManager.default.removeItem(at: sidecar)
            cache.remember(Recording(id: "254462", englishName: "Lazuli Bunting"), fetched: Date())
            cache.flush()
            #expect(FileManager.default.fileExists(atPath: sidecar.path))
        }
    }

    @Test(
        "a disk that does not answer never holds the audio back, nor its end; a replay waits for the commit and reads it"
    )
    func heldDisk() async throws {
        try await withCacheAndServer(id: "31") { cache, server, url in
            let sources = ByteSources.cached(.live(), cache: cache)
            // Nothing written to the folder can happen while the writer is held.
            cache.writer.suspend()
            let reader = try await sources.source(for: .remote(url)).open(from: 0)
            var bytes: [UInt8] = []
            while let chunk = try await reader.read() { bytes += chunk }
            #expect(bytes == Self.body, "every byte, and the end, reached the player while the disk was held")
            #expect(!FileManager.default.fileExists(atPath: cache.directory.path), "nothing was written yet")
            let replay = Task { try await drain(sources, url) }
            cache.writer.resume()
            #expect(try await replay.value == Self.body)
            #expect(cache.cachedFile(id: "31") != nil)
            #expect(server.requests.count == 1, "the replay came from the cache")
            cache.flush()  // the index write that follows the commit (and the replay's touch)
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: cache.directory.path))
            #expect(names == ["XC31.mp3", "index.json"], "\(names)")
        }
    }

    @Test("a reader beside the player (the sonogram) follows the player's download: one request, the same bytes")
    func followerWaitsForTheDownload() async throws {
        try await withCacheAndServer(id: "32") { cache, server, url in
            let player = try await ByteSources.cached(.live(), cache: cache).source(for: .remote(url)).open(from: 0)
            let first = try #require(try await player.read())
            // The player's download is under way: the sonogram's reader waits for it rather than make its own.
            let follower = Task { try await drain(ByteSources.cached(.live(), cache: cache, follows: true), url) }
            var bytes = first
            while let chunk = try await player.read() { bytes += chunk }
            #expect(bytes == Self.body)
            #expect(try await follower.value == Self.body)
            #expect(server.requests.count == 1, "one download for the player and the sonogram")
        }
    }

    @Test("a follower whose player stops early downloads the rest itself")
    func followerAfterAStop() async throws {
        try await withCacheAndServer(id: "33") { cache, server, url in
            var player: (any ByteReader)? = try await ByteSources.cached(.live(), cache: cache)
                .source(for: .remote(url)).open(from: 0)
            _ = try await player?.read()
            let follower = Task { try await drain(ByteSources.cached(.live(), cache: cache, follows: true), url) }
            player = nil  // stopped: the part stays for a resume, the claim goes
            #expect(try await follower.value == Self.body)
            #expect(server.requests.count == 2)
        }
    }

    @Test(
        "a seek back into what arrived reads the part from disk: the server is asked only for the rest, from where the part ends"
    )
    func seekBackReadsThePart() async throws {
        try await withCacheAndServer(id: "34") { cache, server, url in
            let source = try ByteSources.cached(.live(), cache: cache).source(for: .remote(url))
            #expect(source.keepsArrivedBytes)
            // The player reads 5 chunks, then seeks back: its reader is dropped.
            var played: [UInt8] = []
            do {
                let player = try await source.open(from: 0)
                for _ in 0..<5 { played += try #require(try await player.read()) }
            }
            // What the player read is on disk (a seek reads what is there, and never waits for the disk).
            await cache.settle()
            let back = try await source.open(from: 100)
            #expect(back.totalLength == Int64(Self.body.count), "the whole length, known before the server is asked")
            var bytes = try #require(try await back.read())
            #expect(server.requests.count == 1, "the first bytes after the seek came from disk")
            while let chunk = try await back.read() { bytes += chunk }
            #expect(bytes == Array(Self.body[100...]))
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests.last?.header("Range") == "bytes=\(played.count)-", "the rest, from where the part ended")
            // The rest was teed on into the part: the recording is cached whole.
            await cache.settle()
            #expect(cache.cachedFile(id: "34") != nil)
            #expect(try await drain(ByteSources.cached(.live(), cache: cache), url) == Self.body)
            #expect(server.requests.count == 2)
        }
    }

    @Test("a seek back dropped before the rest was asked for leaves the part as it was, for the next read to resume")
    func seekBackDroppedOnDisk() async throws {
        try await withCacheAndServer(id: "35") { cache, server, url in
            let source = try ByteSources.cached(.live(), cache: cache).source(for: .remote(url))
            do {
                let player = try await source.open(from: 0)
                for _ in 0..<3 { _ = try await player.read() }
            }
            await cache.settle()
            do {
                // Another seek comes before the part's bytes are used up.
                let back = try await source.open(from: 0)
                let first = try #require(try await back.read())
                #expect(first == Array(Self.body[..<first.count]))
                #expect(server.requests.count == 1, "read from disk")
            }
            #expect(
                try await drain(ByteSources.cached(.live(), cache: cache), url, from: 10) == Array(Self.body[10...]))
            #expect(server.requests.count == 2, "the first read and the rest after the part")
            await cache.settle()
            #expect(cache.cachedFile(id: "35") != nil)
        }
    }

    @Test(
        "a seek back while the disk does not answer never waits for it: the server is asked again",
        .timeLimit(.minutes(1)))
    func seekBackWithAHeldDisk() async throws {
        try await withCacheAndServer(id: "36") { cache, server, url in
            let source = try ByteSources.cached(.live(), cache: cache).source(for: .remote(url))
            cache.writer.suspend()
            // Resumed on every way out: the cache's flush at the end waits for the writer.
            defer { cache.writer.resume() }
            do {
                let player = try await source.open(from: 0)
                for _ in 0..<3 { _ = try await player.read() }
            }
            let back = try await source.open(from: 100)
            var bytes: [UInt8] = []
            while let chunk = try await back.read() { bytes += chunk }
            #expect(bytes == Array(Self.body[100...]))
            #expect(server.requests.count == 2)
            #expect(server.requests.last?.header("Range") == "bytes=100-", "nothing was on disk yet")
        }
    }

    @Test("a drop mid-play is resumed into the same part, and the recording is cached whole")
    func dropThenResume() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = RecordingCache(directory: directory, limit: 1 << 20, now: { 1 }) { _ in }
        // Its index is written in the background: written before the folder is removed.
        defer { cache.flush() }
        let cut = NIOLockedValueBox(true)
        try await LoopbackServer.with(handler: { request in
            let full = LoopbackResponse.file(Self.body, for: request, chunkSize: 4096)
            guard cut.withLockedValue({ $0 }) else { return full }
            cut.withLockedValue { $0 = false }
            return LoopbackResponse(
                status: 200, headers: [("Content-Type", "audio/mpeg")],
                chunks: LoopbackResponse.chunked(Array(Self.body[..<20_000]), size: 4096),
                ending: .cut(declaredLength: Self.body.count))
        }) { server in
            let url = server.baseURL + "/7/download"
            let sources = ByteSources.cached(.live(), cache: cache)
            let source = try sources.source(for: .remote(url))
            var bytes: [UInt8] = []
            let first = try await source.open(from: 0)
            do {
                while let chunk = try await first.read() { bytes += chunk }
            } catch {}
            #expect(bytes.count < Self.body.count)
            let second = try await source.open(from: Int64(bytes.count))
            while let chunk = try await second.read() { bytes += chunk }
            #expect(bytes == Self.body)
            #expect(server.requests.count == 2)
            #expect(try await drain(sources, url) == Self.body)
            #expect(server.requests.count == 2)
        }
    }

    @Test("the cache never exceeds its bound: the least recently played go, sidecars with them")
    func bounded() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = NIOLockedValueBox(0.0)
        let limit = Int64(Self.body.count * 2 + 100)
        let cache = RecordingCache(directory: directory, limit: limit, now: { clock.withLockedValue { $0 } }) { _ in }
        // Its index is written in the background: written before the folder is removed.
        defer { cache.flush() }
        try await LoopbackServer.with(handler: { request in LoopbackResponse.file(Self.body, for: request) }) {
            server in
            let sources = ByteSources.cached(.live(), cache: cache)
            for id in 1...6 {
                clock.withLockedValue { $0 = Double(id) }
                cache.remember(Recording(id: "\(id)"), fetched: Date(timeIntervalSince1970: 0))
                _ = try await drain(sources, server.baseURL + "/\(id)/download")
                cache.flush()  // the commit follows the end of the body on the writer
                #expect(cache.totalSize <= limit)
                let onDisk = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                    .filter { $0.hasSuffix(".mp3") }
                    .map { try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent($0).path) }
                    .reduce(Int64(0)) { $0 + (($1[.size] as? NSNumber)?.int64Value ?? 0) }
                #expect(onDisk <= limit, "the files on disk fit the bound after recording \(id)")
            }
        }
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(names.isSuperset(of: ["XC5.mp3", "XC6.mp3", "XC6.json"]))
        #expect(!names.contains("XC1.mp3") && !names.contains("XC1.json"))
    }

    @Test("a corrupted index is rebuilt from the files with one line; a deleted folder is recreated")
    func corruptedIndex() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(Self.body).write(to: directory.appendingPathComponent("XC7.mp3"))
        try Data("{garbage".utf8).write(to: directory.appendingPathComponent("index.json"))
        let notices = NIOLockedValueBox<[String]>([])
        let cache = RecordingCache(directory: directory, limit: 1 << 20, now: { 1 }) { line in
            notices.withLockedValue { $0.append(line) }
        }
        // Its index is written in the background: written before the folder is removed.
        defer { cache.flush() }
        #expect(notices.withLockedValue { $0 }.count == 1)
        #expect(cache.cachedFile(id: "7") != nil)
        try FileManager.default.removeItem(at: directory)
        #expect(cache.cachedFile(id: "7") == nil)
        try await LoopbackServer.with(handler: { request in LoopbackResponse.file(Self.body, for: request) }) {
            server in
            let sources = ByteSources.cached(.live(), cache: cache)
            let bytes = try await drain(sources, server.baseURL + "/7/download")
            #expect(bytes == Self.body)
            cache.flush()
            #expect(cache.cachedFile(id: "7") != nil)
            // A cached file cut short behind the cache's back is fetched again, not played short.
            let handle = try FileHandle(forWritingTo: directory.appendingPathComponent("XC7.mp3"))
            try handle.truncate(atOffset: 100)
            try handle.close()
            let again = try await drain(sources, server.baseURL + "/7/download")
            #expect(again == Self.body)
            #expect(server.requests.count == 2)
        }
        cache.flush()  // the commit follows the end of the body on the writer
        #expect(cache.cachedFile(id: "7") != nil)
        #expect(notices.withLockedValue { $0 }.count == 1, "nothing more to say")
    }

    @Test("a cache folder that cannot be written says so once, and reading goes on uncached")
    func unwritable() async throws {
        let file = folder()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data().write(to: file)
        let notices = NIOLockedValueBox<[String]>([])
        let cache = RecordingCache(directory: file.appendingPathComponent("cache"), limit: 1 << 20, now: { 1 }) {
            line in notices.withLockedValue { $0.append(line) }
        }
        // Its index is written in the background: written before the folder is removed.
        defer { cache.flush() }
        cache.remember(Recording(id: "7"), fetched: Date())
        cache.remember(Recording(id: "8"), fetched: Date())
        try await LoopbackServer.with(handler: { request in LoopbackResponse.file(Self.body, for: request) }) {
            server in
            let bytes = try await drain(ByteSources.cached(.live(), cache: cache), server.baseURL + "/7/download")
            #expect(bytes == Self.body)
        }
        cache.flush()
        let said = notices.withLockedValue { $0 }
        #expect(said.first?.hasPrefix("cannot write in the cache folder \(file.path)/cache (") == true)
        #expect(said.first?.hasSuffix("playing goes on uncached") == true)
        #expect(said.count == 1, "\(said)")
    }

    @Test("the Player on cached sources: playing a recording again makes no request and gives the same samples")
    func playerReplay() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wav = makeWAV(
            chirpSignal(frames: 11025, sampleRate: 11025, channels: 1), encoding: .signed16, sampleRate: 11025,
            channels: 1)
        let cache = RecordingCache(directory: directory, limit: 1 << 20, now: { 1 }) { line in
            Issue.record("unexpected cache notice: \(line)")
        }
        // Its index is written in the background: written before the folder is removed.
        defer { cache.flush() }
        try await LoopbackServer.with(handler: { request in
            LoopbackResponse.file(wav.bytes, contentType: "audio/wav", for: request, chunkSize: 4096)
        }) { server in
            let sink = NullSink()
            let player = Player(sink: sink, sources: ByteSources.cached(.live(), cache: cache), clocks: .unwatched())
            let item = PlayItem(label: "XC7", location: .remote(server.baseURL + "/7/download"))
            for round in 1...2 {
                player.play(item)
                try await player.waitFor("round \(round) ends") { state in
                    if case .idle(let ending?) = state { return ending.ticket.value == UInt64(round) }
                    return false
                }
                #expect(sink.totals.samples == round * wav.expected.count)
            }
            #expect(server.requests.count == 1, "the second play read the cached file")
            await player.shutdown()
        }
        // The index is written off the player's path: let it finish before the folder goes.
        cache.flush()
    }
}
