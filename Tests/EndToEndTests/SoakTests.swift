import ChirperTestSupport
import Foundation
import Testing

/// One chirper-play process kept running: commands are written over time, and its output is read line by
/// line, so a test can wait for the answer to a command before sending more.
final class ChirperSession: Sendable {
    private let process: Process
    private let input: FileHandle
    private let lines: AsyncStream<String>
    private let seen = LockedStrings()

    var pid: Int32 { process.processIdentifier }
    /// Every line printed so far.
    var output: [String] { seen.all }

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let process = ChirperBinary.process(arguments, environment: environment)
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        self.input = stdin.fileHandleForWriting
        self.lines = readLines(stdout.fileHandleForReading, into: seen)
    }

    /// Writes `commands` (one a line), then a marker command, and waits until the marker's answer is printed:
    /// every command before it has been handled (pipe mode handles commands in order).
    func run(_ commands: [String], marker: String) async throws {
        let text = (commands + [marker]).map { $0 + "\n" }.joined()
        try input.write(contentsOf: Data(text.utf8))
        let lines = self.lines
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await line in lines where line.contains(marker) { return true }
                return false
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))  // a deadline for a hung child, not a synchronisation
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !answered {
            let tail = output.suffix(8).joined(separator: "\n")
            throw SoakFailure("chirper-play did not answer \(marker) within 30 s; it printed last:\n\(tail)")
        }
    }

    /// Quits and waits for the exit.
    func quit() async throws {
        try input.write(contentsOf: Data("quit\n".utf8))
        try input.close()
        _ = await waitForExitStatus()
    }

    /// Returns once `condition` holds for every line printed so far (lines read by `run` count too).
    func waitFor(
        _ what: String, deadline: Duration = testDeadline, _ condition: @escaping @Sendable ([String]) -> Bool
    ) async throws {
        try await waitForLines(what, lines: lines, seen: seen, deadline: deadline, condition)
    }

    /// Writes `text` to its input as is (no marker, nothing awaited).
    func write(_ text: String) throws {
        try input.write(contentsOf: Data(text.utf8))
    }

    /// Waits for the child to end (on a thread of its own: a blocking wait must not hold a thread of the cooperative
    /// pool, which the loopback servers and players of tests running beside it need); its status.
    func waitForExitStatus() async -> Int32 {
        let process = self.process
        return await withCheckedContinuation { continuation in
            startBlocking("child-io") {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }

    /// Kills the child if it still runs (after a failure).
    func kill() {
        if process.isRunning { process.terminate() }
    }

    /// Resident memory in kB (`VmRSS` of /proc/PID/status).
    func residentKB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw SoakFailure("no VmRSS in /proc/\(pid)/status") }
        return kb
    }

    /// Open file descriptors (entries of /proc/PID/fd).
    func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }
}

struct SoakFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite("Soak", .serialized)
struct SoakTests {
    @Test(
        "one process, 200 play/stop cycles and 100 searches with paging (--output null): RSS grows < 5 MB, fds return",
        .enabled(if: ChirperBinary.exists, "skipped: the chirper-play binary is not built"),
        .timeLimit(.minutes(3))
    )
    func soakNull() async throws {
        let session = try ChirperSession(["--output", "null", "--per-page", "2"])
        defer { session.kill() }
        try await soak(session, output: "null")
    }

    @Test(
        "the same soak playing in real time to a private PulseAudio: RSS grows < 5 MB, fds return",
        .enabled(if: ChirperBinary.exists, "skipped: the chirper-play binary is not built"),
        .enabled(if: PulseHarness.unavailableReason == nil, "\(PulseHarness.unavailableReason ?? "")"),
        .timeLimit(.minutes(3))
    )
    func soakPulse() async throws {
        let pulse = try PulseHarness()
        try await pulse.start()
        let environment = pulse.environment.filter { $0.key.hasPrefix("PULSE_") }
        let session = try ChirperSession(["--output", "pulse", "--per-page", "2"], environment: environment)
        defer { session.kill() }
        try await soak(session, output: "pulse")
        await pulse.stop()
    }
}

/// 200 play/stop cycles and 100 searches paged twice each, after a warm-up; samples RSS and open fds after the
/// warm-up and at the end, and prints the figures.
///
/// `stops refused` counts stops answered "nothing is playing": with `--output null` the track is often over
/// already; with PulseAudio it shows the REPL acting on a stale playback state right after `play`.
private func soak(_ session: ChirperSession, output: String) async throws {
    var marks = 0
    func mark() -> String {
        marks += 1
        return "soak-mark-\(marks)"
    }
    /// `searches` searches, each paged twice, then `cycles` play/stop cycles over the rows loaded.
    func batch(cycles: Int, searches: Int) async throws {
        var commands: [String] = []
        for search in 0..<searches {
            commands += [search % 2 == 0 ? "search en:trill" : "search q:A", "next-page", "next-page"]
        }
        try await session.run(commands, marker: mark())
        for cycle in 0..<cycles {
            // The marker after `play` gives the REPL a round trip to see the track start before `stop`.
            try await session.run(["play \(cycle % 5 + 1)"], marker: mark())
            try await session.run(["stop"], marker: mark())
        }
    }

    // Warm-up: the first searches and plays load the code paths, the decoder and the allocator's pools.
    for _ in 0..<4 { try await batch(cycles: 5, searches: 2) }
    try await session.run(["stop"], marker: mark())
    let startRSS = try session.residentKB()
    let startFDs = try session.openDescriptors()

    for _ in 0..<20 { try await batch(cycles: 10, searches: 5) }
    try await session.run(["stop"], marker: mark())
    let endRSS = try session.residentKB()
    let endFDs = try session.openDescriptors()

    let lines = session.output
    try await session.quit()
    let plays = lines.filter { $0.hasPrefix("playback: buffering") }.count
    let searches = lines.filter { $0.hasPrefix("list: loading query=") }.count
    let refused = lines.filter { $0 == #"error: "nothing is playing""# }.count
    print(
        "soak (--output \(output)): rss start=\(startRSS) kB end=\(endRSS) kB growth=\(endRSS - startRSS) kB; "
            + "fds start=\(startFDs) end=\(endFDs); plays seen=\(plays) searches seen=\(searches) "
            + "stops refused (track already over)=\(refused)")
    #expect(endRSS - startRSS < 5 * 1024, "RSS grew from \(startRSS) kB to \(endRSS) kB")
    #expect(endFDs == startFDs, "open fds went from \(startFDs) to \(endFDs)")
    #expect(!lines.contains { $0.hasPrefix("playback: failed") }, "a play failed")
    // Every command was handled: each batch's marker was answered in order. A play that ends or is replaced
    // before the status is printed may not show `buffering`, so `plays` is a figure, not a check.
    #expect(searches >= 100)
}
