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
        case .buildQuizDeck(let id, _)? = start.first(where: { $0.isBuildQuizDeck })
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

    @Test("identify during a question is refused in one line: BirdNET would name the answer")
    func identifyGivesNothingAway() throws {
        var driver = try startedQuiz("quiz gen:sylvia --questions 1 --seed 5", presenter: script)
        let item = try #require(driver.playingItem)
        let progress = PlaybackProgress(
            item: item, ticket: PlaybackTicket(1), position: 3, duration: 8, loop: nil, segment: 1)
        _ = driver.send(.playback(.playing(progress)))
        let asked = driver.send(.typed("identify", columns: 100))
        #expect(!asked.contains { if case .identify = $0 { true } else { false } }, "\(asked)")
        #expect(
            lines(asked) == [
                #"error: "identify would give the quiz's answer away: answer first (or quiz stop), then identify""#
            ])
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

    @Test("sono mode draws each of a question's three pictures once, over the span their lengths give")
    func picturesDrawnOnce() async throws {
        var driver = QuizDriver()
        let (id, pictures) = try sonoPictures(&driver, deckRecordings)
        // The catalogue's lengths (8 s each) decide the span before anything is drawn.
        #expect(pictures.map(\.shape.window) == Array(repeating: TimeSpan(start: 0, end: 8), count: 3))
        let asked = AskedShapes()
        let drawn = try await QuizPicture.draw(pictures) { picture in
            await asked.add(picture)
            return try picture.drawn(from: 8)
        }
        let requests = await asked.shapes.map(\.item.label)
        #expect(requests == ["quiz-1-1", "quiz-1-2", "quiz-1-3"], "each picture drawn once")
        let shown = lines(driver.send(.quizPictures(id: id, .success(drawn))))
        #expect(shown.filter { $0.hasPrefix("quiz: picture ") }.count == 3)
    }

    @Test(
        "sono mode: where a length is unknown each picture is drawn, then only the longer ones again over the shortest's span"
    )
    func unknownLengthsDecidedFromFirstDrawing() async throws {
        var driver = QuizDriver()
        let unknown = deckRecordings.map { recording in
            var recording = recording
            recording.length = ""
            return recording
        }
        let (id, pictures) = try sonoPictures(&driver, unknown)
        #expect(pictures.allSatisfy { $0.shape.window?.duration == QuizPicture.longest })
        // The audio each has from its window's start: 2.9 s, 10 s and 3.9 s.
        let lengths = [2.9, 10, 3.9]
        let first = try pictures.indices.map { try pictures[$0].drawn(from: lengths[$0]) }
        let again = driver.send(.quizPictures(id: id, .success(first)))
        guard case .drawQuizPictures(let second, let longer)? = again.first(where: { $0.isQuizPictures }) else {
            Issue.record("the longer pictures were not drawn again: \(again)")
            return
        }
        #expect(longer.map(\.item.label) == ["quiz-1-2", "quiz-1-3"])
        #expect(longer.map(\.shape.window) == Array(repeating: TimeSpan(start: 0, end: 2.9), count: 2))
        #expect(lines(again).isEmpty)
        let redrawn = try longer.map { try $0.drawn(from: 10) }
        let shown = driver.send(.quizPictures(id: second, .success(redrawn)))
        #expect(!shown.contains { $0.isQuizPictures })
        #expect(lines(shown).filter { $0.hasPrefix("quiz: picture ") }.count == 3)
    }

    @Test("sono mode: a recording with no audio where its picture starts is one line, and nothing is drawn")
    func noAudioIsOneLine() throws {
        var driver = QuizDriver()
        let silent = deckRecordings.map { recording in
            var recording = recording
            recording.length = "0:00"
            return recording
        }
        let start = driver.send(typed("quiz gen:sylvia --mode sono --questions 2 --seed 8"))
        guard case .buildQuizDeck(let deck, _)? = start.first(where: { $0.isBuildQuizDeck }) else {
            Issue.record("no deck asked for: \(start)")
            return
        }
        let asked = driver.send(.quizDeck(id: deck, .success(silent)))
        #expect(!asked.contains { $0.isQuizPictures })
        #expect(
            lines(asked).filter { $0.hasPrefix("error:") } == [
                #"error: "sono: no pictures: a recording has no audio where its picture starts; skip goes on to the next question""#
            ])
    }

    @Test("the span is what the shortest picture has from its start, at most 10 s")
    func commonSpan() {
        #expect(QuizPicture.commonSpan([12, 30, 14]) == 10)
        #expect(QuizPicture.commonSpan([12, 3.5, 14]) == 3.5)
    }
}

/// Starts a sono-mode quiz on `deck`; the work drawing question 1's pictures, and the pictures.
private func sonoPictures(_ driver: inout QuizDriver, _ deck: [Recording]) throws -> (Int, [QuizPicture]) {
    let start = driver.send(typed("quiz gen:sylvia --mode sono --questions 2 --seed 8"))
    guard case .buildQuizDeck(let id, _)? = start.first(where: { $0.isBuildQuizDeck }) else {
        Issue.record("no deck asked for: \(start)")
        throw CancellationError()
    }
    let asked = driver.send(.quizDeck(id: id, .success(deck)))
    guard case .drawQuizPictures(let picturesID, let pictures)? = asked.first(where: { $0.isQuizPictures }) else {
        Issue.record("no pictures asked for: \(asked)")
        throw CancellationError()
    }
    return (picturesID, pictures)
}

private func typed(_ line: String) -> SessionMachine.Event { .typed(line, columns: 100) }

extension QuizPicture {
    /// Its picture, of a recording with `length` seconds of audio from the picture's start.
    fileprivate func drawn(from length: Double) throws -> Sonogram {
        let window = try #require(shape.window)
        return Sonogram(
            rows: 1, columns: 1, levels: [0], maxFrequency: 12_000, duration: min(window.duration, length),
            startTime: window.start, sampleRate: 24_000)
    }
}

private actor AskedShapes {
    var shapes: [QuizPicture] = []
    func add(_ picture: QuizPicture) { shapes.append(picture) }
}
