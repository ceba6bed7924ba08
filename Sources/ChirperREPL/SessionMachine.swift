import ChirperCatalog
import ChirperCore

/// The REPL session as one pure machine. It keeps the rendered list and playback states and composes the
/// session's children (which line runs when, the play queue, A/B listening, and the reducers of `sono` and the
/// strip, `measure`, `compare`, the quiz, the desktop and `save`): each event goes to the children it concerns,
/// with what they need of the rendered states, and every action a child answers becomes the session's own. It
/// returns what to do: lines to print, the status line, and requests to the list, the player and the workers.
/// The ``REPL`` actor only runs those actions and feeds their answers back as events.
struct SessionMachine: Sendable {
    /// What the session started with.
    let setup: Setup
    var presenter: Presenter { setup.presenter }
    private(set) var list: ListState = .idle
    private(set) var playback: PlaybackState = .start
    var playing: Playing?
    var queue = PlayQueueMachine()
    /// `save`.
    var saves: Saves
    /// The desktop (MPRIS) and its cover art.
    var desktop: Desktop
    var gate = LineGateMachine()
    /// `sono`, the live strip and `graphics`.
    var sonograms: Sonograms
    /// `select`, `measure` and the selection table.
    var measurements: Measure
    /// `compare`.
    var comparison: Compare
    /// `identify`.
    var identification: Identify
    /// A/B listening (`ab`).
    var ab = ABMachine()
    /// The quiz (`quiz`).
    var quiz: Quiz
    /// Names each piece of work started off the event loop (a sonogram, a measurement, a comparison), so
    /// the result of work since replaced is known and dropped.
    var ids = WorkIDs()
    /// Requests not answered yet, in order: the first is out, each next one is sent when the one before it is
    /// answered. Typed lines wait for them.
    private(set) var requests: [Request] = []
    /// Events that came while a request was out, taken in order once every request is answered: the session sees
    /// the order it would have seen had each answer been awaited where it was asked.
    private var held: [Event] = []
    /// Set once the session decided to leave: nothing more is done.
    private(set) var ended = false
    /// The terminal's width when the running line was typed.
    private(set) var columns = 80
    /// What the status rows show now: only a change is sent.
    private var shown = ShownStatus()
    /// What this step decided, in order.
    private var actions: [Action] = []

    init(_ setup: Setup) {
        self.setup = setup
        sonograms = Sonograms(
            Sonograms.Setup(
                presenter: setup.presenter, interactive: setup.interactive, contrast: setup.contrast,
                terminal: setup.terminal), graphics: setup.graphics)
        saves = Saves(presenter: setup.presenter, interactive: setup.interactive)
        desktop = Desktop(
            presenter: setup.presenter, interactive: setup.interactive, on: setup.desktop,
            coverArtFolder: setup.coverArtFolder)
        measurements = Measure(presenter: setup.presenter, interactive: setup.interactive)
        comparison = Compare(presenter: setup.presenter, interactive: setup.interactive)
        identification = Identify(presenter: setup.presenter, interactive: setup.interactive)
        quiz = Quiz(
            Quiz.Setup(
                presenter: setup.presenter, interactive: setup.interactive, seed: setup.seed, contrast: setup.contrast))
    }

    /// Takes one event; returns what to do, in order.
    mutating func handle(_ event: Event) -> [Action] {
        guard !ended else { return [] }
        if case .answered = event {
            // An answer with nothing asked (a scenario that starts mid-play) is taken as it comes.
            if !requests.isEmpty { requests.removeFirst() }
            if let next = requests.first { emit(.request(next)) }
        } else if !requests.isEmpty {
            held.append(event)
            return []
        }
        step(event)
        while requests.isEmpty, !ended, !held.isEmpty {
            step(held.removeFirst())
        }
        defer { actions = [] }
        return actions
    }

    private mutating func step(_ event: Event) {
        take(event)
        drain()
        // The desktop sees every change at once (the queue moving too, before its track starts).
        if !ended { refreshDesktop() }
    }

