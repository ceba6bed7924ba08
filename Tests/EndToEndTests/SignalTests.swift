import ChirperTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An API of one recording, served as a WAV file over loopback HTTP.
private func oneRecording(_ request: LoopbackRequest, base: String) -> LoopbackResponse {
    if request.path == "/api/3/recordings" {
        let record = """
            {"id": "4242", "gen": "Prunella", "sp": "modularis", "en": "Dunnock", "rec": "R", "cnt": "France",
             "q": "A", "length": "0:01", "file": "\(base)/4242/download", "lic": "//creativecommons.org/licenses/by/4.0/"}
            """
        return .json(
            #"{"numRecordings": "1", "numSpecies": "1", "page": 1, "numPages": 1, "recordings": [\#(record)]}"#)
    }
    // 1 s of 8 kHz mono silence.
    var wav = Array("RIFF".utf8) + le(36 + 16000) + Array("WAVEfmt ".utf8) + le(16) + [1, 0, 1, 0]
    wav += le(8000) + le(16000) + [2, 0, 16, 0] + Array("data".utf8) + le(16000) + [UInt8](repeating: 0, count: 16000)
    return .file(wav, contentType: "audio/wav", for: request)
}

/// chirper-play by name on `api`'s archive, to null output, its cache and data in `scratch`.
private func chirperPlay(api: LoopbackServer, scratch: URL) throws -> LiveChirper {
    try LiveChirper(
        ["--api-url", api.baseURL + "/api/3/recordings", "--output", "null"],
        environment: [
            "XENO_CANTO_API_KEY": "k", "XDG_CACHE_HOME": scratch.path + "/cache",
            "XDG_DATA_HOME": scratch.path + "/data",
        ])
}

private func le(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

@Suite(
    "chirper-play and the signals that end it",
    .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"))
struct SignalTests {
    @Test(
        "SIGTERM and SIGHUP end the session as quit does: the play cache's pending writes are done first",
        arguments: [SIGTERM, SIGHUP])
    func leaveWritesTheCache(signal: Int32) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-signal-\(UUID())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let cache = scratch.appendingPathComponent("cache/chirper-play")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        // The index is written to this temporary name first: a pipe that nobody reads holds that write (and so
        // the cache's writer) until the test reads it, as a slow disk would.
        let pendingIndex = cache.appendingPathComponent(".index.json.tmp")
        #expect(mkfifo(pendingIndex.path, 0o600) == 0)
        let server = try await LoopbackServer.start { request in oneRecording(request, base: "") }
        defer { Task { await server.shutdown() } }
        let base = server.baseURL
        let api = try await LoopbackServer.start { request in oneRecording(request, base: base) }
        defer { Task { await api.shutdown() } }
        let chirper = try chirperPlay(api: api, scratch: scratch)
        try chirper.type("search dunnock")
        try chirper.type("play 1")
        try chirper.type("wait")
        try await chirper.waitForLine("playback: idle", deadline: .seconds(20))
        // The recording was downloaded whole and committed; its index write waits on the pipe.
        let reader = PipeReader(path: pendingIndex.path)
        chirper.signal(signal)
        let status = await chirper.waitForExit()
        // A program that left without writing never opened the pipe: the reader is let go.
        let index = await reader.finish()
        #expect(status == 128 + signal)
        #expect(index.contains("4242"), "the index written before leaving names the cached recording: '\(index)'")
    }

    @Test("Ctrl-C while a search waits on a server that does not answer stops the search; the session goes on")
    func interruptStopsASearch() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-signal-\(UUID())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let api = try await LoopbackServer.start { request in
            guard request.query["query"]?.contains("silent") == true else { return oneRecording(request, base: "") }
            // Its head would come after the client's own timeout: only Ctrl-C ends the wait sooner.
            var never = LoopbackResponse.json("{}")
            never.delayBeforeHead = .seconds(600)
            return never
        }
        defer { Task { await api.shutdown() } }
        let chirper = try chirperPlay(api: api, scratch: scratch)
        try chirper.type("search dunnock")
        try chirper.type("search silent")
        try await chirper.waitForLine(#"list: loading query="en:silent""#, deadline: .seconds(20))
        chirper.signal(SIGINT)
        try await chirper.waitForLine(#"list: error query="en:silent" message="stopped"#, deadline: .seconds(20))
        try chirper.type("list")
        try chirper.type("quit")
        let status = await chirper.waitForExit()
        #expect(status == 0)
        let rows = chirper.output.split(separator: "\n").filter { $0.hasPrefix("row: ") }
        #expect(rows.count == 2 && rows.allSatisfy { $0.contains("Dunnock") }, "the list before is kept: \(rows)")
    }
}

/// Reads a named pipe to its end on a thread of its own (opening it waits for a writer).
private final class PipeReader: Sendable {
    private let path: String
    private let result: Task<String, Never>
    private let done = Flag()

    init(path: String) {
        self.path = path
        let done = self.done
        result = Task {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let descriptor = open(path, O_RDONLY)  // until a writer opens it
                    var bytes: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while case let count = read(descriptor, &buffer, buffer.count), count > 0 {
                        bytes += buffer[..<count]
                    }
                    close(descriptor)
                    done.value.store(true, ordering: .sequentiallyConsistent)
                    continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
                }
            }
        }
    }

    /// What was read; if no writer ever came, this opens the pipe for writing (once the reader waits on it) so
    /// the reader ends with nothing.
    func finish() async -> String {
        while !done.value.load(ordering: .sequentiallyConsistent) {
            let descriptor = open(path, O_WRONLY | O_NONBLOCK)  // fails until the reader has it open
            if descriptor >= 0 {
                close(descriptor)
                break
            }
            await Task.yield()
        }
        return await result.value
    }
}

private final class Flag: Sendable {
    let value = Atomic(false)
}
