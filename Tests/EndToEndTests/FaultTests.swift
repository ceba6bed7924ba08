import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

private let key = "fault-test-KEY-4711"

/// A page of `count` playable recordings, numbered from `first`, whose audio is the demo's first MP3.
private func page(_ number: Int, of pages: Int, first: Int, count: Int, base: String) -> String {
    let records = (0..<count).map { index in
        #"{"id": "\#(first + index)", "en": "Wren \#(first + index)", "gen": "Troglodytes", "sp": "troglodytes", "file": "\#(base)/audio/\#(first + index)", "length": "0:04", "lic": "https://creativecommons.org/licenses/by/4.0/"}"#
    }
    return
        #"{"numRecordings": "\#(pages * count)", "numSpecies": "1", "page": \#(number), "numPages": \#(pages), "recordings": [\#(records.joined(separator: ","))]}"#
}

private let demoMP3: [UInt8] = {
    let file = ChirperBinary.packageRoot.appendingPathComponent("assets/demo/audio/demo-01.mp3")
    return (try? Data(contentsOf: file)).map { Array($0) } ?? []
}()

/// Runs chirper-play against a server whose API answers come from `api` (called with the page asked for
/// and how many API requests came before), with audio served normally.
private func run(_ input: [String], api: @escaping @Sendable (LoopbackRequest, Int, String) -> LoopbackResponse)
    async throws -> (ChirperRun, [LoopbackRequest])
{
    let calls = NIOLockedValueBox(0)
    let base = NIOLockedValueBox("")
    let server = try await LoopbackServer.start { request in
        if request.path.hasPrefix("/audio/") { return .file(demoMP3, contentType: "audio/mpeg", for: request) }
        let call = calls.withLockedValue { value -> Int in
            value += 1
            return value
        }
        return api(request, call, base.withLockedValue { $0 })
    }
    base.withLockedValue { $0 = server.baseURL }
    let result = try await runChirper(
        ["--api-url", server.baseURL + "/api/3/recordings", "--output", "null"], input: input,
        environment: ["XENO_CANTO_API_KEY": key])
    let requests = server.requests
    await server.shutdown()
    return (result, requests)
}

@Suite(
    "API faults and hostile replies, through the program",
    .enabled(if: ChirperBinary.exists, "chirper-play is not built"))
