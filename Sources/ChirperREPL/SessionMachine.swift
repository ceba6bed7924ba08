import ChirperCatalog
import ChirperCore

/// The REPL session as one pure machine. It composes the machines of the session (which line runs when, the
/// play queue, the save batch, the live strip) with the rendered list and playback states, takes every event
/// in order, and returns what to do: lines to print, the status line, and requests to the list, the player
/// and the workers. The ``REPL`` actor only runs those actions and feeds their answers back as events.
struct SessionMachine: Sendable {
    /// What the session started with; only `desktop` changes, when the session hears there is no bus.
    private(set) var setup: Setup
    var presenter: Presenter { setup.presenter }
    private(set) var list: ListState = .idle
    private(set) var playback: PlaybackState = .start
    var playing: Playing?
    var queue = PlayQueueMachine()
    var saves = SaveBatchMachine()
    var strip = SonogramStripMachine()
    /// The desktop's cover art (on with a ``Setup/coverArtFolder``).
    var coverArt: CoverArtMachine
    var gate = LineGateMachine()
    private(set) var sonogramJob: SonogramJob?
    /// What `measure` measures when given nothing (`select`).
    var selection: Selection?
    /// The session's selection table: every measurement made, in order.
    var measurements: [MeasuredSelection] = []
    var measureJob: MeasureJob?
    var compareJob: CompareJob?
    /// A/B listening (`ab`).
    var ab = ABMachine()
    /// The quiz (`quiz`).
    var quizMachine = QuizMachine()
    /// How `sono` draws now (`graphics`).
    var graphics: GraphicsMode
    /// The line said when the graphics asked for cannot be had, once per mode.
    var graphicsNoticeSaid: GraphicsMode?
    /// Names each piece of work started off the event loop (a sonogram, a measurement, a comparison), so
    /// the result of work since replaced is known and dropped.
    private var lastWorkID = 0
    /// Requests sent and not answered yet: typed lines wait for them.
    private(set) var unanswered = 0
    /// Set once the session decided to leave: nothing more is done.
    private(set) var ended = false
    /// The terminal's width when the running line was typed.
    private(set) var columns = 80
    private var shownStatus: [String] = []
    /// The buffer figure on the shown status line (`StatusBufferHold`).
    private var shownBuffer: Double?
    private var shownStripImage: StripImage?
    /// What the desktop was last shown.
    var shownDesktop: DesktopState?
    /// The live strip's picture lines of the page shown (drawn again only when the page turns).
    private var stripLines: StripPictureLines?
    /// What this step decided, in order.
    private var actions: [Action] = []

    init(_ setup: Setup) {
        self.setup = setup
        graphics = setup.graphics
        coverArt = CoverArtMachine(on: setup.coverArtFolder != nil)
    }

    /// Takes one event; returns what to do, in order.
    mutating func handle(_ event: Event) -> [Action] {
        guard !ended else { return [] }
        take(event)
        drain()
        // The desktop sees every change at once (the queue moving too, before its track starts).
        if !ended { refreshDesktop() }
        defer { actions = [] }
        return actions
    }

    private mutating func take(_ event: Event) {
        switch event {
        case .typed(let line, let columns):
            gate.handle(.typed(line))
            self.columns = columns
        case .inputEnded:
            gate.handle(.inputEnded)
        case .list(let state):
            let old = list
            list = state
            say(presenter.lines(list: state, from: old))
            gate.handle(.listChanged(busy: state.isBusy))
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
            sonogramEnded(id: id, result)
        case .saveProgress(let batch, let progress):
            run(saves.handle(.progress(batch: batch, progress)))
            let state = saves.state
            // A terminal shows the report on the status line, in place; a pipe gets a line for each.
            if !setup.interactive, batch == state.batch, let current = state.current {
                say([presenter.save(progress, position: current + 1, count: state.items.count)])
            }
            refreshStatus()
        case .saveEnded(let batch, let outcome):
            let state = saves.state
            if batch == state.batch, let current = state.current {
                say([presenter.save(outcome, position: current + 1, count: state.items.count)])
            }
            run(saves.handle(.ended(batch: batch, outcome)))
        case .stripPicture(let ticket, let result):
            switch result {
            case .success(let picture): run(strip.ready(picture, ticket: ticket))
            case .failure(.failed(let message)): run(strip.failed(message, ticket: ticket))
            case .failure(.stopped): break
            }
            refreshStatus()
        case .measured(let id, let result):
            measured(id: id, result)
        case .compared(let id, let result):
            compared(id: id, result)
        case .abGapEnded(let round):
            run(ab.gapEnded(round: round))
        case .quizDeck(let id, let result):
            quizDeckFetched(id: id, result, origin: quizMachine.buildingOrigin)
        case .quizPictures(let id, let result):
            quizPicturesDrawn(id: id, result)
        case .desktop(let command):
            desktop(command)
        case .desktopMissing(let text):
            if setup.interactive { say(presenter.desktopNotice(text)) }
            // Nothing is on the bus to show the rendered state to: it is no longer derived (every progress tick did).
            setup.desktop = false
            run(coverArt.turnOff())
        case .coverArt(let file, let drawn):
            run(drawn ? coverArt.drawn(file: file) : coverArt.failed(file: file))
        case .pictureRefused(let text):
            refuse(text)
        case .answered(let answer):
            unanswered -= 1
            take(answer)
        }
    }

