import AsyncHTTPClient
import ChirperAudio
import ChirperTestSupport
import Foundation
import NIOCore
import Testing

/// Reads everything a reader gives.
private func readAll(_ reader: any ByteReader) async throws -> [UInt8] {
    var bytes: [UInt8] = []
    while let chunk = try await reader.read() { bytes += chunk }
    return bytes
}

@Suite("Byte sources")
struct ByteSourceTests {
    private let body = randomBytes(100_000, seed: 5)

    @Test("an HTTP body is streamed in chunks and arrives complete")
    func streamsBody() async throws {
        let body = self.body
        try await LoopbackServer.with(handler: { request in
            LoopbackResponse.file(body, for: request, chunkSize: 7000)
        }) { server in
            let source = try HTTPByteSource(url: server.baseURL + "/a.mp3")
            let reader = try await source.open(from: 0)
            #expect(reader.totalLength == Int64(body.count))
            #expect(try await readAll(reader) == body)
            #expect(server.requests.first?.header("range") == nil)
            #expect(server.requests.first?.header("accept-encoding") == "identity")
        }
    }

    @Test(
        "a recording stopped with a short rest to come reads it in the background: the next request reuses the connection",
        arguments: [(size: 100_000, connections: 1), (size: 1_000_000, connections: 2)])
    func stoppedReaderKeepsConnection(size: Int, connections: Int) async throws {
        let body = randomBytes(size, seed: 6)
        try await LoopbackServer.with(handler: { request in
            var response = LoopbackResponse.file(body, for: request, chunkSize: 8 * 1024)
            response.keepAlive = true
            return response
        }) { server in
            // One connection at most: the second request waits for the first's connection, unless it closed.
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1
            // The second request waits in the pool until the background read of the first body ends. That read is
            // a task on the cooperative pool, which the whole parallel test run shares with tests that decode
            // synchronously for seconds: in CI it once waited out the default 10 s. A wait that never ends
            // still fails, after a minute.
            configuration.timeout.connect = .seconds(60)
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            do {
                let source = try HTTPByteSource(url: server.baseURL + "/a.mp3", client: client)
                var stopped: (any ByteReader)? = try await source.open(from: 0)
                _ = try await stopped?.read()
                // A stop: 92 KB left is read to the end, 992 KB is not worth it (the request is cancelled).
                stopped = nil
                let next = try await source.open(from: 0)
                #expect(try await readAll(next) == body)
                #expect(server.requests.count == 2)
                #expect(server.connectionsAccepted == connections)
            } catch {
                // The client is shut down whatever failed: one left running ends the whole test process.
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    @Test("redirects are followed (xeno-canto's file URLs redirect)")
    func followsRedirects() async throws {
        let body = self.body
        try await LoopbackServer.with(handler: { request in
            switch request.path {
            case "/254462/download": .redirect(to: "/sounds/XC254462.mp3", status: 302)
            case "/sounds/XC254462.mp3": .file(body, for: request)
            default: .text("not found", status: 404)
            }
        }) { server in
            let reader = try await HTTPByteSource(url: server.baseURL + "/254462/download").open(from: 0)
            #expect(try await readAll(reader) == body)
            #expect(server.requests.map(\.path) == ["/254462/download", "/sounds/XC254462.mp3"])
        }
    }

    @Test("a read from an offset sends Range: bytes=N- and gets the rest of the file (206)")
    func rangeRequest() async throws {
        let body = self.body
        try await LoopbackServer.with(handler: { request in
            .file(body, for: request)
        }) { server in
            let reader = try await HTTPByteSource(url: server.baseURL + "/a.mp3").open(from: 12_345)
            #expect(try await readAll(reader) == Array(body[12_345...]))
            #expect(reader.totalLength == Int64(body.count))
            #expect(server.requests.first?.header("range") == "bytes=12345-")
        }
    }

    @Test("a server that ignores Range and sends the whole body (200) is handled by skipping")
    func rangeIgnored() async throws {
        let body = self.body
        try await LoopbackServer.with(handler: { _ in
            LoopbackResponse(status: 200, headers: [], chunks: LoopbackResponse.chunked(body, size: 3000))
        }) { server in
            let reader = try await HTTPByteSource(url: server.baseURL + "/a.mp3").open(from: 50_001)
            #expect(try await readAll(reader) == Array(body[50_001...]))
        }
    }

    @Test("a read from the very end (416) is empty rather than an error")
    func rangeAtEnd() async throws {
        let body = self.body
        try await LoopbackServer.with(handler: { request in .file(body, for: request) }) { server in
            let reader = try await HTTPByteSource(url: server.baseURL + "/a.mp3").open(from: Int64(body.count))
            #expect(try await readAll(reader).isEmpty)
        }
    }

    @Test("an error status becomes a user-facing error naming it")
    func errorStatus() async throws {
        _ = try await LoopbackServer.with(handler: { _ in .text("gone", status: 404) }) { server in
            await #expect(throws: ByteSourceError.httpStatus(404, "Not Found")) {
                _ = try await HTTPByteSource(url: server.baseURL + "/x").open(from: 0)
            }
        }
        #expect(ByteSourceError.httpStatus(503, "Service Unavailable").userMessage.contains("HTTP 503"))
    }

    @Test("a connection cut before the promised length fails the read")
    func connectionCut() async throws {
        let body = self.body
        try await LoopbackServer.with(handler: { _ in
            LoopbackResponse(chunks: [.init(Array(body.prefix(20_000)))], ending: .cut(declaredLength: body.count))
        }) { server in
            let reader = try await HTTPByteSource(url: server.baseURL + "/a.mp3").open(from: 0)
            await #expect(throws: ByteSourceError.self) { _ = try await readAll(reader) }
        }
    }

    @Test("only http and https URLs are fetched; others are refused with a clear error")
    func refusesOtherSchemes() {
        #expect(throws: ByteSourceError.unsupportedScheme("ftp")) { try HTTPByteSource(url: "ftp://example.org/a.mp3") }
        #expect(throws: ByteSourceError.unsupportedScheme("file")) { try HTTPByteSource(url: "file:///etc/passwd") }
        #expect(throws: ByteSourceError.unsupportedScheme("javascript")) {
            try HTTPByteSource(url: "javascript:alert(1)")
        }
        #expect(throws: ByteSourceError.noURL) { try HTTPByteSource(url: "") }
        #expect(throws: ByteSourceError.badURL("https://")) { try HTTPByteSource(url: "https://") }
        #expect(
            ByteSourceError.unsupportedScheme("ftp").userMessage
                == "refusing to fetch ftp: URLs; only http and https recordings are played")
        #expect((try? HTTPByteSource(url: "HTTPS://xeno-canto.org/1/download")) != nil)
    }