struct FaultTests {
    @Test("a 500 on the next page keeps the rows, says so, and next-page retries it")
    func nextPageServerError() async throws {
        let (run, _) = try await run(["search wren", "next-page", "list", "play 3", "wait", "next-page"]) {
            request, call, base in
            let number = Int(request.query["page"] ?? "1") ?? 1
            if number == 2 && call == 2 {
                return .text("<html><h1>500 Internal Server Error</h1></html>", status: 500, contentType: "text/html")
            }
            return .json(page(number, of: 2, first: number * 100, count: 50, base: base))
        }
        #expect(run.status == 0)
        #expect(
            run.lines(
                "list: paging rows=50 page=1/2 total=100 failed=2 message=\"xeno-canto had a server error (HTTP 500); try again later\""
            ).count == 2, "once as it happened, once for list")
        #expect(run.lines("playback: playing XC102").count == 1, "the kept rows still play")
        #expect(run.lines("list: populated rows=100 page=2/2 total=100").count == 1, "the retry loads page 2")
    }

    @Test("a failed new search keeps the previous list usable")
    func searchErrorKeepsList() async throws {
        let (run, _) = try await run(["search wren", "search robin", "list", "play 1", "wait"]) { request, call, base in
            if call == 2 { return .json(#"{"error": "server_error", "message": "Database unavailable"}"#, status: 503) }
            if call > 2 { return .text("<html>Service Unavailable</html>", status: 503, contentType: "text/html") }
            return .json(page(1, of: 1, first: 100, count: 5, base: base))
        }
        let error = try #require(run.lines("list: error").first)
        #expect(error.hasPrefix("list: error query=\"en:robin\" message=\"xeno-canto is busy (HTTP 503)"))
        #expect(run.lines("list: retry").isEmpty)
        #expect(run.lines("list: loading query=\"en:robin\" retry=1/3 wait=1").count == 1, "the retry is announced")
        #expect(run.lines("row: n=1 id=\"XC100\"").count == 2, "list still shows the wren rows")
        #expect(run.lines("playback: playing XC100").count == 1)
    }

    @Test("a 429 with Retry-After is waited out and said, then the page arrives")
    func retryAfter() async throws {
        let (run, requests) = try await run(["search wren"]) { _, call, base in
            if call == 1 { return LoopbackResponse(status: 429, headers: [("Retry-After", "1")]) }
            return .json(page(1, of: 1, first: 100, count: 2, base: base))
        }
        #expect(
            run.lines("list: ") == [
                "list: loading query=\"en:wren\"",
                "list: loading query=\"en:wren\" retry=1/3 wait=1 reason=\"xeno-canto is rate limiting (HTTP 429)\"",
                "list: populated rows=2 page=1/1 total=2",
            ])
        let apiRequests = requests.filter { $0.path == "/api/3/recordings" }
        #expect(apiRequests.count == 2)
        if apiRequests.count == 2 {
            let waited = apiRequests[0].receivedAt.duration(to: apiRequests[1].receivedAt)
            #expect(waited >= .milliseconds(950), "the retry came \(waited) after the 429")
        }
    }

    @Test("a reply cut off mid-JSON gives one clear line")
    func cutOffJSON() async throws {
        let (run, _) = try await run(["search wren", "list"]) { _, _, base in
            let full = Array(page(1, of: 1, first: 100, count: 20, base: base).utf8)
            return LoopbackResponse(
                status: 200, headers: [("Content-Type", "application/json")], chunks: [.init(Array(full.prefix(700)))],
                ending: .cut(declaredLength: full.count))
        }
        #expect(
            run.lines("list: error")
                == Array(
                    repeating:
                        "list: error query=\"en:wren\" message=\"the connection to 127.0.0.1 dropped mid-reply; try again\"",
                    count: 2),
            "once as it happened, once for list")
        #expect(run.status == 0)
    }

    @Test(
        "hostile pages are shown harmlessly or refused with a reason; only http(s) audio is ever fetched",
        arguments: [
            ("truncated", #"{"numRecordings": "1", "recordings": [{"id": "1", "en": "Wr"#, "list: error"),
            (
                "wrong types",
                #"{"numRecordings": [], "page": "x", "numPages": {}, "recordings": [{"id": 7, "en": 12, "file": false, "length": null}]}"#,
                "list: populated rows=1"
            ),
            ("not a page", #"["a", "b"]"#, "list: error"),
            ("deep nesting", String(repeating: "[", count: 50_000), "list: error"),
            (
                "huge string", #"{"recordings": [{"id": "1", "en": "\#(String(repeating: "W", count: 2_000_000))"}]}"#,
                "list: populated rows=1"
            ),
            (
                "invalid UTF-8", "{\"recordings\": [{\"id\": \"1\", \"en\": \"Wr\u{FFFD}en\"}]}",
                "list: populated rows=1"
            ),
        ])
    func hostilePages(name: String, body: String, expected: String) async throws {
        let (run, _) = try await run(["search wren", "play 1", "wait"]) { _, _, _ in .json(body) }
        #expect(run.status == 0, "\(name)")
        #expect(run.lines(expected).count == 1, "\(name): \(run.lines("list: "))")
        for line in run.lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(name)")
            #expect(line.count < 10_000 || name == "huge string", "\(name)")
        }
    }

    @Test("file URLs with other schemes and ../ file names are never followed")
    func otherSchemes() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-scheme-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let files = [
            "file:///etc/passwd", "ftp://127.0.0.1/x.mp3", "javascript:alert(1)", "data:audio/mpeg;base64,AAAA",
            "../../etc/passwd", "/etc/passwd",
        ]
        let records = files.enumerated().map { index, file in
            #"{"id": "\#(index + 1)", "en": "Wren", "file": "\#(file)", "file-name": "../../../tmp/chirper-\#(index).mp3"}"#
        }
        let body = #"{"numRecordings": "\#(files.count)", "recordings": [\#(records.joined(separator: ","))]}"#
        let (run, requests) = try await run(["search wren"] + (1...files.count).map { "play \($0)" }) { _, _, _ in
            .json(body)
        }
        #expect(run.lines("row: ").allSatisfy { $0.hasSuffix("audio=refused") })
        #expect(run.lines("error: ").count == files.count)
        #expect(run.lines("playback: ").isEmpty, "nothing was played or fetched")
        #expect(requests.allSatisfy { $0.path == "/api/3/recordings" })
        #expect((0..<files.count).allSatisfy { !FileManager.default.fileExists(atPath: "/tmp/chirper-\($0).mp3") })
    }
}