    /// Runs queued lines while nothing holds them and every request was answered; leaves at the end of
    /// input once they are done.
    private mutating func drain() {
        while !ended, unanswered == 0 {
            switch gate.next() {
            case .run(let line): execute(line)
            case .quit: leave(0)
            case .none: return
            }
        }
    }

    private mutating func take(_ answer: Answer) {
        switch answer {
        case .searched:
            if !setup.interactive { gate.handle(.hold(.listSettles)) }
        case .nextPage(let refusal):
            if let refusal {
                refuse(refusal)
            } else if !setup.interactive {
                // Accepted: a page is on its way, and a script waits for it to settle.
                gate.handle(.hold(.listSettles))
            }
        case .started(let ticket, let recording, let forQueue):
            let masked = quizStarted()
            playing = Playing(ticket: ticket, recording: masked ?? recording, masked: masked != nil)
            if forQueue { _ = queue.handle(.started(ticket)) }
            abStarted(ticket)
        case .stopped(let refusal, .command):
            if let refusal { refuse(refusal) }
        case .stopped(_, .quiet):
            break
        case .quiz(let event):
            take(quiz: event)
        case .stopped(let refusal, .interrupt):
            if refusal == nil {
                gate.handle(.playbackStopped)
            } else if !setup.interactive && !list.isBusy {
                leave(0)
            } else if setup.interactive {
                refuse("(Ctrl-D or quit leaves chirper-play)")
            }
        case .textWritten(let path, let refusal):
            if let refusal {
                refuse(refusal)
            } else {
                say([presenter.tableWritten(path, rows: measurements.count)])
            }
        case .pngWritten(let path, let refusal):
            if let refusal {
                refuse(refusal)
            } else {
                say([presenter.pngWritten(path)])
            }
        case .control(let control, let refusal, let settings):
            if let refusal {
                refuse(refusal)
                if case .section = control, ab.isOn {
                    // The side cannot be played as a section (no sound server): A/B listening ends here.
                    ab.stop()
                    ask(.stop(.command))
                }
            } else if control.saysSettings {
                // Settings outlive a track: the answer says what is in force now (also when nothing plays).
                say([presenter.settings(settings)])
            }
        }
    }

    /// Ctrl-C stops, in turn: a sonogram being drawn, a save, then playback (and the queue with it).
    private mutating func interrupt() {
        emit(.markInterrupted)
        if sonogramJob != nil {
            emit(.cancelSonogram)
            return
        }
        if measureJob != nil {
            emit(.cancelMeasure)
            return
        }
        if compareJob != nil {
            emit(.cancelCompare)
            return
        }
        if quizMachine.isOn {
            stopQuiz()
            return
        }
        if saves.state.isBusy {
            // Its `.part` stays, for a later save to resume.
            emit(.cancelSave)
            run(saves.handle(.stop))
            return
        }
        _ = queue.handle(.stop)
        ab.stop()
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
        run(strip.playbackChanged(new))
        // A quiz question's picture could answer it; a state not of the last play request shows nothing.
        run(coverArt.playbackChanged(new, masked: playing.map { $0.ticket != new.ticket || $0.masked } ?? true))
        refreshStatus()
        // The end (or failure) of the item the queue started, as rendered, moves the queue on; the end of an
        // A/B side leads to its gap.
        if !new.isActive, let ticket = new.ticket {
            run(queue.handle(.trackEnded(ticket)))
            var finished = false
            var late = 0.0
            if case .idle(let ending?) = new, ending.reason == .finished { (finished, late) = (true, ending.late) }
            run(ab.ended(ticket, finished: finished, late: late))
        }
    }

