import ChirperTestSupport
import Foundation
import Testing

/// The real xeno-canto page of 470 Puerto Rico recordings, beside the repository.
private let puertoRicoPage = ChirperBinary.packageRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/xeno-canto/api/v2-search-puerto-rico-470-recordings-single-page-compact.json")
/// The real recording XC373562 (Lesser Antillean Pewee, by Orlando A. Acevedo-Charry), row 190 of that page.
private let peweeAudio = ChirperBinary.packageRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/xeno-canto/audio/XC373562-lesser-antillean-pewee-44k-mono-vbr.mp3")

private var sharedFilesPresent: Bool {
    FileManager.default.fileExists(atPath: puertoRicoPage.path)
        && FileManager.default.fileExists(atPath: peweeAudio.path)
}

/// The words of `rows` (a line broken over rows), in order: a word cut at a row's end shows as two.
private func words(_ rows: [String]) -> [String] {
    rows.flatMap { $0.split(separator: " ").map(String.init) }
}

/// What a birder sees first on an 80-column terminal: the banner, the list of a real page, the attribution
/// and a save, each fitted to the width, broken between words.
@Suite(
    "chirper-play on an 80-column terminal", .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"))
struct NarrowTerminalTests {
    @Test("the demo catalog's banner, and the line saying there is no session bus, break between words")
    func banner() async throws {
        let home = try TemporaryFolder()
        defer { home.remove() }
        let session = try startChirper(
            ["--output", "null"], home: home.path,
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/chirper-bus"], columns: 80)
        defer { session.stop() }
        try await session.waitForPrompt()
        try await session.waitFor("the banner's end and the bus line's") { screen in
            screen.transcript.contains { $0.hasSuffix("help for commands") }
                && screen.transcript.contains { $0.hasSuffix("this line)") }
        }
        let screen = session.current.transcript
        let start = try #require(screen.firstIndex { $0.hasPrefix("chirper-play ") }, "\(screen)")
        let rows = [screen[start]] + screen[(start + 1)...].prefix { $0.hasPrefix("  ") }
        let expected =
            "offline demo catalog: 30 synthetic sounds, try search cnt:demoland (set XENO_CANTO_API_KEY for xeno-canto)"
            + " · type help for commands"
        #expect(rows.count == 2, "\(screen)")
        #expect(rows.allSatisfy { $0.count < 80 }, "\(rows)")
        #expect(words(rows).joined(separator: " ").hasSuffix(expected), "\(rows)")
        let bus = try #require(screen.firstIndex { $0.hasPrefix("no D-Bus session bus") }, "\(screen)")
        let notice = [screen[bus]] + screen[(bus + 1)...].prefix { $0.hasPrefix("  ") }
        #expect(notice.allSatisfy { $0.count < 80 }, "\(notice)")
        #expect(words(notice).last == "line)", "\(notice)")
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
    }

    @Test(
        "the real Puerto Rico page from the network: every English name of up to 24 letters is whole in its row",
        .enabled(if: sharedFilesPresent, "../shared/xeno-canto is absent: skipped")
    )
    func puertoRicoRows() async throws {
        let page = try String(contentsOf: puertoRicoPage, encoding: .utf8)
        let terminal = try await PuertoRicoTerminal.start(page: page)
        defer { terminal.leave() }
        let screen = terminal.session.current.transcript
        let header = screen.first { $0.hasPrefix("  #  ID") } ?? ""
        #expect(header.contains("English name") && header.contains("Scientific name"), "\(header)")
        let decoded = try JSONSerialization.jsonObject(with: Data(page.utf8)) as? [String: Any]
        let recordings = try #require(decoded?["recordings"] as? [[String: Any]])
        let rows = screen.filter { $0.range(of: #"^ *\d+  XC\d+ "#, options: .regularExpression) != nil }
        #expect(rows.count == 470)
        for (recording, row) in zip(recordings, rows) {
            #expect(row.count < 80, "\(row)")
            let english = recording["en"] as? String ?? ""
            if english.count <= 24, (recording["file"] as? String ?? "") != "" {
                #expect(row.contains("  \(english)  "), "\(english) is not whole in \(row)")
            }
        }
        try await terminal.quit()
    }

    @Test(
        "a long attribution (XC373562's recordist) is broken between words",
        .enabled(if: sharedFilesPresent, "../shared/xeno-canto is absent: skipped")
    )
    func attribution() async throws {
        let terminal = try await PuertoRicoTerminal.start(page: try String(contentsOf: puertoRicoPage, encoding: .utf8))
        defer { terminal.leave() }
        let session = terminal.session
        session.type("play 190\r")
        try await session.waitFor("the attribution and the row after it") { screen in
            guard let index = screen.transcript.firstIndex(where: { $0.hasPrefix("♪ XC373562") }) else { return false }
            return screen.transcript.count > index + 1
        }
        let transcript = session.current.transcript
        let start = try #require(transcript.firstIndex { $0.hasPrefix("♪ XC373562") })
        let attribution = [transcript[start]] + transcript[(start + 1)...].prefix { $0.hasPrefix("  ") }
        #expect(attribution.count == 2, "\(attribution)")
        #expect(attribution.allSatisfy { $0.count < 80 }, "\(attribution)")
        #expect(
            words(attribution) == [
                "♪", "XC373562", "Lesser", "Antillean", "Pewee", "(Contopus", "latirostris)", "·", "by", "Orlando",
                "A.",
                "Acevedo-Charry", "·", "CC", "BY-NC-SA", "4.0", "·", "https://xeno-canto.org/373562",
            ], "\(attribution)")
        try await terminal.quit()
    }

    @Test(
        "save on a terminal leaves one line for the file: its progress is rewritten in place",
        .enabled(if: sharedFilesPresent, "../shared/xeno-canto is absent: skipped")
    )
    func save() async throws {
        let terminal = try await PuertoRicoTerminal.start(page: try String(contentsOf: puertoRicoPage, encoding: .utf8))
        defer { terminal.leave() }
        let session = terminal.session
        let folder = terminal.home.path + "/kit"
        session.type("save 190 \(folder)\r")
        try await session.waitFor("the save's end", timeout: .seconds(60)) {
            $0.transcript.contains { $0.hasPrefix("Save done") }
        }
        let after = session.current.transcript
        #expect(after.filter { $0.contains("XC373562") && $0.contains("saved:") }.count == 1, "\(after.suffix(8))")
        #expect(!after.contains { $0.hasPrefix("↓") }, "progress left on the screen: \(after.suffix(8))")
        #expect(FileManager.default.fileExists(atPath: folder + "/XC373562.mp3"))
        try await terminal.quit()
    }
}

/// A loopback xeno-canto answering every search with the real Puerto Rico page (its audio addresses pointing
/// at itself, XC373562's served), and chirper-play on an 80-column terminal that searched it.
private struct PuertoRicoTerminal {
    let server: LoopbackServer
    let home: TemporaryFolder
    let session: PTYSession

    static func start(page: String) async throws -> PuertoRicoTerminal {
        let base = ServerBase()
        let audio = Array(try Data(contentsOf: peweeAudio))
        let server = try await LoopbackServer.start { request in
            if request.path == "/api/3/recordings" {
                return .json(
                    page.replacingOccurrences(of: #""file":"https:\/\/xeno-canto.org"#, with: #""file":""# + base.value)
                )
            }
            if request.path == "/373562/download" {
                return .file(audio, contentType: "audio/mpeg", for: request)
            }
            return .text("not found", status: 404)
        }
        base.value = server.baseURL
        let home = try TemporaryFolder()
        let session = try startChirper(
            ["--api-url", server.baseURL + "/api/3/recordings", "--output", "null"], home: home.path,
            environment: ["XENO_CANTO_API_KEY": "narrow-test-key"], columns: 80)
        let terminal = PuertoRicoTerminal(server: server, home: home, session: session)
        do {
            try await session.waitForPrompt()
            session.type("search cnt:\"puerto rico\"\r")
            try await session.waitFor("the 470 rows", timeout: .seconds(60)) {
                $0.transcript.contains { $0.contains("470 recordings · all listed") }
            }
            try await session.waitForPrompt()
        } catch {
            terminal.leave()
            throw error
        }
        return terminal
    }

    func quit() async throws {
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
    }

    /// Ends the program, the server and the home.
    func leave() {
        session.stop()
        home.remove()
        let server = self.server
        Task { await server.shutdown() }
    }
}
