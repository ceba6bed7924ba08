import ChirperCore
import ChirperGraphics
import ChirperTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built chirper-play on a pseudo-terminal: line editing, history, completion, the status line and Ctrl-C,
/// asserted on what the screen shows.
@Suite("chirper-play on a terminal", .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"))
struct TerminalTests {
    @Test("history is kept across sessions: Up twice recalls help, Enter runs it, Ctrl-D leaves")
    func historyAcrossSessions() async throws {
        let home = try TemporaryFolder()
        defer { home.remove() }
        let first = try startChirper(["--output", "null"], home: home.path)
        defer { first.stop() }
        try await first.waitForPrompt()
        try await first.waitFor("the banner, naming a search the demo catalog answers") {
            $0.transcript.contains { $0.contains("offline demo catalog: 30 synthetic sounds, try search cnt:demoland") }
        }
        first.type("help\r")
        try await first.waitFor("the help text") { $0.transcript.contains { $0.contains(helpMarker) } }
        first.type("quit\r")
        #expect(try await first.waitForExit() == 0)

        let folder = home.path + "/state/chirper-play"
        #expect(try permissions(of: folder) == 0o700)
        #expect(try permissions(of: folder + "/history") == 0o600)

        let second = try startChirper(["--output", "null"], home: home.path)
        defer { second.stop() }
        try await second.waitForPrompt()
        second.type("\u{1B}[A")
        try await second.waitFor("quit, recalled by the first Up") { $0.cursorLine == "chirper> quit" }
        second.type("\u{1B}[A")
        try await second.waitFor("help, recalled by the second Up") {
            $0.cursorLine == "chirper> help" && $0.cursorColumn == 13
        }
        second.type("\r")
        try await second.waitFor("the help text, printed by the recalled line") {
            $0.transcript.contains { $0.contains(helpMarker) }
        }
        try await second.waitForPrompt()
        second.type("\u{4}")  // Ctrl-D at an empty prompt ends the session
        #expect(try await second.waitForExit() == 0)
        #expect(TerminalModes(second.modes()) == TerminalModes(second.initialModes))
    }

    @Test("with no session bus a terminal says so in one line at start-up; --no-mpris says nothing")
    func noSessionBus() async throws {
        let home = try TemporaryFolder()
        defer { home.remove() }
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/chirper-bus"]
        for (arguments, said) in [(["--output", "null"], true), (["--output", "null", "--no-mpris"], false)] {
            let session = try startChirper(arguments, home: home.path, environment: noBus)
            defer { session.stop() }
            try await session.waitForPrompt()
            if said {
                try await session.waitFor("the line about the bus") { $0.transcript.contains { $0.contains("D-Bus") } }
            } else {
                // Help's answer comes after any start-up line would have.
                session.type("help\r")
                try await session.waitFor("the help text") { $0.transcript.contains { $0.contains(helpMarker) } }
            }
            let lines = session.current.transcript.filter { $0.contains("D-Bus") }
            #expect(lines.count == (said ? 1 : 0), "\(arguments): \(lines)")
            if said { #expect(lines.first?.hasPrefix("no D-Bus session bus: media keys and playerctl") == true) }
            session.type("quit\r")
            #expect(try await session.waitForExit() == 0)
        }
    }

    @Test("Tab completes a command, a search tag (no space after its colon) and a tag value; UTF-8 typing works")
    func completion() async throws {
        let home = try TemporaryFolder()
        defer { home.remove() }
        let session = try startChirper(["--output", "null"], home: home.path)
        defer { session.stop() }
        try await session.waitForPrompt()

        session.type("sea\t")
        try await session.waitFor("sea completed to 'search '") {
            $0.cursorLine == "chirper> search" && $0.cursorColumn == 16
        }
        session.type("cn\t")
        try await session.waitFor("cn completed to 'cnt:', the cursor right after the colon") {
            $0.cursorLine == "chirper> search cnt:" && $0.cursorColumn == 20
        }
        session.type("\u{1}\u{B}")  // Ctrl-A, Ctrl-K: empty the line
        try await session.waitFor("an empty line") { $0.cursorLine == "chirper>" && $0.cursorColumn == 9 }
        session.type("search grp:bi\t")
        try await session.waitFor("grp:bi completed to 'grp:birds '") {
            $0.cursorLine == "chirper> search grp:birds" && $0.cursorColumn == 26
        }
        session.type("\r")
        try await session.waitFor("the search for grp:birds") {
            $0.transcript.contains { $0.contains("for grp:birds") }
        }

        try await session.waitForPrompt()
        session.type("search en:café\r")
        try await session.waitFor("the search for en:café") { $0.transcript.contains { $0.contains("for en:café") } }
        try await session.waitForPrompt()
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
    }

    @Test(
        "status updates while playing are drawn above the prompt and leave the half-typed line intact",
        .enabled(if: PulseHarness.unavailableReason == nil, "\(PulseHarness.unavailableReason ?? "")")
    )
    func statusLineKeepsTypedLine() async throws {
        let terminal = try await PlayingTerminal.start()
        defer { terminal.leave() }
        let (pulse, session) = (terminal.pulse, terminal.session)

        session.type("sea")
        try await session.waitFor("sea typed") { $0.cursorLine == "chirper> sea" }
        let mark = session.outputCount
        try await session.waitFor("two status updates drawn after typing, the typed line intact below them") {
            screen in
            // Every status line shows the time as "m:ss / 0:30"; other lines about DEMO-24 do not.
            session.output(after: mark).components(separatedBy: " / 0:30").count - 1 >= 2
                && screen.lineAboveCursor.contains(" / 0:30") && screen.cursorLine == "chirper> sea"
                && screen.cursorColumn == 12
        }

        session.type("rch en:trill\r")
        try await session.waitFor("the search for en:trill") { $0.transcript.contains { $0.contains("for en:trill") } }
        try await session.waitForPrompt()
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
        await pulse.stop()
    }

    @Test(
        "a terminal that answers as kitty, as a sixel terminal, or not at all: sono draws kitty graphics, sixels or half-blocks",
        arguments: [
            ("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;20;10t\u{1B}[?62;22c", "kitty pixels", "\u{1B}_G"),
            ("\u{1B}_Gi=31;ENOTSUPPORTED\u{1B}\\\u{1B}[?62;4;22c", "sixel pixels", "\u{1B}P"),
            ("", "half-blocks", "k┤"),
        ])
    func graphicsAnswers(reply: String, drawn: String, marker: String) async throws {
        let home = try TemporaryFolder()
        defer { home.remove() }
        let session = try startChirper(["--output", "null"], home: home.path)
        defer { session.stop() }
        // Typed ahead: the answer waits in the terminal's input for the query chirper-play asks at start-up.
        if !reply.isEmpty { session.type(reply) }
        try await session.waitForPrompt()
        session.type("graphics\r")
        try await session.waitFor("graphics: \(drawn)") {
            $0.transcript.contains { $0.contains("sono draws \(drawn)") }
        }
        session.type("search en:trill\r")
        try await session.waitFor("the rows") { $0.transcript.contains { $0.contains("DEMO-01") } }
        try await session.waitForPrompt()
        let mark = session.outputCount
        session.type("sono 1 0-10 0:00-0:02\r")
        try await session.waitFor("the picture") { _ in session.output(after: mark).contains(marker) }
        try await session.waitForPrompt()
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
    }

    @Test(
        "sono on: the live strip redraws above the status line while a command is half-typed; sono off takes it away",
        .enabled(if: PulseHarness.unavailableReason == nil, "\(PulseHarness.unavailableReason ?? "")")
    )
    func liveStrip() async throws {
        // A terminal that answers the graphics query with no graphics: the strip is drawn in half-blocks.
        let terminal = try await PlayingTerminal.start(graphicsReply: "\u{1B}[?62;22c")
        defer { terminal.leave() }
        let (pulse, session) = (terminal.pulse, terminal.session)
        // Everything on the screen and above it, less the status line (its time moves) and the empty prompt.
        func kept(_ screen: TerminalScreen) -> [String] {
            screen.transcript.filter { !$0.isEmpty && !$0.contains(" / 0:30") && $0 != "chirper>" }
        }
        let before = kept(session.current)

        session.type("sono on\r")
        // The strip: 8 picture lines, the top gutter naming the top frequency (k┐), the bottom 0 kHz (k┘), and
        // the marker line (└, the position ▲), then the status line, then the prompt.
        try await session.waitFor("the strip above the status line") { screen in
            let rows = screen.lines
            let row = screen.cursorRow
            return row >= 10 && rows[row - 10].contains("k┐") && rows[row - 3].contains("k┘")
                && rows[row - 2].contains("└") && rows[row - 2].contains("▲")
                && rows[row - 1].contains(" / 0:30")
        }
        session.type("sea")
        let mark = session.outputCount
        // The marker moves ten columns a second; the picture lines stay until its page turns.
        try await session.waitFor("the marker redrawn twice, the typed line intact") { screen in
            session.output(after: mark).components(separatedBy: "▲").count - 1 >= 2
                && screen.cursorLine == "chirper> sea" && screen.cursorColumn == 12
                && screen.lines[screen.cursorRow - 10].contains("k┐")
        }
        session.type("\u{15}sono off\r")  // Ctrl-U clears the half-typed line first
        try await session.waitFor("the strip gone, the status line right above the prompt") { screen in
            !screen.lines.contains { $0.contains("k┐") || $0.contains("k┘") }
                && screen.lineAboveCursor.contains(" / 0:30") && screen.cursorLine == "chirper>"
        }
        // What was printed before stays as it was; the only new lines are the two commands and their answers; no
        // strip row was left behind anywhere.
        #expect(
            kept(session.current) == before + [
                "chirper> sono on",
                "Live strip on: 8 lines of 0-12 kHz in half-blocks, above the status line while a recording plays ·",
                "  sono off hides it", "chirper> sono off", "Live strip off · sono on shows it again",
            ])
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
        await pulse.stop()
    }

    @Test(
        "sono on in real pixels: one image a page over the strip's gutter, not sent again as the marker moves; sono off takes it away",
        .enabled(if: PulseHarness.unavailableReason == nil, "\(PulseHarness.unavailableReason ?? "")"),
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sixel2png"),
            "skipped: sixel2png (libsixel-bin) is not installed"),
        arguments: [
            ("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;20;10t\u{1B}[?62;22c", PixelProtocol.kitty),
            ("\u{1B}_Gi=31;ENOTSUPPORTED\u{1B}\\\u{1B}[6;20;10t\u{1B}[?62;4;22c", PixelProtocol.sixel),
        ])
    func pixelStrip(reply: String, pixels: PixelProtocol) async throws {
        let terminal = try await PlayingTerminal.start(graphicsReply: reply)
        defer { terminal.leave() }
        let (pulse, session) = (terminal.pulse, terminal.session)
        let start = session.outputCount
        session.type("sono on\r")
        // The picture lines keep only their gutter (the image is drawn over them); the marker line below.
        try await session.waitFor("the strip's gutter and marker above the status line") { screen in
            let rows = screen.lines
            let row = screen.cursorRow
            return row >= 10 && rows[row - 10].hasSuffix("k┐") && rows[row - 3].hasSuffix("k┘")
                && rows[row - 2].contains("▲") && rows[row - 1].contains(" / 0:30")
        }
        let mark = session.outputCount
        try await session.waitFor("the marker redrawn ten times (a second)") { _ in
            session.output(after: mark).components(separatedBy: "▲").count - 1 >= 10
        }
        // A page is 92 text columns (9.2 s): in that second the image was sent at most once more.
        let sent = session.output(after: start)
        let drawing = pixels == .kitty ? "\u{1B}_Gi=" : "\u{1B}P"
        #expect(session.output(after: mark).components(separatedBy: drawing).count - 1 <= 1)
        // The first image, decoded: 92 cells of 10 × 20 pixels wide, 8 lines high, with a sound drawn dark.
        let image = try #require(sent.range(of: drawing).map { sent[$0.lowerBound...] })
        let decoded = try await decode(String(image), as: pixels)
        #expect(decoded.width == 92 * 10, "\(decoded.width) × \(decoded.height)")
        #expect(abs(decoded.height - 8 * 20) <= 4, "whole sixel bands of 6 rows: \(decoded.height)")
        #expect(decoded.darkest < 128, "the sound is drawn")

        let before = session.outputCount
        session.type("sono off\r")
        try await session.waitFor("the strip gone, the status line right above the prompt") { screen in
            !screen.lines.contains { $0.contains("k┐") || $0.contains("k┘") }
                && screen.lineAboveCursor.contains(" / 0:30") && screen.cursorLine == "chirper>"
        }
        if pixels == .kitty {
            #expect(session.output(after: before).contains("a=d,d=I,i="), "kitty frees the image it kept")
        }
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
        await pulse.stop()
    }

    @Test(
        "Ctrl-C stops playback and drops the half-typed line; the program goes on, and quit restores the terminal",
        .enabled(if: PulseHarness.unavailableReason == nil, "\(PulseHarness.unavailableReason ?? "")")
    )
    func interruptStopsPlayback() async throws {
        let terminal = try await PlayingTerminal.start()
        defer { terminal.leave() }
        let (pulse, session) = (terminal.pulse, terminal.session)

        session.type("sea")
        try await session.waitFor("sea typed") { $0.cursorLine == "chirper> sea" }
        session.send(SIGINT)
        try await session.waitFor("playback stopped (idle)") { $0.transcript.contains { $0.contains("stopped at") } }
        try await session.waitFor("an empty prompt with no status line above it") {
            $0.cursorLine == "chirper>" && $0.cursorColumn == 9 && !$0.lineAboveCursor.contains("playing")
        }
        #expect(session.current.transcript.contains("chirper> sea^C"))
        #expect(session.exited == nil)

        // Ctrl-C typed as a key: the terminal sends SIGINT to the program, which keeps running.
        session.type("info")
        try await session.waitFor("info typed") { $0.cursorLine == "chirper> info" }
        session.type("\u{3}")
        try await session.waitFor("the typed line dropped") {
            $0.transcript.contains("chirper> info^C") && $0.cursorLine == "chirper>"
        }
        #expect(session.exited == nil)

        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
        #expect(TerminalModes(session.modes()) == TerminalModes(session.initialModes))
        await pulse.stop()
    }
}