    private mutating func take(_ event: Event) {
        switch event {
        case .typed(let line, let columns):
            gate.handle(.typed(line))
            self.columns = columns
        case .inputEnded:
            gate.handle(.inputEnded)
        case .launchOpen(let paths):
            search(.open(paths))
        case .list(let state):
            let old = list
            list = state
            say(presenter.lines(list: state, from: old))
            gate.handle(.listChanged(busy: state.isBusy))
            run(desktop: .listed(state))
        case .playback(let state):
            render(playback: state)
            gate.handle(.playbackChanged(state, queuePlaying: queue.state.isPlaying))
        case .interrupt:
            interrupt()
        case .terminate(let status):
            leave(status)
        case .cacheNotice(let text):
            say([presenter.cacheNotice(text)])
        case .sonogram(let id, let result):
            run(sonograms: .drawn(id: id, result))
        case .saveProgress(let batch, let progress):
            run(saves: .progress(batch: batch, progress))
        case .saveEnded(let batch, let outcome):
            run(saves: .ended(batch: batch, outcome))
        case .stripPicture(let ticket, let result):
            run(sonograms: .stripPicture(ticket, result, playback))
            refreshStatus()
        case .measured(let id, let result):
            run(measure: .measured(id: id, result))
        case .compared(let id, let result):
            run(compare: .compared(id: id, result))
        case .identified(let id, let result):
            run(identify: .identified(id: id, result))
        case .listened(let report):
            listened(report)
        case .abGapEnded(let round):
            run(ab: .gapEnded(round: round))
        case .quizDeck(let id, let result):
            run(quiz: .deck(id: id, result))
        case .quizPictures(let id, let result):
            run(quiz: .pictures(id: id, result))
        case .desktop(let command):
            run(desktop: .command(command, playback, playing))
        case .desktopMissing(let text):
            run(desktop: .missing(text))
        case .coverArt(let file, let drawn):
            run(desktop: .coverArt(file: file, drawn: drawn))
        case .pictureRefused(let text):
            refuse(text)
        case .answered(let answer):
            take(answer)
        }
    }

    /// Runs queued lines while nothing holds them and every request was answered; leaves at the end of
    /// input once they are done.
    private mutating func drain() {
        while !ended, requests.isEmpty {
            switch gate.next() {
            case .run(let line): execute(line)
            case .quit: leave(0)
            case .nothing: return
            }
        }
    }

    private mutating func take(_ answer: Answer) {
        switch answer {
        case .searched(let outcome), .nextPage(let outcome):
            if case .failure(let refusal) = outcome {
                refuse(refusal.line)
            } else if !setup.interactive {
                // Accepted: a page is on its way, and a script waits for it to settle.
                gate.handle(.hold(.listSettles))
            }
        case .listStopped:
            break
        case .started(let ticket, let recording, let forQueue):
            playing = Playing(ticket: ticket, recording: recording)
            run(quiz: .started)
            if forQueue { run(queue: .started(ticket)) }
            run(ab: .started(ticket))
        case .stopped(let outcome, .command):
            if case .failure(let refusal) = outcome { refuse(refusal.line) }
        case .stopped(_, .quiet):
            break
        case .quiz(let event):
            run(quiz: .store(event))
        case .stopped(let outcome, .interrupt):
            if case .success = outcome {
                gate.handle(.playbackStopped)
            } else if !setup.interactive && !list.isBusy {
                leave(0)
            } else if setup.interactive {
                refuse("(Ctrl-D or quit leaves chirper-play)")
            }
        case .textWritten(let path, let outcome):
            run(measure: .written(path: path, outcome))
        case .selectionsWritten(let path, let written):
            run(identify: .written(path: path, written))
        case .pngWritten(let path, let outcome):
            if case .failure(let refusal) = outcome {
                refuse(refusal.line)
            } else {
                say([presenter.pngWritten(path)])
            }
        case .control(let control, let outcome, let settings):
            if case .failure(let refusal) = outcome {
                refuse(refusal.line)
                if case .section = control, ab.isOn {
                    // The side cannot be played as a section (no sound server): A/B listening ends here.
                    run(ab: .stop)
                    ask(.stop(.command))
                }
            } else if control.saysSettings {
                // Settings outlive a track: the answer says what is in force now (also when nothing plays).
                say([presenter.settings(settings)])
            }
        }
    }

    /// Ctrl-C stops, in turn: a sonogram being drawn, a measurement, a comparison, an identification, a page
    /// being loaded, the quiz, a save, then playback (and the queue with it).
    private mutating func interrupt() {
        emit(.markInterrupted)
        if sonograms.isDrawing {
            run(sonograms: .interrupt)
            return
        }
        if measurements.isMeasuring {
            run(measure: .interrupt)
            return
        }
        if comparison.isComparing {
            run(compare: .interrupt)
            return
        }
        if identification.isIdentifying {
            run(identify: .interrupt)
            return
        }
        // A search or a next page that is slow to come (a slow network, a folder of thousands of files) is
        // stopped before what plays is.
        if list.isBusy {
            ask(.stopList)
            return
        }
        if quiz.machine.isOn {
            run(quiz: .stop)
            return
        }
        if saves.state.isBusy {
            run(saves: .interrupt)
            return
        }
        run(queue: .stop)
        run(ab: .stop)
        ask(.stop(.interrupt))
    }

