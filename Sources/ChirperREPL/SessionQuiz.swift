import ChirperCatalog
import ChirperCore
import FoundationEssentials

/// The quiz, as part of the session machine: commands, answers, and what the quiz machine decides.
extension SessionMachine {
    mutating func quiz(_ request: QuizRequest) {
        switch request {
        case .start(let origin, let settings):
            _ = queue.handle(.stop)
            ab.stop()
            let id = nextWorkID()
            run(quizMachine.start(origin, settings, id: id, seed: setup.seed &+ UInt64(id)))
        case .stop:
            stopQuiz()
        case .stats:
            ask(.quizStats)
        case .export(let path):
            ask(.exportQuiz(path: path))
        }
    }

    /// `quiz stop`, Ctrl-C: the deck's fetch is cancelled, the question's sound stopped, the score said.
    mutating func stopQuiz() {
        if quizMachine.buildingOrigin != nil { emit(.cancelQuizDeck) }
        let wasAsking = quizMachine.openQuestion != nil
        run(quizMachine.stop())
        if wasAsking { ask(.stop(.quiet)) }
    }

    /// A line typed while a question is open, or `answer …`.
    mutating func answerQuiz(_ text: String) {
        if let outcome = quizMachine.answeredOutcome {
            refuse(answeredAlready(outcome))
            return
        }
        guard let question = quizMachine.openQuestion, let deck = quizMachine.deck else {
            refuse("no quiz question is open; start one with quiz <query>, quiz saved or quiz cached")
            return
        }
        switch QuizAnswer.match(text, choices: question.choices, deck: deck) {
        case .species(let species):
            run(quizMachine.answer(species))
        case .outOfRange(let number, let count):
            refuse("there is no choice \(number): answer 1 to \(count), or a name")
        case .unknown(let closest):
            let shown = TerminalText.sanitize(String(text.prefix(40)))
            refuse(
                "no species '\(shown)' in this deck"
                    + (closest.isEmpty
                        ? "" : "; closest: \(closest.map(TerminalText.sanitize).joined(separator: ", "))"))
        }
    }

    mutating func skipQuestion() {
        if quizMachine.answeredOutcome != nil {
            nextQuestion()
            return
        }
        guard quizMachine.openQuestion != nil else {
            refuse("no quiz question is open; start one with quiz <query>")
            return
        }
        run(quizMachine.answer(nil))
    }

    /// Once a question is answered nothing is left to give away: what its request still plays is named, with its
    /// length and position, while the quiz waits for `next`.
    private mutating func nameWhatPlays() {
        guard let outcome = quizMachine.answeredOutcome, let shown = playing, shown.masked else { return }
        playing = Playing(ticket: shown.ticket, recording: outcome.question.recording)
        refreshStatus()
    }

    mutating func replayQuestion() {
        if let outcome = quizMachine.answeredOutcome {
            playAnswered(outcome.question)
            return
        }
        guard let question = quizMachine.openQuestion else {
            refuse("no quiz question is open; play <n> plays a row")
            return
        }
        playQuestion(question)
    }

    /// `next` or an empty line after an answer.
    mutating func nextQuestion() {
        run(quizMachine.next())
    }

    private func answeredAlready(_ outcome: QuizMachine.Outcome) -> String {
        let last = outcome.question.number >= quizMachine.settings.questions
        return "question \(outcome.question.number) is answered: next (or Enter) "
            + (last ? "shows the score" : "asks the next one") + ", replay hears it again under its name"
    }

