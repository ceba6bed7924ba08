import ChirperCatalog
import ChirperCore
import Dispatch
import Foundation
import Testing

@testable import ChirperREPL

/// A quiz store whose `load` says it was called, then waits until the test lets it answer (with nothing
/// known). Any other call is a test failure.
final class HeldQuizStore: QuizKeeping {
    let entered: AsyncStream<Void>
    private let enteredSink: AsyncStream<Void>.Continuation
    private let gate = DispatchSemaphore(value: 0)

    init() {
        (entered, enteredSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .unbounded)
    }

    /// Lets the held `load` answer.
    func release() { gate.signal() }

    func load(_ deck: QuizDeck, at now: Date) throws -> QuizProgress {
        enteredSink.yield()
        gate.wait()
        return QuizProgress()
    }

    func keep(_ answer: QuizAnswerRecord, at now: Date) throws -> CardMemory {
        Issue.record("unexpected answer kept: \(answer.card)")
        return answer.memory(at: now)
    }

    func stats(at now: Date) throws -> QuizStats {
        Issue.record("unexpected quiz stats")
        throw CocoaError(.featureUnsupported)
    }

    func exportRows() throws -> [[String]] {
        Issue.record("unexpected quiz export")
        return []
    }
}

/// The quiz deck of the quiz session tests, whatever is asked.
struct FixedQuizDeck: QuizDeckSource {
    func recordings(for origin: QuizOrigin) async throws -> [Recording] { deckRecordings }
}

@Suite("The REPL's requests, answered off the runner")
struct REPLRequestsTests {
    @Test(
        "Ctrl-C while the quiz's store is read is taken after the store answered: the first question plays, then stops",
        .timeLimit(.minutes(1)))
    func interruptWhileTheStoreAnswers() async {
        let console = ScriptedConsole(["quiz gen:sylvia --seed 3"], keepOpen: true)
        let player = ScriptedPlayer([.init(call: .play("quiz-1")), .init(call: .stop), .init(call: .stop)])
        let store = HeldQuizStore()
        let repl = REPL(
            console: console, list: ListController(source: OnePageSource(recordings: Fixture.all)), player: player,
            sonograms: NoSonograms(), presenter: Presenter(style: .script, width: 100, sourceName: "the test catalog"),
            quiz: QuizKit(decks: FixedQuizDeck(), store: store))
        async let status = repl.run(banner: [])
        for await _ in store.entered { break }
        // The store is still reading: the interrupt waits for its answer, as it did when the runner waited.
        repl.send(.interrupt)
        store.release()
        console.endInput()
        #expect(await status == 0)
        #expect(player.calls == [.play("quiz-1"), .stop, .stop, .shutdown])
        let presenter = Presenter(style: .script, width: 100, sourceName: "the test catalog")
        #expect(console.printed.last == presenter.quizScore(right: 0, asked: 0))
    }
}
