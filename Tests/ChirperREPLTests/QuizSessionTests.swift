import ChirperCatalog
import ChirperCore
import Foundation
import Testing

@testable import ChirperREPL

private let script = Presenter(style: .script, width: 100, sourceName: "the test catalog")

/// Six species in three genera (two each), each with a song and a call; and a restricted row.
let deckRecordings: [Recording] = {
    let species = [
        ("Sylvia", "atricapilla", "Eurasian Blackcap"), ("Sylvia", "borin", "Garden Warbler"),
        ("Phylloscopus", "collybita", "Common Chiffchaff"), ("Phylloscopus", "trochilus", "Willow Warbler"),
        ("Turdus", "merula", "Common Blackbird"), ("Turdus", "philomelos", "Song Thrush"),
    ]
    var recordings: [Recording] = []
    for (index, (genus, name, english)) in species.enumerated() {
        for (offset, type) in ["song", "call"].enumerated() {
            let id = String(700_000 + index * 10 + offset)
            recordings.append(
                Recording(
                    id: id, genus: genus, species: name, englishName: english, recordist: "Recordist \(id)",
                    soundType: type, pageURL: "https://xeno-canto.org/\(id)",
                    licenceURL: "https://creativecommons.org/licenses/by/4.0/", length: "0:08",
                    audio: .playable(.remote("https://xeno-canto.org/\(id)/download"))))
        }
    }
    recordings.append(
        Recording(id: "799999", genus: "Strix", species: "secreta", englishName: "Secret Owl", audio: .restricted))
    return recordings
}()

private func quizSession() -> SessionMachine {
    SessionMachine(
        .init(
            interactive: false, presenter: script, saveDirectory: "/saves", homeDirectory: "/home/birder", seed: 11))
}

private func typed(_ line: String) -> SessionMachine.Event { .typed(line, columns: 100) }

/// A session that ran `command` and was given its deck, `deckRecordings`: the quiz waits for the store's
/// memories. Nil (an issue recorded) when the quiz asked for no deck.
private func quizWithDeck(_ command: String) -> SessionMachine? {
    var machine = quizSession()
    let start = machine.handle(typed(command))
    guard case .buildQuizDeck(let id, _)? = start.first(where: { $0.isBuildQuizDeck })
    else {
        Issue.record("quiz did not ask for its deck: \(start)")
        return nil
    }
    _ = machine.handle(.quizDeck(id: id, .success(deckRecordings)))
    return machine
}

/// Everything printed by `actions`.
private func printed(_ actions: [SessionMachine.Action]) -> [String] {
    actions.flatMap { action -> [String] in
        if case .print(let lines) = action { return lines }
        return []
    }
}

/// A quiz driven the way its runner would: each request answered at once, the clock moved by `step` per answer.
struct QuizDriver {
    var machine = quizSession()
    var now = Date(timeIntervalSince1970: 1_800_000_000)
    var tickets: UInt64 = 0
    /// The last question's real recording (the play request carries it; only the test looks).
    var playing: Recording?
    /// The item the player was asked to play for it.
    var playingItem: PlayItem?
    var kept: [QuizAnswerRecord] = []
    var lines: [String] = []

    /// Takes `event`, answers every request it made (recursively), and returns every action.
    mutating func send(_ event: SessionMachine.Event) -> [SessionMachine.Action] {
        let actions = machine.handle(event)
        lines += printed(actions)
        var all = actions
        for action in actions {
            guard case .request(let request) = action else { continue }
            all += send(.answered(answer(request)))
        }
        return all
    }

    mutating func answer(_ request: SessionMachine.Request) -> SessionMachine.Answer {
        switch request {
        case .loadQuiz:
            return .quiz(.loaded(.success(QuizProgress()), now: now))
        case .play(let item, let recording, let forQueue):
            if machine.quizMachine.openQuestion != nil {
                #expect(item.label.hasPrefix("quiz-"), "a question plays under a name that gives nothing away")
            }
            tickets += 1
            playing = recording
            playingItem = item
            return .started(PlaybackTicket(tickets), recording, forQueue: forQueue)
        case .keepQuizAnswer(let record):
            kept.append(record)
            now += 5
            return .quiz(.kept(record.memory(at: now), now: now, .accepted))
        case .stop(let cause):
            return .stopped(.accepted, cause)
        default:
            Issue.record("the quiz made a request it should not: \(request)")
            return .searched(.accepted)
        }
    }
}

