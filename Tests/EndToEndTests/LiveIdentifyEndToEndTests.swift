import ChirperTestSupport
import Foundation
import Testing

/// The `start=` of a pipe line, in seconds.
private func start(_ line: String) -> Double? {
    line.split(separator: " ").first { $0.hasPrefix("start=") }.flatMap { Double($0.dropFirst(6)) }
}

/// The row just above the status line when it is `identify on`'s (`♪ species 0.92 …`, `♪ listening…`).
private func liveRow(_ screen: TerminalScreen) -> String? {
    let lines = screen.lines
    guard let status = lines.lastIndex(where: { $0.hasPrefix("▶ playing") || $0.hasPrefix("… buffering") }),
        status > 0
    else { return nil }
    let row = lines[status - 1]
    let live =
        row.hasPrefix("♪ ")
        && (row == "♪ listening…" || row == "♪ no species heard"
            || row.range(of: #" [01]\.\d\d$"#, options: .regularExpression) != nil)
    return live ? row : nil
}

@Suite(
    "identify on, on the binary by name, with the real BirdNET model", .serialized,
    .enabled(if: modelScenariosOnTheirOwn, "skipped here: make test runs these on their own (CHIRPER_MODEL_TESTS=1)"))
struct LiveIdentifyEndToEndTests {
    @Test(
        "identify on while a Dunnock recording plays and is seeked into: live lines on the 3 s grid, the Dunnock heard",
        .enabled(if: Installed.present, Installed.absent),
        .enabled(if: FileManager.default.fileExists(atPath: dunnockRecording), noDunnockRecording))
    func liveWhilePlaying() async throws {
        // Played at the pace of a sound server at its default latency, as heard.
        let pulse = try PulseHarness()
        try await pulse.start()
        // A seek to 0:46, inside the segment 45-48 s: from there the segments are those of the recording's grid.
        let run = try await runChirper(
            ["--output", "pulse", "--model-dir", Installed.model, dunnockRecording],
            input: ["identify on", "play 1", "seek 0:46", "wait", "identify off", "quit"],
            environment: Installed.environment.merging(pulseEnvironment(pulse)) { $1 }, timeout: .seconds(120))
        await pulse.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines("identify: listening on ").first?.contains("CC BY-NC-SA 4.0") == true, "\(run.stdout)")
        let live = run.lines("identify: live XC34430-dunnock-44k-mono-cbr128.mp3 ")
        #expect(live.contains { $0.contains(#"sci="Prunella modularis""#) }, "\(run.stdout)")
        let starts = live.compactMap(start)
        #expect(starts.count == live.count && starts.allSatisfy { $0.truncatingRemainder(dividingBy: 3) == 0 })
        #expect(starts.contains(45), "the segment entered by the seek is heard: \(live)")
        #expect(!starts.contains { $0 < 45 }, "what the decoder had before the seek was passed, not heard: \(live)")
        #expect(run.lines("identify: listening off").count == 1)
    }

    @Test(
        "identify on while a recording plays: the model loads and hears off the pool, and the sound never stalls",
        .enabled(if: Installed.present, Installed.absent),
        .enabled(if: FileManager.default.fileExists(atPath: dunnockRecording), noDunnockRecording))
    func turnedOnWhilePlaying() async throws {
        let pulse = try PulseHarness()
        try await pulse.start()
        let run = try await runChirper(
            ["--output", "pulse", "--model-dir", Installed.model, dunnockRecording],
            // From 0:10, a minute plays: the model (checked by its SHA-256, slow in a debug build) loads within it.
            input: ["play 1", "seek 0:10", "identify on", "wait", "quit"],
            environment: Installed.environment.merging(pulseEnvironment(pulse)) { $1 }, timeout: .seconds(120))
        await pulse.stop()
        #expect(run.status == 0, "\(run.stderr)")
        let playback = run.lines("playback: ")
        let playing = try #require(playback.firstIndex { $0.hasPrefix("playback: playing") }, "\(run.stdout)")
        #expect(
            !playback[playing...].contains { $0.hasPrefix("playback: buffering") || $0.hasPrefix("playback: failed") },
            "the sound ran dry while the model loaded: \(playback)")
        #expect(run.lines("identify: listening on ").count == 1, "\(run.stdout)")
        #expect(!run.lines("identify: live ").isEmpty, "\(run.stdout)")
    }

    @Test(
        "identify on at 80 columns: the row above the status line shows who sings in the segment playing",
        .enabled(if: Installed.present, Installed.absent),
        .enabled(if: FileManager.default.fileExists(atPath: dunnockRecording), noDunnockRecording))
    func liveOnATerminal() async throws {
        let pulse = try PulseHarness()
        try await pulse.start()
        let home = try TemporaryFolder()
        defer { home.remove() }
        let session = try startChirper(
            ["--output", "pulse", "--model-dir", Installed.model, dunnockRecording], home: home.path,
            environment: Installed.environment.merging(pulseEnvironment(pulse)) { $1 }, columns: 80)
        defer { session.stop() }
        try await session.waitForPrompt()
        session.type("identify on\r")
        try await session.waitFor("the model's credit", timeout: .seconds(60)) {
            $0.transcript.contains { $0.contains("CC BY-NC-SA 4.0") }
        }
        session.type("play 1\r")
        let heard = try await session.waitFor("a live row naming the Dunnock", timeout: .seconds(60)) {
            liveRow($0)?.hasPrefix("♪ Dunnock 0.") == true
        }
        let row = try #require(liveRow(heard))
        #expect(row.count <= 79, "fitted to the terminal: \(row)")
        session.type("identify off\r")
        try await session.waitFor("the live row gone") { liveRow($0) == nil }
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
        await pulse.stop()
    }
}

@Suite("identify on without a model, on the binary by name")
struct IdentifyLiveWithoutModelTests {
    @Test("identify on says once what is missing and how to get it, stays off, and the session goes on")
    func noModel() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-no-model-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await runChirper(
            ["--output", "null", "--model-dir", folder.path],
            input: ["identify on", "identify off", "search cnt:demoland", "quit"])
        #expect(run.status == 0, "\(run.stderr)")
        let errors = run.lines("error: ")
        #expect(errors.count == 2, "\(run.stdout)")
        #expect(errors.first?.contains("no BirdNET model in \(folder.path): run `make model`") == true, "\(errors)")
        #expect(errors.first?.contains("CC BY-NC-SA 4.0") == true)
        #expect(errors.last?.contains("identify is not on") == true, "\(errors)")
        #expect(run.lines("identify: listening").isEmpty)
        #expect(!run.lines("row: ").isEmpty, "the session went on")
    }
}
