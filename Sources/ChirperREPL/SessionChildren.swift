import ChirperCatalog
import ChirperCore

/// How the session composes its children: each child's event goes to it, and every action it answers with
/// becomes what the session does.
extension SessionMachine {
    /// Names the work the session's children start off the event loop, one number for all, so that the
    /// result of work since replaced is known and dropped.
    struct WorkIDs: Sendable, Hashable {
        private(set) var last = 0

        mutating func next() -> Int {
            last += 1
            return last
        }
    }

    /// The quiz's state, for the tests and the lines that read it.
    var quizMachine: QuizMachine { quiz.machine }

    /// Whether what `ticket` plays is shown by its masked name and the time heard only: a quiz question's,
    /// and while a quiz runs any state not of the last play request (it may be a question's whose request is
    /// not answered yet, or be drawn after the request that followed it).
    func masksPlayback(_ ticket: PlaybackTicket?) -> Bool {
        guard let playing, playing.ticket == ticket else { return quiz.machine.isOn }
        return playing.masked
    }

    /// Hands `event` to the quiz, and does what it decided.
    mutating func run(quiz event: Quiz.Event) {
        for action in quiz.handle(event, ids: &ids) {
            switch action {
            case .print(let lines):
                say(lines)
            case .refuse(let text):
                refuse(text)
            case .hold:
                hold(.quiz)
            case .ready:
                gate.handle(.quizReady)
            case .request(let request):
                ask(request)
            case .takePlayback:
                run(queue: .stop)
                run(ab: .stop)
            case .buildDeck(let id, let origin):
                emit(.buildQuizDeck(id: id, origin))
            case .cancelDeck:
                emit(.cancelQuizDeck)
            case .drawPictures(let id, let pictures):
                emit(.drawQuizPictures(id: id, pictures))
            case .mask(let recording):
                playing?.recording = recording
                playing?.masked = true
            case .unmask(let recording):
                guard let shown = playing, shown.masked else { break }
                playing = Playing(ticket: shown.ticket, recording: recording)
                refreshStatus()
            }
        }
    }
}

extension SessionMachine {
    /// Hands `event` to `sono` and the live strip, and does what they decided.
    mutating func run(sonograms event: Sonograms.Event) {
        for action in sonograms.handle(event, ids: &ids) {
            switch action {
            case .print(let lines): say(lines)
            case .refuse(let text): refuse(text)
            case .hold: hold(.sonogram)
            case .done: gate.handle(.sonogramDone)
            case .request(let request): ask(request)
            case .draw(let id, let item, let shape): emit(.drawSonogram(id: id, item, shape))
            case .cancel: emit(.cancelSonogram)
            case .showPicture(let lines, let image, let canvas): emit(.showPicture(lines, image, canvas))
            case .listenStrip: emit(.listenStrip)
            case .computeStrip(let item, let ticket, let shape, let duration):
                emit(.computeStrip(item, ticket, shape, duration: duration))
            case .cancelStrip: emit(.cancelStrip)
            case .statusChanged: refreshStatus()
            }
        }
    }
}

extension SessionMachine {
    /// Hands `event` to the play queue (``PlayQueueMachine``, its state the items and where it is), and does
    /// what it decided: its line, and the start of its item.
    mutating func run(queue event: PlayQueueMachine.Event) {
        let action = queue.handle(event)
        say(presenter.queue(action, queued: queue.state.items))
        // The item is the recording queued, playable (only those are queued): it starts whatever the list is now.
        if case .play(let queued, _, _, _) = action, let item = queued.recording.playItem {
            ask(.play(item, queued.recording, forQueue: true))
        }
    }
}