/// A line of the help text.
private let helpMarker = "Ctrl-D or quit leaves"

/// chirper-play on a terminal of its own, with its history under `home` and the demo catalog (unless `environment`
/// gives a key).
func startChirper(
    _ arguments: [String],
    home: String,
    environment extra: [String: String] = [:],
    columns: Int = 100
) throws -> PTYSession {
    var environment = ProcessInfo.processInfo.environment
    for name in ["XENO_CANTO_API_KEY", "NO_COLOR", "LC_ALL", "LC_CTYPE", "EDITRC"] {
        environment[name] = nil
    }
    environment["HOME"] = home
    environment["XDG_STATE_HOME"] = home + "/state"
    environment["TERM"] = "xterm-256color"
    environment["LANG"] = "C.UTF-8"
    environment["CHIRPER_DEMO_CATALOG"] = ChirperBinary.packageRoot.appendingPathComponent("assets/demo").path
    environment.merge(extra) { _, new in new }
    return try PTYSession(
        executable: ChirperBinary.path, arguments: arguments, environment: environment, columns: columns)
}

/// A private PulseAudio server, and chirper-play on a terminal of its own playing the 30-second demo recording.
private struct PlayingTerminal {
    let pulse: PulseHarness
    let home: TemporaryFolder
    let session: PTYSession

