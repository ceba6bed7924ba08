import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real recording played (1.1 MB, 69.8 s of a 128 kbit/s MP3).
private let dunnock: [UInt8]? = {
    let path = ChirperBinary.packageRoot.path + "/../shared/xeno-canto/audio/XC34430-dunnock-44k-mono-cbr128.mp3"
    return FileManager.default.contents(atPath: path).map { Array($0) }
}()

private let noDunnock: Comment = "skipped: ../shared/xeno-canto/audio/XC34430-dunnock-44k-mono-cbr128.mp3 is absent"

/// `sono on` as a birder meets it: a recording streamed from xeno-canto (a loopback server of its shape) on a
/// terminal of 80 columns, with the play cache as it is by default (empty) and turned off.
@Suite(
    "the live strip of a recording streamed over the network",
    .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"),
    .enabled(if: PulseHarness.unavailableReason == nil, "\(PulseHarness.unavailableReason ?? "")"),
    .enabled(if: dunnock != nil, noDunnock)
)
struct StripNetworkTests {
    @Test(
        "sono on, then play 1 of a recording not yet cached: the strip draws within a second of the first sound, from the one download",
        arguments: [[String](), ["--cache-size", "0"]])
    func stripFromTheDownload(flags: [String]) async throws {
        let audio = try #require(dunnock)
        let pulse = try PulseHarness()
        try await pulse.start()
        let base = NIOLockedValueBox("")
        let server = try await LoopbackServer.start { request in
            switch request.path {
            case "/34430/download":
                return .file(audio, contentType: "audio/mpeg", for: request)
            default:
                // xeno-canto's shape of audio URL: the play cache keeps it under its recording's id.
                let file = base.withLockedValue { $0 } + "/34430/download"
                return .json(
                    #"{"numRecordings": "1", "numSpecies": "1", "page": 1, "numPages": 1, "recordings": [{"id": "34430", "en": "Dunnock", "gen": "Prunella", "sp": "modularis", "file": "\#(file)", "length": "1:09", "lic": "https://creativecommons.org/licenses/by-nc-nd/2.5/"}]}"#
                )
            }
        }
        base.withLockedValue { $0 = server.baseURL }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-strip-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        var environment = ProcessInfo.processInfo.environment
        for name in ["NO_COLOR", "LC_ALL", "LC_CTYPE", "EDITRC"] { environment[name] = nil }
        environment.merge(pulse.environment.filter { $0.key.hasPrefix("PULSE_") }) { _, new in new }
        environment["XENO_CANTO_API_KEY"] = "strip-test-key"
        environment["HOME"] = home
        // An empty play cache, as a first session has.
        environment["XDG_CACHE_HOME"] = home + "/cache"
        environment["XDG_DATA_HOME"] = home + "/data"
        environment["XDG_STATE_HOME"] = home + "/state"
        environment["TERM"] = "xterm-256color"
        environment["LANG"] = "C.UTF-8"
        let session = try PTYSession(
            executable: ChirperBinary.path,
            arguments: ["--api-url", server.baseURL + "/api/3/recordings", "--output", "pulse", "--no-mpris"] + flags,
            environment: environment, columns: 80)
        defer { session.stop() }
        // The terminal answers the graphics query with no graphics: the strip is drawn in half-blocks.
        session.type("\u{1B}[?62;22c")
        try await session.waitForPrompt()
        session.type("search dunnock\r")
        try await session.waitFor("the row of XC34430") { $0.transcript.contains { $0.contains("XC34430") } }
        try await session.waitForPrompt()
        session.type("sono on\r")
        try await session.waitForPrompt()
        let played = session.outputCount
        session.type("play 1\r")
        try await session.waitFor("the status line saying it plays") { $0.lineAboveCursor.contains("▶ playing") }
        // The strip: 8 picture lines, the top gutter naming the top frequency (k┐), the bottom 0 kHz (k┘), and
        // the marker line (the position ▲), then the status line, then the prompt.
        try await session.waitFor("the strip's picture above the status line", timeout: .seconds(1)) { screen in
            let rows = screen.lines
            let row = screen.cursorRow
            return row >= 10 && rows[row - 10].contains("k┐") && rows[row - 10].contains("▀")
                && rows[row - 3].contains("k┘") && rows[row - 2].contains("▲")
                && rows[row - 1].contains("▶ playing")
        }
        // The sound is drawn: the half-blocks take many greys of the 256-colour ramp (a blank picture, one).
        let greys = Set(
            session.output(after: played).components(separatedBy: "\u{1B}[48;5;").dropFirst().map {
                $0.prefix { $0 != "m" }
            })
        #expect(greys.count >= 4, "the picture's backgrounds: \(greys.sorted())")
        // Paging with what is heard: the picture grows as the audio is decoded, and its lines are drawn again.
        let drawn = session.outputCount
        try await session.waitFor("the picture drawn again as it grows", timeout: .seconds(5)) { _ in
            session.output(after: drawn).contains("k┐")
        }
        let audioRequests = server.requests.filter { $0.path == "/34430/download" }
        #expect(audioRequests.count == 1, "the recording was asked for \(audioRequests.count) times")
        #expect(audioRequests.allSatisfy { $0.header("range") == nil }, "nothing was asked again from a later byte")
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
        await server.shutdown()
        await pulse.stop()
    }
}