    /// Runs what the quiz machine decided.
    mutating func run(_ action: QuizMachine.Action) {
        switch action {
        case .none:
            break
        case .buildDeck(let id, let origin):
            say([presenter.quizBuilding(origin)])
            if !setup.interactive { hold(.quiz) }
            emit(.buildQuizDeck(id: id, origin))
        case .loadProgress(let deck):
            gate.handle(.quizReady)
            say([presenter.quizDeck(deck)])
            ask(.loadQuiz(deck))
        case .ask(let question, let total):
            let offered = question.pictures.isEmpty ? question.choices : []
            say(
                presenter.quizQuestion(question.number, of: total, choices: offered, pictures: question.pictures.count))
            playQuestion(question)
            if !question.pictures.isEmpty { drawPictures(question) }
        case .reveal(let outcome, let deck):
            // Kept first: once its line is printed, the answer is on disk.
            ask(
                .keepQuizAnswer(
                    QuizAnswerRecord(
                        deck: deck, card: outcome.question.card, recording: outcome.question.recording.label,
                        answered: outcome.answered, previous: quizMachine.memory(of: outcome.question.card))))
            let truth = quizMachine.deck?.species(named: outcome.question.card.species)
            let answered = outcome.answered.flatMap { quizMachine.deck?.species(named: $0) }
            say(
                presenter.quizOutcome(
                    right: outcome.right, recording: outcome.question.recording,
                    species: truth?.scientificName ?? outcome.question.card.species,
                    englishName: truth?.englishName ?? "", answered: answered?.englishName,
                    skipped: outcome.answered == nil))
        case .await(let number, let total):
            say([presenter.quizAwait(number, of: total)])
        case .finish(let right, let asked):
            say([presenter.quizScore(right: right, asked: asked)])
            ask(.stop(.quiet))
        case .refuse(let text):
            gate.handle(.quizReady)
            refuse(text)
        }
    }

    /// Sono mode: the three pictures in the bird band, each from where its sound is heard (the question's
    /// excerpt, or the start); the runner draws them all over the same span (``QuizPicture``).
    private mutating func drawPictures(_ question: QuizMachine.Question) {
        let (width, _) = presenter.sonogramShape
        let columns = max(8, width - SonogramRenderer.gutterWidth - 1)
        let rows = (setup.interactive ? 5 : 8) * presenter.sonogramRenderer.rowsPerLine
        let pictures = question.pictures.enumerated().compactMap { index, recording -> QuizPicture? in
            guard let item = recording.playItem else { return nil }
            let start = recording == question.recording ? question.start : 0
            let masked = PlayItem(
                label: "\(QuizMachine.maskedLabel(question.number))-\(index + 1)", location: item.location,
                expectedDuration: item.expectedDuration)
            return QuizPicture(
                item: masked,
                shape: SonogramShape(
                    columns: columns, rows: rows, maxFrequency: 12_000, minFrequency: 0,
                    window: TimeSpan(start: start, end: start + QuizPicture.longest), contrast: setup.contrast))
        }
        let id = nextWorkID()
        guard let drawn = quizMachine.picturesAsked(id: id, pictures) else {
            refuse(Self.noPictureAudio)
            return
        }
        if !setup.interactive { hold(.quiz) }
        emit(.drawQuizPictures(id: id, drawn))
    }

    /// Why sono mode shows no pictures when one of them has no audio from where it starts.
    static let noPictureAudio =
        "sono: no pictures: a recording has no audio where its picture starts; skip goes on to the next question"

    /// Sono mode's pictures arrived (or why not).
    mutating func quizPicturesDrawn(id: Int, _ result: Result<[Sonogram], WorkFailure>) {
        let arrival = quizMachine.picturesArrived(id: id, try? result.get())
        switch arrival {
        case .dropped:
            return
        case .redraw(let pictures) where quizMachine.openQuestion != nil:
            // The line waiting for them still waits.
            let id = nextWorkID()
            quizMachine.picturesRedrawn(id: id)
            emit(.drawQuizPictures(id: id, pictures))
            return
        default:
            break
        }
        gate.handle(.quizReady)
        guard quizMachine.openQuestion != nil else { return }
        switch (arrival, result) {
        case (.show(let sonograms), _): say(presenter.quizPictures(sonograms))
        case (.noAudio, _): refuse(Self.noPictureAudio)
        case (_, .failure(.failed(let message))): refuse(message + "; skip goes on to the next question")
        default: break
        }
    }

