import ChirperTestSupport
import Foundation
import Testing

/// The quiz on a pseudo-terminal of 80 columns, heard through a private sound server at its default latency.
@Suite(
    "The quiz on a terminal", .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"),
    .enabled(if: PulseHarness.unavailableReason == nil, "\(PulseHarness.unavailableReason ?? "")"))
struct QuizTerminalTests {
    @Test(
        "a question's status line shows quiz-1 and the time heard only; after the answer replay names it, Enter goes on"
    )
    func statusLineAndPace() async throws {
        let pulse = try PulseHarness()
        try await pulse.start()
        let home = try TemporaryFolder()
        defer { home.remove() }
        let session = try startChirper(
            ["--output", "pulse"], home: home.path, environment: pulseEnvironment(pulse), columns: 80)
        defer { session.stop() }
        try await session.waitForPrompt()
        // This seed asks DEMO-09 first, one of the longer recordings: its status line stands long enough to be read.
        session.type("quiz gen:synthetica --questions 2 --seed 15\r")
        let asked = try await session.waitFor("the question's status line") {
            $0.lineAboveCursor.hasPrefix("▶ playing quiz-1 0:0")
        }
        let shown = asked.lineAboveCursor
        #expect(shown.range(of: #"^▶ playing quiz-1 0:0\d$"#, options: .regularExpression) != nil, "\(shown)")

        session.type("1\r")
        try await session.waitFor("the wait for next") {
            $0.transcript.contains { $0.hasPrefix("next (or Enter) for question 2 of 2; replay") }
        }
        #expect(!session.current.transcript.contains { $0.contains("Question 2 of 2") })
        session.type("replay\r")
        try await session.waitFor("the answered recording playing under its name, with its length") {
            $0.lineAboveCursor.range(of: #"^▶ playing DEMO-09 .* / 0:0\d"#, options: .regularExpression) != nil
        }
        session.type("\r")
        try await session.waitFor("question 2, asked by Enter") {
            $0.transcript.contains { $0.hasPrefix("Question 2 of 2") }
        }
        session.type("quiz stop\r")
        try await session.waitFor("the score") { $0.transcript.contains { $0.hasPrefix("Score: ") } }
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
        await pulse.stop()
    }
}
