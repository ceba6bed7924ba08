import Testing

@testable import ChirperAudio

@Suite("The connection to the sound server")
struct PulseConnectionTests {
    @Test("a caller that waits only after another closed the failed connection hears why it failed, not 'closed'")
    func lateWaiterHearsTheFailure() async throws {
        // The warm-up and the first play can take the same connection while it connects; the one that hears the
        // failure first closes it, and the other asks after that.
        let connection = try PulseConnection(
            server: "unix:/nonexistent/chirper-no-pulse", applicationName: "chirper-play tests",
            clock: ContinuousClock())
        let first = await #expect(throws: AudioSinkError.self) { try await connection.waitUntilReady() }
        connection.close()
        let late = await #expect(throws: AudioSinkError.self) { try await connection.waitUntilReady() }
        #expect(late == first)
        if case .noSoundServer = late {} else { Issue.record("the late caller heard \(String(describing: late))") }
    }
}