    /// Plays the question's recording under a name that gives nothing away.
    private mutating func playQuestion(_ question: QuizMachine.Question) {
        guard let item = question.recording.playItem else { return }
        let masked = PlayItem(
            label: QuizMachine.maskedLabel(question.number), location: item.location,
            expectedDuration: item.expectedDuration)
        quizMachine.awaitStart()
        ask(.play(masked, question.recording, forQueue: false))
    }

    /// `replay` after the answer: the same stretch, under the recording's own name.
    private mutating func playAnswered(_ question: QuizMachine.Question) {
        guard let item = question.recording.playItem else { return }
        quizMachine.awaitStart()
        ask(.play(item, question.recording, forQueue: false))
    }

    /// Whether what `ticket` plays is shown by its masked name and the time heard only: a quiz question's,
    /// and while a quiz runs any state not of the last play request (it may be a question's whose request is not
    /// answered yet, or be drawn after the request that followed it).
    func masksPlayback(_ ticket: PlaybackTicket?) -> Bool {
        guard let playing, playing.ticket == ticket else { return quizMachine.isOn }
        return playing.masked
    }

    /// A play request was answered: if it is a question's, a long recording plays only its excerpt, and while
    /// the question is open what plays is shown masked.
    mutating func quizStarted() -> Recording? {
        guard let (question, open) = quizMachine.started() else { return nil }
        if let end = question.end {
            ask(.control(.section(.absolute(question.start), .absolute(end), nil)))
        }
        return open ? QuizMachine.masked(question) : nil
    }

    /// The deck's recordings arrived (or why not).
    mutating func quizDeckFetched(id: Int, _ result: Result<[Recording], WorkFailure>, origin: QuizOrigin?) {
        switch result {
        case .success(let recordings):
            guard let origin else { return }
            run(
                quizMachine.deckBuilt(
                    id: id, QuizDeck.make(name: origin.deckName, family: origin.family, recordings: recordings)))
        case .failure(.stopped):
            run(quizMachine.deckFailed(id: id, "quiz stopped"))
        case .failure(.failed(let message)):
            run(quizMachine.deckFailed(id: id, message))
        }
    }

    mutating func take(quiz answer: QuizAnswerEvent) {
        switch answer {
        case .loaded(let progress, let now, let refusal):
            if let refusal { warnQuizStore(refusal) }
            run(quizMachine.progressLoaded(progress.memories, confusions: progress.confusions, now: now))
        case .kept(let memory, let now, let refusal):
            if let refusal { warnQuizStore(refusal) }
            run(quizMachine.kept(memory, now: now))
            nameWhatPlays()
        case .stats(let stats, let refusal):
            if let stats { say(presenter.quizStats(stats)) }
            if let refusal { refuse(refusal) }
        case .exported(let path, let rows, let refusal):
            if let refusal {
                refuse(refusal)
            } else {
                say([presenter.quizExported(path, rows: rows)])
            }
        }
    }

    /// The store cannot keep answers: said once a quiz, and the quiz goes on.
    private mutating func warnQuizStore(_ refusal: String) {
        guard quizMachine.warnStore() else { return }
        refuse(refusal + "; the quiz goes on without keeping answers")
    }
}

/// The store's answers to the quiz's requests.
enum QuizAnswerEvent: Sendable, Hashable {
    /// The deck's progress (empty, with the reason, when the store cannot be read), at the runner's `now`.
    case loaded(QuizProgress, now: Date, refusal: String?)
    /// The answered card's new memory (computed even when it cannot be kept), at `now`.
    case kept(CardMemory, now: Date, refusal: String?)
    case stats(QuizStats?, refusal: String?)
    case exported(path: String, rows: Int, refusal: String?)
}