    /// `graphicsReply`: what the terminal answers to the graphics query at start-up (typed ahead).
    static func start(graphicsReply: String = "") async throws -> PlayingTerminal {
        let pulse = try PulseHarness()
        try await pulse.start()
        let home = try TemporaryFolder()
        let session = try startChirper(["--output", "pulse"], home: home.path, environment: pulseEnvironment(pulse))
        if !graphicsReply.isEmpty { session.type(graphicsReply) }
        let terminal = PlayingTerminal(pulse: pulse, home: home, session: session)
        do {
            try await session.waitForPrompt()
            try await startLongPlayback(session)
        } catch {
            terminal.leave()
            await pulse.stop()
            throw error
        }
        return terminal
    }

    /// Ends the program and removes its home (the server is stopped by the test, at its end).
    func leave() {
        session.stop()
        home.remove()
    }
}

/// Finds the 30-second demo recording and plays it; returns once the status line says it is playing.
private func startLongPlayback(_ session: PTYSession) async throws {
    session.type("search nr:DEMO-24\r")
    try await session.waitFor("the one row of DEMO-24") { $0.transcript.contains { $0.contains("all listed") } }
    try await session.waitForPrompt()
    session.type("play 1\r")
    try await session.waitFor("the status line saying it plays") { $0.lineAboveCursor.contains("▶ playing") }
}

