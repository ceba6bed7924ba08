import ChirperCore
import Foundation
import Testing

@testable import ChirperREPL

/// A quiz session whose lines are `presenter`'s, started on the test deck; returns its driver at question 1.
private func startedQuiz(_ command: String, presenter: Presenter, interactive: Bool = false) throws -> QuizDriver {
    var driver = QuizDriver()
    driver.machine = SessionMachine(
        .init(
            interactive: interactive, presenter: presenter, saveDirectory: "/saves", homeDirectory: "/home/birder",
            seed: 11))
    let start = driver.send(.typed(command, columns: 100))
    guard
        case .buildQuizDeck(let id, _)? = start.first(where: { if case .buildQuizDeck = $0 { true } else { false } })
    else {
        Issue.record("\(command) did not ask for its deck: \(start)")
        throw CancellationError()
    }
    _ = driver.send(.quizDeck(id: id, .success(deckRecordings)))
    return driver
}

private func lines(_ actions: [SessionMachine.Action]) -> [String] {
    actions.flatMap { action -> [String] in
        if case .print(let lines) = action { return lines }
        return []
    }
}

/// The status lines `actions` drew.
private func statuses(_ actions: [SessionMachine.Action]) -> [String] {
    actions.compactMap { action -> String? in
        if case .status(let rows, _) = action { rows.last } else { nil }
    }
}

@Suite("The quiz's pace, and what a question shows while it is open")
struct QuizPaceTests {
    private let script = Presenter(style: .script, width: 100, sourceName: "the test catalog")
    private let terminal = Presenter(style: .terminal(color: false), width: 80, sourceName: "the test catalog")

    @Test("after an answer the quiz waits: numbers are refused, replay plays it named, then Enter or next goes on")
    func waitsForNext() throws {
        var driver = try startedQuiz("quiz gen:sylvia --questions 2 --seed 5", presenter: script)
        let truth = try #require(driver.playing)
        let answered = lines(driver.send(.typed(truth.englishName, columns: 100)))
        #expect(answered.first?.hasPrefix("quiz: answer right") == true)
        #expect(answered.last == "quiz: waiting answered=1 of=2")
        #expect(!driver.lines.contains { $0.hasPrefix("quiz: question n=2") }, "the next question waits")
        let late = lines(driver.send(.typed("2", columns: 100)))
        #expect(late.count == 1 && late[0].hasPrefix("error: ") && late[0].contains("answered"), "\(late)")
        // A command typed wrong meanwhile is told its own mistake.
        let typo = lines(driver.send(.typed("speed 5", columns: 100)))
        #expect(typo.count == 1 && typo[0].contains("speed") && !typo[0].contains("answered"), "\(typo)")

        // replay: the same recording, now under its own name, with its attribution.
        _ = driver.send(.typed("replay", columns: 100))
        #expect(driver.playingItem?.label == truth.label && driver.playing == truth)
        let heard = lines(
            driver.send(
                .playback(.buffering(PlaybackProgress(item: driver.playingItem!, ticket: PlaybackTicket(2))))))
        #expect(heard.contains { $0.hasPrefix("attribution: \(truth.label) ") }, "\(heard)")

        #expect(lines(driver.send(.typed("", columns: 100))).first?.hasPrefix("quiz: question n=2 of=2 ") == true)
        let second = try #require(driver.playing)
        _ = driver.send(.typed(second.englishName, columns: 100))
        #expect(driver.lines.last == "quiz: waiting answered=2 of=2")
        #expect(lines(driver.send(.typed("next", columns: 100))).first == "quiz: score right=2 asked=2")
        #expect(!driver.machine.quizMachine.isOn)
    }

    @Test("--auto asks the next question as soon as the answer is kept, as before")
    func auto() throws {
        var driver = try startedQuiz("quiz gen:sylvia --questions 2 --seed 5 --auto", presenter: script)
        let truth = try #require(driver.playing)
        let answered = lines(driver.send(.typed(truth.englishName, columns: 100)))
        #expect(answered.first?.hasPrefix("quiz: answer right") == true)
        #expect(answered.last?.hasPrefix("quiz: question n=2 of=2 mode=choice choices=[") == true, "\(answered)")
        #expect(!answered.contains { $0.hasPrefix("quiz: waiting") })
    }

    @Test("in a pipe a question's playback lines give its name and the time heard: no position, duration or loop")
    func maskedPlaybackLines() throws {
        var driver = try startedQuiz("quiz gen:sylvia --questions 1 --seed 5", presenter: script)
        let item = try #require(driver.playingItem)
        // A long recording's excerpt plays as a section from 37 s: 3 s of it heard.
        let progress = PlaybackProgress(
            item: item, ticket: PlaybackTicket(1), position: 40, duration: 612,
            loop: LoopSection(start: 37, end: 57, once: true), segment: 1)
        let shown = lines(driver.send(.playback(.playing(progress))))
        #expect(shown == ["playback: playing quiz-1 elapsed=3.0"])
        // Once answered, nothing is left to give away: the rest of it plays with its place and length.
        #expect(driver.machine.masksPlayback(PlaybackTicket(1)))
        let truth = try #require(driver.playing)
        _ = driver.send(.typed(truth.englishName, columns: 100))
        #expect(!driver.machine.masksPlayback(PlaybackTicket(1)))
        #expect(driver.machine.playing?.recording == truth)
    }

