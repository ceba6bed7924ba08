import Foundation

/// An external program's exit status and what it wrote to standard output.
public struct ToolResult: Sendable {
    public var status: Int32
    public var output: Data
}

/// Runs external programs (sox, lame, mpg123, …) for test fixtures without blocking a thread of Swift's
/// cooperative pool: the program is started and waited for on a thread of its own. Tests run in parallel on
/// that pool (two threads on two cores); a synchronous `waitUntilExit` there holds a thread for as long as the
/// encoder runs, and many at once can keep a player's feed and a loopback server from running for seconds.
public enum Tool {
    /// Runs `path` with `arguments` to its end; `captureOutput` keeps its standard output (else discarded).
    /// Standard error is discarded.
    public static func run(_ path: String, _ arguments: [String], captureOutput: Bool = false) async throws
        -> ToolResult
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        let pipe = captureOutput ? Pipe() : nil
        process.standardOutput = pipe ?? FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do {
                    try process.run()
                    let output = pipe?.fileHandleForReading.readDataToEndOfFile() ?? Data()
                    process.waitUntilExit()
                    continuation.resume(returning: ToolResult(status: process.terminationStatus, output: output))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Runs a shell command line (`/bin/sh -c`) to its end.
    public static func shell(_ command: String) async throws -> ToolResult {
        try await run("/bin/sh", ["-c", command])
    }
}