/// The client side of the private PulseAudio server.
func pulseEnvironment(_ pulse: PulseHarness) -> [String: String] {
    pulse.environment.filter { $0.key.hasPrefix("PULSE_") }
}

private func permissions(of path: String) throws -> Int? {
    try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
}

extension PTYSession {
    /// Waits for an empty prompt with the cursor after it.
    func waitForPrompt(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await waitFor("the prompt", sourceLocation: sourceLocation) {
            $0.cursorLine == "chirper>" && $0.cursorColumn == 9
        }
    }
}

/// The parts of a terminal's modes that a program must put back.
private struct TerminalModes: Equatable, CustomStringConvertible {
    var input, output, control, local: UInt32
    var characters: [UInt8]

    init(_ modes: termios) {
        input = modes.c_iflag
        output = modes.c_oflag
        control = modes.c_cflag
        local = modes.c_lflag
        characters = withUnsafeBytes(of: modes.c_cc) { Array($0) }
    }

    var description: String {
        "iflag=\(String(input, radix: 8)) oflag=\(String(output, radix: 8)) cflag=\(String(control, radix: 8)) "
            + "lflag=\(String(local, radix: 8)) cc=\(characters)"
    }
}

/// A folder of its own; `remove` when done.
struct TemporaryFolder {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/chirper-terminal.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw PTYError.system("mkdtemp", errno)
        }
        path = String(cString: made)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The size of an image drawn with a terminal graphics protocol, and its darkest grey: a kitty image from its