    /// The status line (with the live strip above it when on), from the rendered states.
    mutating func refreshStatus() {
        let recording = playing.flatMap { $0.ticket == playback.ticket ? $0.recording : nil }
        // While A/B listening, the title says which side is heard.
        let side = ab.heard.map { "\(Presenter.abName($0)) · " } ?? ""
        let title = recording.map { side + $0.englishName }
        // A quiz question's strip would show its sonogram and length: it has none while it is open.
        let masked = masksPlayback(playback.ticket)
        let view = masked ? StripView() : presenter.strip(strip, playback: playback, keeping: &stripLines)
        var line = presenter.status(playback, title: title, masked: masked)
        var buffered = playback.progress?.buffered
        // The status line stands while nothing on it but a buffer figure the shown one may stand for has changed,
        // also when the strip's rows above it change (its marker moves at every tick on a short page).
        if let shown = shownBuffer, let now = buffered, StatusBufferHold.holds(shown: shown, now: now),
            let held = presenter.status(playback.showing(buffered: shown), title: title, masked: masked),
            let shownLine = shownStatus.last, TerminalLayout.same([held], [shownLine])
        {
            (line, buffered) = (held, shown)
        }
        let current = view.rows + presenter.saveStatus(saves.state) + (line.map { [$0] } ?? [])
        // Compared byte for byte: the strip's rows are long and not ASCII (its picture rows are the same strings
        // between page turns, compared at once). An image is compared by the page it shows.
        if view.picture != shownStripImage || !TerminalLayout.same(current, shownStatus) {
            show(current, view.picture, buffered: buffered)
        }
    }

    private mutating func show(_ rows: [String], _ picture: StripImage?, buffered: Double?) {
        shownStatus = rows
        shownStripImage = picture
        shownBuffer = buffered
        emit(.status(rows, picture))
    }

    private mutating func sonogramEnded(id: Int, _ result: Result<Sonogram, WorkFailure>) {
        // A computation replaced by a newer `sono` ends quietly.
        guard let job = sonogramJob, job.id == id else { return }
        sonogramJob = nil
        switch result {
        case .success(let sonogram): show(sonogram, job)
        case .failure(.stopped): refuse(job.row.map { "sono \($0) stopped" } ?? "sono stopped")
        case .failure(.failed(let message)): refuse(message)
        }
        gate.handle(.sonogramDone)
    }

    // MARK: - Saying and asking

    mutating func emit(_ action: Action) {
        actions.append(action)
    }

    /// Sends a request; typed lines wait for its answer.
    mutating func ask(_ request: Request) {
        unanswered += 1
        emit(.request(request))
    }

    /// A new work id.
    mutating func nextWorkID() -> Int {
        lastWorkID += 1
        return lastWorkID
    }

    mutating func leave(_ status: Int32) {
        // A quiz still running ends with its score.
        if quizMachine.isOn { run(quizMachine.stop()) }
        ended = true
        emit(.quit(status: status))
    }

    mutating func startSonogram(
        row: Int?, recording: Recording, item: PlayItem, shape: SonogramShape, display: SonogramDisplay, png: String?,
        fromZero: Bool = false
    ) {
        let id = nextWorkID()
        let boxes = recording.annotations.enumerated().compactMap { index, box -> SonogramRaster.Box? in
            box.span.map {
                SonogramRaster.Box(number: index + 1, span: TimeSpan(start: $0.start, end: $0.end), band: box.band)
            }
        }
        sonogramJob = SonogramJob(
            id: id, row: row, label: recording.label, title: recording.englishName, display: display, png: png,
            boxes: boxes, fromZero: fromZero)
        emit(.drawSonogram(id: id, item, shape))
    }

    /// A computed sonogram, shown as its job asked (and written as a PNG).
    private mutating func show(_ drawn: Sonogram, _ job: SonogramJob) {
        var sonogram = drawn
        if job.fromZero { sonogram.startTime = 0 }
        switch job.display {
        case .text(let columns, let rows):
            let picture =
                sonogram.columns == columns && sonogram.rows == rows
                ? sonogram : sonogram.resampled(columns: columns, rows: rows)
            say(presenter.sonogram(picture, label: job.label, title: job.title, boxes: job.boxes))
        case .pixels(let canvas, let columns, let rows):
            let picture =
                sonogram.columns == columns && sonogram.rows == rows
                ? sonogram : sonogram.resampled(columns: columns, rows: rows)
            let image = SonogramRaster.image(picture, boxes: job.boxes)
            emit(
                .showPicture(
                    [presenter.sonogramHeader(picture, label: job.label, title: job.title)], image, canvas))
        }
        if let path = job.png {
            ask(.writePNG(SonogramRaster.image(sonogram, boxes: job.boxes), path: path))
        }
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
