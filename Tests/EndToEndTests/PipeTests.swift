import ChirperTestSupport
import Foundation
import Testing

private let apiKey = "pipe-test-KEY-9f2"

/// A loopback stand-in for xeno-canto: 120 recordings of "wren" over pages, audio behind a redirect like
/// xeno-canto's `/ID/download`, and a few hostile or broken entries.
private func fakeXenoCanto(_ request: LoopbackRequest, base: @Sendable () -> String) -> LoopbackResponse {
    let path = request.path
    if path == "/api/3/recordings" {
        guard request.query["key"] == apiKey else {
            return .json(
                #"{"error": "client_error", "message": "Missing or invalid 'key' parameter. Visit https://xeno-canto.org/account to retrieve your API key."}"#,
                status: 401)
        }
        let query = request.query["query"] ?? ""
        // The wren's scientific name finds nothing as an English name, as on xeno-canto.
        if query.contains("nothing") || (query.hasPrefix("en:") && query.lowercased().contains("troglodytes")) {
            return .json(#"{"numRecordings": "0", "numSpecies": "0", "page": 1, "numPages": 0, "recordings": []}"#)
        }
        if query.contains("evil") {
            let evil =
                #"{"id": "666", "en": "Evil\u001b]0;pwned\u0007\u001b[2J Wren", "rec": "\u001b[31mMallory\u009b0m", "file": "javascript:alert(1)", "length": "0:03"}"#
            let broken = #"{"id": "667", "en": "HTML Wren", "file": "\#(base())/html/667", "length": "0:03"}"#
            return .json(
                #"{"numRecordings": "2", "numSpecies": "1", "page": 1, "numPages": 1, "recordings": [\#(evil), \#(broken)]}"#
            )
        }
        let page = Int(request.query["page"] ?? "1") ?? 1
        let perPage = Int(request.query["per_page"] ?? "50") ?? 50
        let total = 120
        let ids = ((page - 1) * perPage..<min(page * perPage, total)).map { 1001 + $0 }
        let records = ids.map { id in
            let file = id == 1003 ? "" : "\(base())/\(id)/download"
            return """
                {"id": "\(id)", "gen": "Troglodytes", "sp": "troglodytes", "en": "Eurasian Wren", "rec": "Rec \(id)",
                 "cnt": "Spain", "type": "song", "q": "A", "length": "0:04", "file": "\(file)",
                 "url": "//xeno-canto.org/\(id)", "lic": "//creativecommons.org/licenses/by-nc-sa/4.0/"}
                """
        }
        return .json(
            #"{"numRecordings": "\#(total)", "numSpecies": "1", "page": \#(page), "numPages": \#((total + perPage - 1) / perPage), "recordings": [\#(records.joined(separator: ","))]}"#
        )
    }
    if path.hasSuffix("/download") {
        let id = path.split(separator: "/").first ?? ""
        return .redirect(to: "/sounds/\(id).mp3")
    }
    if path.hasPrefix("/sounds/") {
        let file = ChirperBinary.packageRoot.appendingPathComponent("assets/demo/audio/demo-01.mp3")
        let bytes = (try? Data(contentsOf: file)).map { Array($0) } ?? []
        return .file(bytes, contentType: "audio/mpeg", for: request)
    }
    if path.hasPrefix("/html/") {
        return .text("<!DOCTYPE html><html><body>Please log in</body></html>", contentType: "text/html")
    }
    return .text("not found", status: 404)
}

/// Runs chirper-play against the fake server, with the key in the environment.
private func runAgainstFake(
    _ input: [String],
    key: String = apiKey,
    extraArguments: [String] = [],
    output: String = "null"
) async throws -> ChirperRun {
    let base = ServerBase()
    let server = try await LoopbackServer.start { request in fakeXenoCanto(request, base: { base.value }) }
    base.value = server.baseURL
    defer { Task { await server.shutdown() } }
    return try await runChirper(
        ["--api-url", server.baseURL + "/api/3/recordings", "--output", output] + extraArguments,
        input: input,
        environment: ["XENO_CANTO_API_KEY": key]
    )
}

@Suite("chirper-play in a pipe", .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"))
struct PipeTests {
    @Test("search, next-page, info, play and wait print one stable line per state change")
    func session() async throws {
        let wav = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-pipe-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: wav) }
        let run = try await runAgainstFake(
            ["search wren", "next-page", "info 51", "play 2", "wait", "list", "quit"], output: "wav:\(wav.path)")
        #expect(run.status == 0, "\(run.stderr)")
        let state = run.lines.filter { $0.hasPrefix("list: ") || $0.hasPrefix("playback: ") }
        #expect(
            Array(state.prefix(4)) == [
                "list: loading query=\"en:wren\"",
                "list: paging rows=50 page=1/3 total=120 next=2",
                "list: paging rows=50 page=1/3 total=120 loading=2",
                "list: paging rows=100 page=2/3 total=120 next=3",
            ])
        #expect(
            state.dropFirst(4).prefix(3).map { $0.split(separator: " ").prefix(3).joined(separator: " ") } == [
                "playback: buffering XC1002", "playback: playing XC1002", "playback: idle",
            ])
        let rows = run.lines("row: ")
        #expect(rows.count == 100 + 100, "50 + 50 rows as pages arrive, then all 100 again for list")
        #expect(
            rows.first?.hasPrefix("row: n=1 id=\"XC1001\" en=\"Eurasian Wren\" sci=\"Troglodytes troglodytes\"") == true
        )
        #expect(rows[50].hasPrefix("row: n=51 id=\"XC1051\""))
        #expect(rows[2].hasSuffix("audio=restricted"))
        #expect(run.lines("info: ").first == "info: n=51 id=\"XC1051\"")
        #expect(
            run.lines("info: ").contains(
                "info: licence=\"CC BY-NC-SA 4.0 https://creativecommons.org/licenses/by-nc-sa/4.0/\""))
        #expect(
            run.lines("attribution: ")
                == [
                    "attribution: XC1002 en=\"Eurasian Wren\" rec=\"Rec 1002\" licence=\"CC BY-NC-SA 4.0\" url=\"https://xeno-canto.org/1002\""
                ])
        let size = (try FileManager.default.attributesOfItem(atPath: wav.path)[.size] as? Int) ?? 0
        #expect(size > 44 + 3 * 44_100 * 2, "about four seconds of audio were written, got \(size) bytes")
        #expect(!run.stdout.contains(apiKey))
        #expect(!run.stdout.contains("\u{1B}"), "no escape codes in a pipe")
    }

    @Test("a scientific name typed without tags finds nothing as an English name, then is searched as a binomial")
    func searchByScientificName() async throws {
        let run = try await runAgainstFake(["search Troglodytes troglodytes", "search nothing at all", "quit"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            Array(run.lines("list: ").prefix(3)) == [
                "list: loading query=\"en:\\\"Troglodytes troglodytes\\\"\"",
                "list: loading query=\"sp:\\\"troglodytes troglodytes\\\"\" read=scientific typed=\"Troglodytes troglodytes\"",
                "list: paging rows=50 page=1/3 total=120 next=2",
            ])
        #expect(
            run.lines("list: ").suffix(2) == [
                "list: loading query=\"en:\\\"nothing at all\\\"\"",
                "list: empty query=\"en:\\\"nothing at all\\\"\"",
            ], "three words that are no name are not read again")
    }

    @Test("sono prints its picture as sono: lines; speed 0.5 writes the recording twice as long, and says so")
    func studyInAPipe() async throws {
        let wav = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-study-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: wav) }
        let run = try await runAgainstFake(
            ["search wren", "sono 2", "sono 3", "speed 0.5", "play 2", "wait", "seek 0:01", "quit"],
            output: "wav:\(wav.path)")
        #expect(run.status == 0, "\(run.stderr)")
        let sono = run.lines("sono: ")
        #expect(
            sono.first?.hasPrefix("sono: XC1002 0-12.0kHz") == true,
            "the birds' band by default, not 0-22 kHz: \(sono.first ?? "no sono lines")")
        #expect(sono.count == 17, "a header and 16 rows")
        #expect(Set(sono.dropFirst().map(\.count)).count == 1, "rows of one width")
        #expect(run.lines("settings: ") == ["settings: speed=0.5 mode=tape volume=100 muted=no"])
        #expect(run.lines("playback: playing XC1002").first?.hasSuffix("speed=0.5") == true)
        #expect(
            run.lines("error: ") == [
                "error: \"row 3 (XC1003) is restricted: xeno-canto does not offer its audio\"",
                "error: \"nothing is playing; play a recording first, then seek\"",
            ])
        let size = (try FileManager.default.attributesOfItem(atPath: wav.path)[.size] as? Int) ?? 0
        #expect(size > 44 + 7 * 44_100 * 2, "about eight seconds of audio (4 s at half speed), got \(size) bytes")
    }

    @Test(
        "measure prints one measure: line per selection; measure save writes a Raven selection table; --png writes a PNG"
    )
    func measureInAPipe() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-measure-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let table = folder.appendingPathComponent("calls.txt").path
        let png = folder.appendingPathComponent("sono.png").path
        let run = try await runAgainstFake(
            [
                "search wren", "select 2 0:00.5-0:02 1-10", "measure", "measure 2 0:01-0:03", "measure list",
                "measure save \(table)", "measure 2 0:09-0:10", "sono 2 0-8 0:01-0:02 --png \(png)", "compare s1 s2",
                "compare 1 2", "quit",
            ],
            output: "null")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines("select: ") == [#"select: id="XC1002" begin=0.500 end=2.000 low=1000 high=10000"#])
        let measured = run.lines("measure: n=")
        #expect(measured.count == 2, "\(run.stdout)")
        #expect(measured.first?.contains("begin=0.500 end=2.000 low=1000 high=10000") == true)
        #expect(measured.allSatisfy { $0.contains("fft=512 hop=256 rate=44100") })
        #expect(run.lines("measure: selection=").count == 2, "measure list: a line per row")
        #expect(run.lines("measure: saved=") == ["measure: saved=\"\(table)\" rows=2"])
        let saved = try String(contentsOfFile: table, encoding: .utf8).split(separator: "\n")
        #expect(saved.count == 3)
        #expect(saved.first?.hasPrefix("Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)") == true)
        #expect(saved.last?.hasSuffix("\tXC1002") == true)
        #expect(
            run.lines("error: ").first?.hasPrefix(
                "error: \"the selection starts after XC1002 ends") == true, "\(run.lines("error: "))")
        #expect(run.lines("sono: png=") == ["sono: png=\"\(png)\""])
        // compare s1 s2: a header and rows per section, then the figures side by side.
        let compared = run.lines("compare: ")
        #expect(compared.first?.hasPrefix(#"compare: A id="XC1002""#) == true, "\(compared)")
        #expect(compared.contains { $0.hasPrefix(#"compare: B id="XC1002""#) })
        #expect(compared.contains { $0.hasPrefix("compare: peak_freq A=") && $0.contains(" diff=") })
        #expect(compared.first?.hasSuffix("low=1000 high=10000 band=selected") == true, "\(compared)")
        // compare 1 2: whole rows, each measured in the band its sound holds, which the header names.
        let rows = compared.filter { $0.hasPrefix("compare: A id=") || $0.hasPrefix("compare: B id=") }.suffix(2)
        #expect(rows.count == 2 && rows.allSatisfy { $0.hasSuffix("band=found") }, "\(rows)")
        let widths = compared.filter { $0.hasPrefix("compare: bw90 ") }
        let bandwidth = widths.last?.split(separator: " ").first { $0.hasPrefix("A=") }.flatMap { Int($0.dropFirst(2)) }
        #expect(bandwidth.map { $0 < 8_000 } == true, "a whole row's BW 90 % is its sound's, not 0-22 kHz: \(widths)")
        let header = try Data(contentsOf: URL(fileURLWithPath: png)).prefix(8)
        #expect(Array(header) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    @Test("bad commands each get one line and the session goes on with its list intact")
    func badCommands() async throws {
        let run = try await runAgainstFake([
            "play 1", "next-page", "frobnicate", "search wren", "play 0", "play 999", "play 3", "plya 1",
            "search colour:red", "stop", "resume", "next-page", "list",
        ])
        #expect(run.status == 0)
        #expect(
            run.lines("error: ") == [
                "error: \"no rows yet: search first, e.g. search en:wren\"",
                "error: \"nothing to page yet: search first, e.g. search en:wren\"",
                "error: \"unknown command 'frobnicate'; type help for the commands\"",
                "error: \"'0' is not a row number; usage: play <n>\"",
                "error: \"there is no row 999: rows 1-50 are listed (next-page loads more)\"",
                "error: \"row 3 (XC1003) is restricted: xeno-canto does not offer its audio\"",
                "error: \"unknown command 'plya'; did you mean 'play'? (help lists commands)\"",
                "error: \"unknown search tag 'colour:'; known tags: \(["en", "gen", "sp", "ssp", "fam", "grp", "rec", "cnt", "loc", "area", "lat", "lon", "box", "also", "type", "othertype", "sex", "stage", "method", "seen", "playback", "rmk", "nr", "lic", "q", "len", "since", "year", "month", "colyear", "colmonth", "temp", "regnr", "auto", "dvc", "mic", "smp"].joined(separator: " "))\"",
                "error: \"nothing is playing\"",
                "error: \"nothing is paused\"",
            ])
        #expect(
            run.lines("list: paging rows=100").count == 2, "next-page after the errors still works, and list shows it")
        #expect(run.lines("row: ").count == 50 + 50 + 100)
    }

    @Test("the field kit: save, cite, a queue, a cached replay with no request, then --offline finds the saved rows")
    func fieldKit() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-kit-\(UUID())")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = [
            "XENO_CANTO_API_KEY": apiKey, "XDG_CACHE_HOME": home.path + "/cache", "XDG_DATA_HOME": home.path + "/data",
        ]
        let base = ServerBase()
        let server = try await LoopbackServer.start { request in fakeXenoCanto(request, base: { base.value }) }
        base.value = server.baseURL
        let run = try await runChirper(
            ["--api-url", server.baseURL + "/api/3/recordings", "--output", "null"],
            input: ["search wren", "save 1-3", "save 1", "cite 2", "play 4-5", "wait", "play 4", "wait", "quit"],
            environment: environment)
        let downloads = server.requests.map(\.path).filter { $0.hasSuffix("/download") }
        await server.shutdown()
        #expect(run.status == 0, "\(run.stderr)")
        let folder = home.path + "/data/chirper-play/recordings"
        let size = try FileManager.default.attributesOfItem(atPath: folder + "/XC1001.mp3")[.size] as? Int ?? -1
        #expect(
            run.lines("save: ").filter { !$0.hasPrefix("save: progress") } == [
                "save: fetching XC1001 item=1/3 offset=0 attempt=1",
                "save: saved XC1001 item=1/3 bytes=\(size) file=\"\(folder)/XC1001.mp3\"",
                "save: fetching XC1002 item=2/3 offset=0 attempt=1",
                "save: saved XC1002 item=2/3 bytes=\(size) file=\"\(folder)/XC1002.mp3\"",
                "save: failed XC1003 item=3/3 reason=\"restricted: its audio is not offered\"",
                "save: done saved=2 existing=0 failed=1 dir=\"\(folder)\"",
                "save: exists XC1001 item=1/1 file=\"\(folder)/XC1001.mp3\"",
                "save: done saved=0 existing=1 failed=0 dir=\"\(folder)\"",
            ])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [
                "XC1001.json", "XC1001.mp3", "XC1002.json", "XC1002.mp3",
            ])
        #expect(
            run.lines("cite: ") == [
                "cite: XC1002 text=\"Rec 1002, XC1002, https://xeno-canto.org/1002, CC BY-NC-SA 4.0\"",
                "cite: XC1002 warning=\"licence CC BY-NC-SA 4.0: no commercial use\"",
            ])
        #expect(
            run.lines("queue: ") == [
                "queue: queued XC1004,XC1005", "queue: 1/2 XC1004", "queue: 2/2 XC1005", "queue: finished",
                "queue: cleared",
            ])
        #expect(
            run.lines("attribution: ").map { $0.prefix(19) } == [
                "attribution: XC1004", "attribution: XC1005", "attribution: XC1004",
            ])
        // Saved twice (1001, 1002), played 1004 and 1005 once each; the replay of 1004 came from the cache.
        #expect(downloads.sorted() == ["/1001/download", "/1002/download", "/1004/download", "/1005/download"])
        #expect(run.lines("playback: idle").count == 3)

        // No network: the saved and cached recordings, found with the same query syntax, and playable.
        let offline = try await runChirper(
            ["--offline", "--output", "null"],
            input: ["search rec:\"Rec 1002\"", "play 1", "wait", "search gen:troglodytes", "quit"],
            environment: environment)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(
            offline.lines("list: populated") == [
                "list: populated rows=1 page=1/1 total=1", "list: populated rows=4 page=1/1 total=4",
            ])
        #expect(offline.lines("row: n=1 ").first?.hasPrefix("row: n=1 id=\"XC1002\"") == true)
        #expect(offline.lines("playback: idle").count == 1)
        #expect(offline.lines("playback: failed").isEmpty)
    }

    @Test("an empty result says so")
    func emptyResult() async throws {
        let run = try await runAgainstFake(["search en:nothing", "quit"])
        #expect(run.lines("list: ") == ["list: loading query=\"en:nothing\"", "list: empty query=\"en:nothing\""])
    }

    @Test("a refused key shows the server's message and how to fix it, never the key")
    func refusedKey() async throws {
        let wrong = "WRONG-key-77"
        let run = try await runAgainstFake(["search wren", "quit"], key: wrong)
        #expect(run.status == 0)
        let line = try #require(run.lines("list: error").first)
        #expect(line.contains("HTTP 401"))
        #expect(line.contains("Missing or invalid 'key' parameter"))
        #expect(line.contains("XENO_CANTO_API_KEY"))
        #expect(!run.stdout.contains(wrong) && !run.stderr.contains(wrong))
    }

    @Test("API text with terminal escapes is printed harmlessly; a non-http file is never fetched")
    func hostileText() async throws {
        let run = try await runAgainstFake(["search evil", "info 1", "play 1", "play 2", "wait", "quit"])
        for line in run.lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
        }
        #expect(run.lines("row: n=1").first?.contains("en=\"Evil Wren\"") == true)
        #expect(run.lines("error: ").first?.contains("only http(s) is followed") == true)
        let failed = try #require(run.lines("playback: failed").first)
        #expect(failed.hasPrefix("playback: failed XC667 reason="))
        #expect(failed.lowercased().contains("html"))
    }

    @Test(
        "--json: every line is one JSON object with numbers as numbers; errors go to stderr as JSON; API text escaped")
    func jsonLines() async throws {
        let run = try await runAgainstFake(
            ["search wren", "play 2", "wait", "search evil", "info 1", "play 1", "bogus", "quit"],
            extraArguments: ["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        func objects(_ text: String) throws -> [[String: Any]] {
            try text.split(separator: "\n").map { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return try #require(object, "not a JSON object: \(line)")
            }
        }
        let out = try objects(run.stdout)
        let playing = try #require(
            out.first { $0["type"] as? String == "playback" && $0["state"] as? String == "playing" })
        #expect(playing["id"] as? String == "XC1002" && playing["xc"] as? Int == 1002)
        #expect(playing["position"] is NSNumber && playing["duration"] is NSNumber)
        let paging = try #require(out.first { $0["type"] as? String == "list" && $0["state"] as? String == "paging" })
        #expect(paging["rows"] as? Int == 50 && paging["total"] as? Int == 120 && paging["page"] as? String == "1/3")
        let evil = try #require(out.first { $0["type"] as? String == "row" && $0["id"] as? String == "XC666" })
        #expect(evil["rec"] as? String == "Mallory", "the escape sequences are gone, the text kept")
        #expect(!run.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        let errors = try objects(run.stderr)
        #expect(errors.count == 2 && errors.allSatisfy { $0["type"] as? String == "error" })
        #expect((errors.last?["message"] as? String)?.hasPrefix("unknown command 'bogus'") == true)
    }

    @Test("a reader that goes away (| head) does not crash it: the session reads to its end and exits 0")
    func closedOutput() async throws {
        let process = ChirperBinary.process(["--output", "null"], environment: [:])
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        try stdout.fileHandleForReading.close()
        try stdin.fileHandleForWriting.write(contentsOf: Data("search grp:birds\nlist\nplay 1\nwait\nquit\n".utf8))
        try stdin.fileHandleForWriting.close()
        let status = await withCheckedContinuation { continuation in
            startBlocking("child-io") {
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, process.terminationReason))
            }
        }
        #expect(status.0 == 0 && status.1 == .exit, "ended with \(status)")
    }

    @Test("a playback failure leaves the list and the session usable, and the next play works")
    func failureThenPlay() async throws {
        let run = try await runAgainstFake(["search evil", "play 2", "wait", "search wren", "play 1", "wait", "quit"])
        #expect(run.lines("playback: failed").count == 1)
        #expect(run.lines("playback: playing XC1001").count == 1)
        #expect(run.status == 0)
    }

    @Test("with no sound server, play fails with a plain hint and nothing else is affected")
    func noSoundServer() async throws {
        let run = try await runChirper(
            ["--output", "pulse"], input: ["search en:trill", "play 1", "wait", "list", "quit"],
            environment: ["PULSE_SERVER": "unix:/nonexistent/chirper-no-pulse", "PULSE_RUNTIME_PATH": "/nonexistent"])
        #expect(run.status == 0)
        let failed = try #require(run.lines("playback: failed").first)
        #expect(failed.contains("no sound server"))
        #expect(failed.contains("--output wav:PATH"))
        #expect(run.lines("list: populated rows=5").count == 2, "the list is still there for `list`")
    }

    @Test("without libpulse, play says so in one line and the session goes on")
    func noLibpulse() async throws {
        let run = try await runChirper(
            ["--output", "pulse"],
            input: ["search en:trill", "volume 30", "play 1", "wait", "play 2", "wait", "list", "quit"],
            environment: ["CHIRPER_LIBPULSE": "/nonexistent/libpulse.so.0"])
        #expect(run.status == 0)
        let failed = run.lines("playback: failed")
        #expect(failed.count == 2, "each play tries and fails the same way: \(run.stdout)")
        #expect(failed.allSatisfy { $0.contains("cannot load libpulse") && $0.contains("install libpulse0") })
        #expect(run.lines("list: populated rows=5").count == 2, "the list is still there for `list`")
    }

    @Test("the demo catalog is used without a key, and end of input ends the session")
    func demoWithoutKey() async throws {
        let run = try await runChirper(["--output", "null"], input: ["search en:trill", "next-page"])
        #expect(run.status == 0)
        #expect(run.lines("list: ") == ["list: loading query=\"en:trill\"", "list: populated rows=5 page=1/1 total=5"])
        #expect(run.lines("error: ").first?.contains("no more pages") == true)
    }

    @Test("without a key, the hint to search first names a search that finds demo recordings, and it does")
    func demoHintFindsRecordings() async throws {
        let run = try await runChirper(
            ["--output", "null"], input: ["search", "play 1", "next-page", "search cnt:demoland"])
        #expect(run.status == 0)
        #expect(
            run.lines("error: ") == [
                "error: \"search needs words or tags, e.g. search cnt:demoland (help tags lists the tags)\"",
                "error: \"no rows yet: search first, e.g. search cnt:demoland\"",
                "error: \"nothing to page yet: search first, e.g. search cnt:demoland\"",
            ])
        #expect(run.lines("list: paging") == ["list: paging rows=10 page=1/2 total=11 next=2"], "\(run.stdout)")
        #expect(run.lines("row: ").count == 10)
    }

    @Test("flags: --version, --help, and bad values get one clear line and the usage")
    func flags() async throws {
        let version = try await runChirper(["--version"], input: [])
        #expect(version.status == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).first?.isNumber == true)
        let help = try await runChirper(["--help"], input: [])
        for flag in ["--api-key", "--api-url", "--catalog", "--output", "--per-page", "--no-color", "--version"] {
            #expect(help.stdout.contains(flag), "help mentions \(flag)")
        }
        let badOutput = try await runChirper(["--output", "speakers"], input: [])
        #expect(badOutput.status != 0)
        #expect(badOutput.stderr.contains("Error:"))
        let badPerPage = try await runChirper(["--per-page", "0"], input: [])
        #expect(badPerPage.stderr.contains("--per-page must be between 1 and 500"))
        let missingCatalog = try await runChirper(["--catalog", "/nonexistent/catalog"], input: [])
        #expect(missingCatalog.status != 0)
        #expect(missingCatalog.stderr.contains("--catalog"))
    }
}