/// base64 payload, a sixel image through libsixel's `sixel2png`.
private func decode(_ escape: String, as pixels: PixelProtocol) async throws -> (width: Int, height: Int, darkest: Int)
{
    switch pixels {
    case .kitty:
        // The chunks' base64 joined is a PNG file (f=100).
        var bytes = Data()
        for chunk in escape.components(separatedBy: "\u{1B}_G").dropFirst() {
            guard let end = chunk.range(of: "\u{1B}\\") else { continue }
            let parts = chunk[..<end.lowerBound].split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            #expect(bytes.isEmpty ? parts[0].contains("f=100") : true)
            if parts.count == 2 { bytes += try #require(Data(base64Encoded: String(parts[1]))) }
            if parts[0].contains("m=0") { break }
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try bytes.write(to: URL(fileURLWithPath: folder.path + "/strip.png"))
        let png = try PNGFile.read(folder.path + "/strip.png")
        let darkest = (0..<png.height).flatMap { y in (0..<png.width).map { Int(png.grey(x: $0, y: y)) } }.min()
        return (png.width, png.height, darkest ?? 255)
    case .sixel:
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let end = try #require(escape.range(of: "\u{1B}\\"))
        try Data(escape[..<end.upperBound].utf8).write(to: URL(fileURLWithPath: folder.path + "/strip.six"))
        let decoding = try await Tool.run(
            "/usr/bin/sixel2png", ["-i", folder.path + "/strip.six", "-o", folder.path + "/strip.png"])
        #expect(decoding.status == 0)
        let png = try PNGFile.read(folder.path + "/strip.png")
        let darkest = (0..<png.height).flatMap { y in (0..<png.width).map { Int(png.grey(x: $0, y: y)) } }.min()
        return (png.width, png.height, darkest ?? 255)
    }
}