    @Test("a local file is read in chunks, from any offset; a missing one is a clear error")
    func localFile() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/a.bin"
        try Data(body).write(to: URL(fileURLWithPath: path))
        let reader = try await FileByteSource(path: path, chunkSize: 4096).open(from: 0)
        #expect(reader.totalLength == Int64(body.count))
        #expect(try await readAll(reader) == body)
        let tail = try await FileByteSource(path: path).open(from: 99_000)
        #expect(try await readAll(tail) == Array(body[99_000...]))
        await #expect(throws: ByteSourceError.file(path: directory + "/none.mp3", reason: "No such file or directory"))
        {
            _ = try await FileByteSource(path: directory + "/none.mp3").open(from: 0)
        }
    }
}

@Suite("Output choice")
struct OutputChoiceTests {
    @Test("pulse, null and wav:PATH parse; anything else is a clear error")
    func parsing() throws {
        #expect(try OutputChoice(parsing: "pulse") == .pulse)
        #expect(try OutputChoice(parsing: "null") == .null)
        #expect(try OutputChoice(parsing: "wav:/tmp/out.wav") == .wav(path: "/tmp/out.wav"))
        #expect(try OutputChoice(parsing: "WAV:Out.wav") == .wav(path: "Out.wav"))
        #expect(OutputChoice.wav(path: "x.wav").description == "wav:x.wav")
        #expect(throws: OutputChoiceError(text: "alsa", problem: .unknown)) { try OutputChoice(parsing: "alsa") }
        #expect(throws: OutputChoiceError(text: "wav:", problem: .missingPath)) { try OutputChoice(parsing: "wav:") }
        #expect(
            OutputChoiceError(text: "alsa", problem: .unknown).description
                == "unknown output \"alsa\": use pulse, null or wav:PATH")
        #expect(OutputChoice.null.makeSink() is NullSink)
        #expect(OutputChoice.wav(path: "a.wav").makeSink() is WAVFileSink)
        #expect(OutputChoice.pulse.makeSink() is PulseAudioSink)
    }
}