    private mutating func render(playback new: PlaybackState) {
        let old = playback
        playback = new
        let recording = playing.flatMap { $0.ticket == new.ticket && !$0.masked ? $0.recording : nil }
        if case .buffering = new, old.ticket != new.ticket, let recording {
            say(presenter.attribution(recording))
        }
        if let line = presenter.line(playback: new, from: old, masked: masksPlayback(new.ticket)) {
            say([line])
        }
        run(sonograms: .playback(new))
        run(identify: .live(.playback(new, place: recording.flatMap(RecordingPlace.init(recording:)))))
        // A quiz question's picture could answer it; a state not of the last play request shows nothing.
        run(desktop: .playback(new, masked: playing.map { $0.ticket != new.ticket || $0.masked } ?? true))
        refreshStatus()
        // The end (or failure) of the item the queue started, as rendered, moves the queue on; the end of an
        // A/B side leads to its gap.
        if !new.isActive, let ticket = new.ticket {
            run(queue: .trackEnded(ticket))
            var finished = false
            var late = 0.0
            if case .idle(let ending?) = new, ending.reason == .finished { (finished, late) = (true, ending.late) }
            run(ab: .ended(ticket, finished: finished, late: late))
        }
    }

    /// The status line (with the live strip above it when on), from the rendered states.
    mutating func refreshStatus() {
        let recording = playing.flatMap { $0.ticket == playback.ticket ? $0.recording : nil }
        // While A/B listening, the title says which side is heard.
        let side = ab.heard.map { "\(Presenter.abName($0)) · " } ?? ""
        // A file of more than two channels plays one: the title says which.
        let channel = playedChannels.flatMap { $0.played == nil ? nil : " · ch \($0.played ?? 1)/\($0.fileChannels)" }
        let title = recording.map { side + $0.title + (channel ?? "") }
        // A quiz question's strip would show its sonogram and length: it has none while it is open.
        let masked = masksPlayback(playback.ticket)
        let view =
            masked ? StripView() : presenter.strip(sonograms.strip, playback: playback, keeping: &shown.stripLines)
        var line = presenter.status(playback, title: title, masked: masked)
        var buffered = playback.progress?.buffered
        // The status line stands while nothing on it but a buffer figure the shown one may stand for has changed,
        // also when the strip's rows above it change (its marker moves at every tick on a short page).
        if let figure = shown.buffer, let now = buffered, StatusBufferHold.holds(shown: figure, now: now),
            let held = presenter.status(playback.showing(buffered: figure), title: title, masked: masked),
            let shownLine = shown.rows.last, TerminalLayout.same([held], [shownLine])
        {
            (line, buffered) = (held, figure)
        }
        let current =
            view.rows + presenter.saveStatus(saves.state) + liveStatusRows(masked: masked) + (line.map { [$0] } ?? [])
        // Compared byte for byte: the strip's rows are long and not ASCII (its picture rows are the same strings
        // between page turns, compared at once). An image is compared by the page it shows.
        if view.picture != shown.stripImage || !TerminalLayout.same(current, shown.rows) {
            show(current, view.picture, buffered: buffered)
        }
    }

    private mutating func show(_ rows: [String], _ picture: StripImage?, buffered: Double?) {
        shown.rows = rows
        shown.stripImage = picture
        shown.buffer = buffered
        emit(.status(rows, picture))
    }

    // MARK: - Saying and asking

    mutating func emit(_ action: Action) {
        actions.append(action)
    }

    /// Sends a request; typed lines wait for its answer.
    mutating func ask(_ request: Request) {
        requests.append(request)
        if requests.count == 1 { emit(.request(request)) }
    }

    mutating func leave(_ status: Int32) {
        // A quiz still running ends with its score.
        run(quiz: .leave)
        ended = true
        emit(.quit(status: status))
    }
}

extension ListState {
    /// A page is being fetched.
    var isBusy: Bool {
        switch self {
        case .loading, .paging(_, .loading): return true
        default: return false
        }
    }

    var hasMorePages: Bool {
        if case .paging = self { return true }
        return false
    }
}