    @Test("sono during a question draws what is heard with its times from 0, not its place in the recording")
    func sonoOfTheQuestion() throws {
        var driver = try startedQuiz("quiz gen:sylvia --questions 1 --seed 5", presenter: script)
        let item = try #require(driver.playingItem)
        let progress = PlaybackProgress(
            item: item, ticket: PlaybackTicket(1), position: 3, duration: 8, loop: LoopSection(start: 2, end: 6),
            segment: 1)
        _ = driver.send(.playback(.playing(progress)))
        // A window past its end is refused without its length.
        #expect(
            lines(driver.send(.typed("sono 0:09-0:10", columns: 100))) == [
                #"error: "the window starts after quiz-1 ends; ask for an earlier one""#
            ])
        let asked = driver.send(.typed("sono", columns: 100))
        guard
            case .drawSonogram(let id, let drawn, let shape)? = asked.first(where: {
                if case .drawSonogram = $0 { true } else { false }
            })
        else {
            Issue.record("sono drew nothing: \(asked)")
            return
        }
        #expect(drawn.label == "quiz-1" && shape.window == TimeSpan(start: 2, end: 6))
        let picture = Sonogram(
            rows: shape.rows, columns: shape.columns, levels: Array(repeating: 0.5, count: shape.rows * shape.columns),
            maxFrequency: 12_000, duration: 4, startTime: 2, sampleRate: 24_000)
        let shown = lines(driver.send(.sonogram(id: id, .success(picture))))
        #expect(shown.first?.hasPrefix("sono: quiz-1 0-12.0kHz 0.0-4.0s ") == true, "\(shown.first ?? "")")
    }

    @Test("on a terminal a question's status line shows quiz-N and the time heard only; its end no time")
    func maskedStatusLine() throws {
        var driver = try startedQuiz("quiz gen:sylvia --questions 1 --seed 5", presenter: terminal, interactive: true)
        let item = try #require(driver.playingItem)
        let progress = PlaybackProgress(
            item: item, ticket: PlaybackTicket(1), position: 3.4, duration: 25, buffered: 4.2)
        #expect(statuses(driver.send(.playback(.playing(progress)))) == ["▶ playing quiz-1 0:03"])
        let ended = driver.send(
            .playback(.idle(PlaybackEnding(item: item, ticket: PlaybackTicket(1), position: 25, reason: .finished))))
        #expect(lines(ended) == ["■ quiz-1 finished"])

        // Answered, the recording replayed under its name shows its time and length again.
        let truth = try #require(driver.playing)
        _ = driver.send(.typed(truth.englishName, columns: 100))
        _ = driver.send(.typed("replay", columns: 100))
        let named = PlaybackProgress(item: driver.playingItem!, ticket: PlaybackTicket(2), position: 1, duration: 8)
        let status = try #require(statuses(driver.send(.playback(.playing(named)))).last)
        #expect(status.hasPrefix("▶ playing \(truth.label) \(truth.englishName) 0:01 / 0:08"), "\(status)")
    }

    @Test("sono mode draws every picture over the shortest one's audio, at most 10 s")
    func picturesShareASpan() async throws {
        let shape = SonogramShape(
            columns: 72, rows: 16, maxFrequency: 12_000, minFrequency: 0, window: TimeSpan(start: 0, end: 10))
        var late = shape
        late.window = TimeSpan(start: 30, end: 40)
        let pictures = [
            QuizPicture(item: PlayItem(label: "quiz-1-1", location: .remote("https://a/1")), shape: shape),
            QuizPicture(item: PlayItem(label: "quiz-1-2", location: .remote("https://a/2")), shape: late),
            QuizPicture(item: PlayItem(label: "quiz-1-3", location: .remote("https://a/3")), shape: shape),
        ]
        // The audio each has from its window's start: 2.9 s, 10 s (of a long one) and 3.9 s.
        let lengths = ["quiz-1-1": 2.9, "quiz-1-2": 10.0, "quiz-1-3": 3.9]
        let asked = AskedShapes()
        let drawn = try await QuizPicture.draw(pictures) { picture in
            await asked.add(picture)
            let window = try #require(picture.shape.window)
            let seconds = min(window.duration, lengths[picture.item.label]!)
            return Sonogram(
                rows: 1, columns: 1, levels: [0], maxFrequency: 12_000, duration: seconds, startTime: window.start,
                sampleRate: 24_000)
        }
        #expect(drawn.allSatisfy { abs($0.duration - 2.9) < 1e-9 }, "\(drawn.map(\.duration))")
        let final = await asked.shapes.suffix(3)
        #expect(
            final.map(\.shape.window) == [
                TimeSpan(start: 0, end: 2.9), TimeSpan(start: 30, end: 32.9), TimeSpan(start: 0, end: 2.9),
            ])
        #expect(final.allSatisfy { $0.shape.columns == 72 && $0.shape.rows == 16 })
        #expect(QuizPicture.commonSpan([12, 30, 14]) == 10)
    }
}

private actor AskedShapes {
    var shapes: [QuizPicture] = []
    func add(_ picture: QuizPicture) { shapes.append(picture) }
}