@Suite("A quiz session, one event at a time")
struct QuizSessionTests {
    @Test(
        "20 scripted questions: nothing names the recording before its answer, the score and schedule follow the answers"
    )
    func twentyQuestions() throws {
        var driver = QuizDriver()
        let start = driver.send(typed("quiz gen:sylvia --questions 20"))
        guard
            case .buildQuizDeck(let id, let origin)? = start.first(where: { $0.isBuildQuizDeck })
        else {
            Issue.record("quiz did not ask for its deck: \(start)")
            return
        }
        #expect(origin == .query(try SearchQuery.parse("gen:sylvia")))
        _ = driver.send(.quizDeck(id: id, .success(deckRecordings)))
        #expect(driver.lines.contains("quiz: deck name=\"gen:sylvia\" species=6 recordings=12 cards=12"))

        var rightAnswers = 0
        var askedAt: [QuizCard: [Int]] = [:]
        for number in 1...20 {
            let questionLine = try #require(driver.lines.last { $0.hasPrefix("quiz: question n=\(number) of=20 ") })
            let truth = try #require(driver.playing)
            askedAt[QuizCard(species: "\(truth.genus) \(truth.species)", sound: .init(truth.soundType)), default: []]
                .append(number)
            // What a user sees while the question is open: its playback lines and the status.
            let heard = driver.send(
                .playback(
                    .playing(
                        PlaybackProgress(
                            item: driver.playingItem!, ticket: PlaybackTicket(driver.tickets), position: 2.5,
                            duration: 8.1))))
            let shownBefore = driver.lines.drop { !$0.hasPrefix("quiz: question n=\(number) of=20 ") }
            for line in Array(shownBefore) + printed(heard) {
                // The question line offers the names among the others, as every choice is offered.
                let offered = line == questionLine ? [] : [truth.englishName, truth.scientificName]
                // Its length and place tell a recording apart too.
                for secret in offered + [truth.label, truth.recordist, truth.id, "duration=", "8.1", "position="] {
                    #expect(!line.contains(secret), "question \(number) gives away '\(secret)': \(line)")
                }
            }
            // Choices: the other species of the same genus is always offered (genus first).
            let sibling = deckRecordings.first { $0.genus == truth.genus && $0.species != truth.species }!
            #expect(questionLine.contains(sibling.englishName), "\(questionLine)")
            #expect(questionLine.matches(of: /\{"n":[1-4],"en":"[^"]+","sci":"[^"]+"\}/).count == 4, "\(questionLine)")
            // Right on two questions of three; wrong on the third, naming the sibling.
            let right = number % 3 != 0
            let answer = right ? truth.englishName : sibling.englishName
            let answered = printed(driver.send(typed(answer)))
            let verdict = try #require(answered.first { $0.hasPrefix("quiz: answer ") })
            #expect(
                verdict.hasPrefix(
                    "quiz: answer \(right ? "right" : "wrong") id=\"\(truth.label)\" species=\"\(truth.scientificName)\""
                ))
            #expect(verdict.contains("licence=\"CC BY 4.0\""))
            #expect(answered.last == "quiz: waiting answered=\(number) of=20")
            if right { rightAnswers += 1 }
            _ = driver.send(typed(number % 2 == 0 ? "next" : ""))
        }
        #expect(driver.lines.last == "quiz: score right=\(rightAnswers) asked=20")
        #expect(driver.kept.count == 20)
        #expect(driver.kept.filter(\.right).count == rightAnswers)

