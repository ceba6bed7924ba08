import ChirperTestSupport
import Foundation

/// A helper program (playerctl --follow, dbus-monitor) run beside a test, its output read line by line, so
/// that the test can wait for what it prints.
final class WatchedProcess: Sendable {
    private let process: Process
    private let lines: AsyncStream<String>
    private let seen = LockedStrings()

    /// Every line printed so far.
    var output: [String] { seen.all }

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        lines = readLines(stdout.fileHandleForReading, into: seen)
    }

    /// Returns once `condition` holds for the lines printed so far; throws after `deadline` (a hung helper).
    func waitFor(
        _ what: String, deadline: Duration = testDeadline, _ condition: @escaping @Sendable ([String]) -> Bool
    ) async throws {
        try await waitForLines(what, lines: lines, seen: seen, deadline: deadline, condition)
    }

    /// Ends it: SIGKILL to its pid. (A child inherits ignored signals, and other tests of this process ignore
    /// SIGTERM; Foundation's `isRunning` is not to be trusted for a child whose output is still being read.)
    func stop() {
        kill(process.processIdentifier, SIGKILL)
    }

    /// Sends it `signal` (SIGINT: as Ctrl-C in its terminal would).
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }
}

/// Reads `handle` line by line on a thread of its own (blocking reads must not hold a thread of the cooperative pool):
/// each line goes into `seen`, then into the stream, which ends with the output.
func readLines(_ handle: FileHandle, into seen: LockedStrings) -> AsyncStream<String> {
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    startBlocking("child-io") {
        var pending = Data()
        while true {
            let data = handle.availableData
            if data.isEmpty { break }
            pending.append(data)
            while let newline = pending.firstIndex(of: 0x0a) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                seen.append(line)
                continuation.yield(line)
            }
        }
        continuation.finish()
    }
    return stream
}

/// A loopback server's base URL, known only once it has started (a handler made before reads it later).
final class ServerBase: @unchecked Sendable {
    // @unchecked: written once before the server receives any request, then only read.
    var value = ""
}

/// Lines behind a lock, shared with a reading thread.
final class LockedStrings: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    var description: String
}

/// Waits on `lines` (read into `seen` before each is yielded) until `condition` holds for `seen`.
func waitForLines(
    _ what: String, lines: AsyncStream<String>, seen: LockedStrings, deadline: Duration,
    _ condition: @escaping @Sendable ([String]) -> Bool
) async throws {
    if condition(seen.all) { return }
    let met = try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await _ in lines where condition(seen.all) { return true }
            return condition(seen.all)
        }
        group.addTask {
            try await Task.sleep(for: deadline)  // a deadline for a hung helper, not a synchronisation
            return false
        }
        let first = try await group.next() ?? false
        group.cancelAll()
        return first
    }
    if !met {
        throw WaitTimedOut(description: "\(what) did not happen within \(deadline); last lines: \(seen.all.suffix(6))")
    }
}