        // The schedule: every card answered wrong is due again sooner than any card answered right.
        var clock = Date(timeIntervalSince1970: 1_800_000_000)
        var intervals: (wrong: [TimeInterval], right: [TimeInterval]) = ([], [])
        for record in driver.kept {
            clock += 5
            let interval = record.memory(at: clock).due.timeIntervalSince(clock)
            if record.right { intervals.right.append(interval) } else { intervals.wrong.append(interval) }
        }
        #expect(!intervals.wrong.isEmpty && intervals.wrong.max()! < intervals.right.min()!, "\(intervals)")
        // A card missed comes back within the next four questions.
        for record in driver.kept.enumerated() where !record.element.right && record.offset < 16 {
            let later = askedAt[record.element.card]!.filter { $0 > record.offset + 1 }
            #expect(later.first.map { $0 <= record.offset + 5 } ?? false, "\(record.element.card) did not come back")
        }
    }

    @Test("a question on the desktop shows no cover art: its sonogram could answer it")
    func noCoverArt() throws {
        var driver = QuizDriver()
        driver.machine = SessionMachine(
            .init(
                interactive: false, presenter: script, saveDirectory: "/saves", homeDirectory: "/home/birder",
                seed: 11, desktop: true, coverArtFolder: "/run/user/1000/chirper-play-art.Ab12Cd"))
        let start = driver.send(typed("quiz gen:sylvia --questions 2"))
        guard
            case .buildQuizDeck(let id, _)? = start.first(where: { $0.isBuildQuizDeck })
        else {
            Issue.record("quiz did not ask for its deck: \(start)")
            return
        }
        _ = driver.send(.quizDeck(id: id, .success(deckRecordings)))
        let item = try #require(driver.playingItem)
        let heard = driver.send(
            .playback(.playing(PlaybackProgress(item: item, ticket: PlaybackTicket(driver.tickets)))))
        let drawn = heard.filter { if case .drawCoverArt = $0 { true } else { false } }
        #expect(drawn.isEmpty, "\(drawn)")
        let shown = heard.compactMap { if case .publishDesktop(let state, _) = $0 { state } else { nil } }
        let track = try #require(shown.last?.track)
        #expect(track.title == item.label && track.artURL == nil)
    }

    @Test("answers out of range and unknown names are refused with the closest names; skip reveals; stop scores")
    func badAnswers() throws {
        var driver = QuizDriver()
        let start = driver.send(typed("quiz saved --seed 3"))
        guard
            case .buildQuizDeck(let id, .saved)? = start.first(where: { $0.isBuildQuizDeck })
        else {
            Issue.record("quiz saved did not ask for its deck: \(start)")
            return
        }
        _ = driver.send(.quizDeck(id: id, .success(deckRecordings)))
        #expect(printed(driver.send(typed("9"))) == [#"error: "there is no choice 9: answer 1 to 4, or a name""#])
        let unknown = printed(driver.send(typed("Wren")))
        #expect(unknown.count == 1 && unknown[0].hasPrefix(#"error: "no species 'Wren' in this deck; closest: "#))
        // A typo still names the species.
        let truth = try #require(driver.playing)
        let typo = String(truth.englishName.dropLast())
        #expect(printed(driver.send(typed(typo))).first?.hasPrefix("quiz: answer right") == true)
        #expect(
            printed(driver.send(typed("2"))) == [
                #"error: "question 1 is answered: next (or Enter) asks the next one, replay hears it again under its name""#
            ])
        _ = driver.send(typed("next"))
        #expect(printed(driver.send(typed("skip"))).first?.hasSuffix(" skipped") == true)
        #expect(printed(driver.send(typed("quiz stop"))) == ["quiz: score right=1 asked=2"])
        #expect(printed(driver.send(typed("2"))) == [#"error: "unknown command '2'; type help for the commands""#])
    }

    @Test("a deck of one species, or of restricted rows only, is refused in one line and no quiz starts")
    func refusedDecks() {
        var driver = QuizDriver()
        for (rows, reason) in [
            (Array(deckRecordings.prefix(2)), "the deck has one species (Eurasian Blackcap)"),
            ([deckRecordings.last!], "all 1 recordings are restricted or have no audio"),
        ] {
            let start = driver.send(typed("quiz gen:x"))
            guard
                case .buildQuizDeck(let id, _)? = start.first(where: { $0.isBuildQuizDeck })
            else { continue }
            let lines = printed(driver.send(.quizDeck(id: id, .success(rows))))
            #expect(lines.count == 1 && lines[0].hasPrefix("error: \"\(reason)"), "\(lines)")
            #expect(!driver.machine.quizMachine.isOn)
        }
    }

    @Test("sono mode: three unnamed pictures of the same stretch, one of the sound heard; its number is right")
    func sonoMode() throws {
        var driver = QuizDriver()
        let start = driver.send(typed("quiz gen:sylvia --mode sono --questions 2 --seed 8"))
        guard
            case .buildQuizDeck(let id, _)? = start.first(where: { $0.isBuildQuizDeck }
            )
        else { return }
        let asked = driver.send(.quizDeck(id: id, .success(deckRecordings)))
        #expect(driver.lines.contains("quiz: question n=1 of=2 mode=sono pictures=3"))
        guard
            case .drawQuizPictures(let picturesID, let pictures)? = asked.first(where: { $0.isQuizPictures })
        else {
            Issue.record("no pictures asked for: \(asked)")
            return
        }
        let truth = try #require(driver.playing)
        #expect(pictures.count == 3)
        #expect(pictures.map(\.item.label) == ["quiz-1-1", "quiz-1-2", "quiz-1-3"])
        #expect(
            pictures.allSatisfy { $0.shape.maxFrequency == 12_000 && $0.shape.window == TimeSpan(start: 0, end: 8) },
            "over the catalogue's length of the shortest")
        let heard = try #require(pictures.firstIndex { $0.item.location == truth.playItem!.location })
        // The pictures are of three different species.
        let species = pictures.map { picture in
            deckRecordings.first { $0.playItem?.location == picture.item.location }.map { "\($0.genus) \($0.species)" }
        }
        #expect(Set(species).count == 3)
        // In a pipe the next line waits for the pictures.
        #expect(printed(driver.send(typed(String(heard + 1)))).isEmpty)
        let picture = Sonogram(
            rows: 16, columns: 72, levels: Array(repeating: 0.5, count: 16 * 72), maxFrequency: 12_000, duration: 8,
            sampleRate: 24_000)
        let shown = printed(driver.send(.quizPictures(id: picturesID, .success([picture, picture, picture]))))
        #expect(
            shown.filter { $0.hasPrefix("quiz: picture ") } == [
                "quiz: picture n=1", "quiz: picture n=2", "quiz: picture n=3",
            ])
        let before = shown.prefix { !$0.hasPrefix("quiz: answer ") }
        #expect(before.count == 3 + 3 * 16)
        #expect(!before.contains { $0.contains(truth.label) || $0.contains(truth.englishName) })
        #expect(shown.contains { $0.hasPrefix("quiz: answer right") })
    }

    @Test("a store that cannot keep answers is said once, and the quiz goes on")
    func brokenStore() throws {
        guard var machine = quizWithDeck("quiz gen:sylvia --questions 2") else { return }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let reason = "the quiz store /x/quiz.sqlite cannot open: it is damaged (file is not a database)"
        let loaded = printed(machine.handle(.answered(.quiz(.loaded(.failure(.init(reason)), now: now)))))
        #expect(loaded.first == "error: \"\(reason); the quiz goes on without keeping answers\"")
        #expect(loaded.contains { $0.hasPrefix("quiz: question n=1 of=2") })
        let memory = SpacedRepetition.review(nil, grade: .good, at: now)
        _ = machine.handle(.answered(.started(PlaybackTicket(1), deckRecordings[0], forQueue: false)))
        _ = machine.handle(typed("skip"))
        let kept = printed(machine.handle(.answered(.quiz(.kept(memory, now: now, .refused(reason))))))
        #expect(kept.filter { $0.hasPrefix("error: ") }.isEmpty, "said once: \(kept)")
        #expect(kept.last == "quiz: waiting answered=1 of=2", "\(kept)")
        #expect(printed(machine.handle(typed(""))).contains { $0.hasPrefix("quiz: question n=2 of=2") })
    }

    @Test("an answer's verdict is shown only once the store has kept it, so a verdict seen is an answer on disk")
    func verdictAfterKeeping() throws {
        guard var machine = quizWithDeck("quiz gen:sylvia --questions 2") else { return }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = machine.handle(.answered(.quiz(.loaded(.success(QuizProgress()), now: now))))
        _ = machine.handle(.answered(.started(PlaybackTicket(1), deckRecordings[0], forQueue: false)))

        let answered = machine.handle(typed("skip"))
        let records = answered.compactMap { action -> QuizAnswerRecord? in
            if case .request(.keepQuizAnswer(let record)) = action { record } else { nil }
        }
        #expect(records.count == 1 && records.first?.answered == nil, "the skip is sent to the store: \(answered)")
        #expect(!printed(answered).contains { $0.hasPrefix("quiz: answer ") }, "shown before kept: \(answered)")

        let memory = SpacedRepetition.review(nil, grade: .again, at: now)
        let kept = printed(machine.handle(.answered(.quiz(.kept(memory, now: now, .accepted)))))
        #expect(kept.first.map { $0.hasPrefix("quiz: answer wrong ") && $0.hasSuffix(" skipped") } == true, "\(kept)")
        #expect(kept.last == "quiz: waiting answered=1 of=2", "\(kept)")
    }
}
