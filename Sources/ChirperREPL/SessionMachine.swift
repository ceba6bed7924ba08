import ChirperCatalog
import ChirperCore

/// The REPL session as one pure machine. It composes the machines of the session (which line runs when, the
/// play queue, the save batch, the live strip) with the rendered list and playback states, takes every event
/// in order, and returns what to do: lines to print, the status line, and requests to the list, the player
/// and the workers. The ``REPL`` actor only runs those actions and feeds their answers back as events.
struct SessionMachine: Sendable {
    /// What the session is told once, at the start.
    struct Setup: Sendable {
        /// A terminal (prompt, status line) rather than a script in a pipe.
        var interactive: Bool
        var presenter: Presenter
        /// Where `save` puts files when no folder is given.
        var saveDirectory: String
        /// `$HOME`, for `~` in a folder given to `save`.
        var homeDirectory: String
        /// How sonograms map levels to grey (`--contrast`).
        var contrast: SonogramContrast = .auto
        /// How `sono` draws at the start (`--graphics`), and what the terminal said it can draw.
        var graphics: GraphicsMode = .auto
        var terminal: TerminalGraphicsSupport = .none
        /// Seeds each quiz given no `--seed` (the runner's random number).
        var seed: UInt64 = 0
        /// The desktop (MPRIS) is on the bus, or may be: the rendered state is published to it (until
        /// `desktopMissing`).
        var desktop = false
        /// Where the desktop's cover art is kept (the runner's own folder); nil: none is drawn.
        var coverArtFolder: String?
    }

    enum Event: Sendable, Hashable {
        /// A line was typed; `columns`: the terminal's width then (for `help`).
        case typed(String, columns: Int)
        case inputEnded
        case list(ListState)
        case playback(PlaybackState)
        /// Ctrl-C.
        case interrupt
        /// SIGTERM or SIGHUP: leave as `quit` does, with this status.
        case terminate(status: Int32)
        /// One line from the play cache.
        case cacheNotice(String)
        /// The `sono` computation `id` ended.
        case sonogram(id: Int, Result<Sonogram, WorkFailure>)
        case saveProgress(batch: Int, SaveProgress)
        case saveEnded(batch: Int, SaveOutcome)
        /// The live strip's picture of play request `ticket`, or why there is none.
        case stripPicture(PlaybackTicket, Result<Sonogram, WorkFailure>)
        /// The gap `round` of A/B listening is over.
        case abGapEnded(round: Int)
        /// The `compare` computation `id` ended: each section's picture and figures, in order.
        case compared(id: Int, Result<[Compared], WorkFailure>)
        /// The `measure` computation `id` ended: the measurement, or the line saying why there is none.
        case measured(id: Int, Result<SelectionMeasurement, WorkFailure>)
        /// The recordings of quiz deck `id` arrived, or why not.
        case quizDeck(id: Int, Result<[Recording], WorkFailure>)
        /// Sono mode's pictures `id` were drawn, or why not.
        case quizPictures(id: Int, Result<[Sonogram], WorkFailure>)
        /// The desktop (MPRIS: media keys, playerctl) asked for this.
        case desktop(DesktopCommand)
        /// There is no session bus: this line is said on a terminal, not in a pipe, and no cover art is drawn.
        case desktopMissing(String)
        /// Cover art picture `file` was written (`drawn`), or could not be.
        case coverArt(file: Int, drawn: Bool)
        /// A picture shown could not be drawn for the terminal (a graphics library missing): the line says why.
        case pictureRefused(String)
        /// The answer to a ``Request``.
        case answered(Answer)
    }

    /// Why work off the event loop (a sonogram, a strip picture, a measurement, a comparison) gave nothing.
    enum WorkFailure: Error, Sendable, Hashable {
        /// Ctrl-C stopped it (or a new one replaced it).
        case stopped
        /// The line to show.
        case failed(String)
    }

    /// What the list and the player are asked; each gets one ``Answer``, and no typed line runs before it.
    enum Request: Sendable, Hashable {
        case search(SearchQuery)
        case nextPage
        /// Start `item`, the audio of `recording` (and tell the play cache what it is); `forQueue`: the queue's
        /// item.
        case play(PlayItem, Recording, forQueue: Bool)
        case stop(StopCause)
        case control(PlayerControl)
        /// Write a picture as a PNG file.
        case writePNG(RasterImage, path: String)
        /// Write text (the selection table) to a file.
        case writeText(String, path: String)
        /// Remember the quiz's deck in the store, and read what is known of its cards.
        case loadQuiz(QuizDeck)
        /// Keep a quiz answer and the card's memory after it.
        case keepQuizAnswer(QuizAnswerRecord)
        case quizStats
        /// Write the quiz's cards and their recordings as CSV.
        case exportQuiz(path: String)
    }

    enum StopCause: Sendable, Hashable {
        case command
        case interrupt
        /// The quiz ended: stop its question if it still plays, and say nothing if nothing does.
        case quiet
    }

    /// The player's commands that answer at once with a refusal or nothing.
    enum PlayerControl: Sendable, Hashable {
        case pause
        case resume
        case seek(TimeInput)
        case loop(TimeInput, TimeInput)
        case loopOff
        case speed(PlaybackSpeed)
        case volume(Int)
        case muted(Bool)
        /// Play `a`-`b` of the loaded track once, only `band` of it if given (A/B listening).
        case section(TimeInput, TimeInput, FrequencyBand?)
        /// Change nothing (`speed` alone): the answer brings the settings in force.
        case settings

        /// Its answer says the settings in force (speed, volume, mute).
        var saysSettings: Bool {
            switch self {
            case .speed, .volume, .muted, .settings: return true
            default: return false
            }
        }
    }

    enum Answer: Sendable, Hashable {
        case searched
        case nextPage(refusal: String?)
        case started(PlaybackTicket, Recording, forQueue: Bool)
        case stopped(refusal: String?, StopCause)
        case control(PlayerControl, refusal: String?, settings: PlaybackSettings)
        case pngWritten(path: String, refusal: String?)
        case textWritten(path: String, refusal: String?)
        case quiz(QuizAnswerEvent)
    }

    enum Action: Sendable, Hashable {
        case print([String])
        /// Print these lines, then `image` drawn with a terminal graphics protocol.
        case showPicture([String], RasterImage, PixelCanvas)
        /// Show these status rows (the live strip's, then the status line; none: no status), with the strip's
        /// image in real pixels over its first rows when it has one. Only sent when they change.
        case status([String], StripImage?)
        /// Ctrl-C arrived: a terminal drops the half-typed line.
        case markInterrupted
        case request(Request)
        /// Compute a sonogram for `sono` (replacing one still running); it ends as `.sonogram`.
        case drawSonogram(id: Int, PlayItem, SonogramShape)
        case cancelSonogram
        /// Listen to what the player decodes, for the live strip's pictures (until `cancelStrip`).
        case listenStrip
        /// Compute the live strip's picture of `item`, `duration` seconds long if known (replacing one still
        /// being made); it comes back as `.stripPicture`, again as it grows.
        case computeStrip(PlayItem, PlaybackTicket, SonogramShape, duration: Double?)
        case cancelStrip
        /// Measure `span` × `band` of `item` (replacing a measurement still running); it ends as `.measured`.
        case measure(id: Int, PlayItem, TimeSpan, FrequencyBand?)
        case cancelMeasure
        /// Draw and measure each section (replacing a comparison still running); it ends as `.compared`.
        case compare(id: Int, [CompareTask])
        case cancelCompare
        /// Fetch the recordings of a quiz deck (replacing a fetch still running); it ends as `.quizDeck`.
        case buildQuizDeck(id: Int, QuizOrigin)
        case cancelQuizDeck
        /// Compute sono mode's pictures (replacing any still running); they end as `.quizPictures`.
        case drawQuizPictures(id: Int, [QuizPicture])
        /// Show the desktop this state (MPRIS properties); `seeked`: signal `Seeked` too.
        case publishDesktop(DesktopState, seeked: Bool)
        /// Draw `item`'s cover art into `path` (stopping a drawing still running); it ends as `.coverArt(file)`.
        case drawCoverArt(file: Int, PlayItem, path: String)
        /// Stop the cover art drawing running.
        case stopCoverArt
        /// Remove a cover art picture no longer shown.
        case removeCoverArt(path: String)
        /// Wait `seconds`, then report `abGapEnded(round)` (the runner's clock).
        case abWait(seconds: Double, round: Int)
        /// Save one recording as part of `batch`; it reports as `.saveProgress` and `.saveEnded`.
        case save(Recording, directory: String, batch: Int)
        case cancelSave
        /// Leave with this status.
        case quit(status: Int32)
    }

    /// The last play request and its recording, for attribution, titles, `wait` and `loop ann`.
    struct Playing: Sendable, Hashable {
        var ticket: PlaybackTicket
        var recording: Recording
        /// A quiz question's: `recording` names nothing, and no attribution is said for it.
        var masked = false
    }

    /// The `sono` being computed, and how its picture is shown.
    struct SonogramJob: Sendable, Hashable {
        var id: Int
        /// Nil: the recording playing.
        var row: Int?
        var label: String
        var title: String?
        var display: SonogramDisplay
        /// Also written here as a PNG.
        var png: String?
        var boxes: [SonogramRaster.Box]
        /// An open quiz question's: its times are shown from 0, as heard (its place in the recording could tell it).
        var fromZero = false
    }

    /// A time section and a band of one recording: what `measure` measures, what `compare` sets beside
    /// others, a side of `ab`.
    struct Selection: Sendable, Hashable {
        var recording: Recording
        var item: PlayItem
        var span: TimeSpan
        var band: FrequencyBand?
    }

    /// The `measure` being computed.
    struct MeasureJob: Sendable, Hashable {
        var id: Int
        var selection: Selection
    }

    /// Where a sonogram goes: text (half-blocks, shades, `sono:` lines) of this many cells, or pixels.
    enum SonogramDisplay: Sendable, Hashable {
        case text(columns: Int, rows: Int)
        case pixels(PixelCanvas, columns: Int, rows: Int)
    }

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

    mutating func say(_ lines: [String]) {
        if !lines.isEmpty { emit(.print(lines)) }
    }

    mutating func refuse(_ text: String) {
        say([presenter.refusal(text)])
    }

    /// Sends a request; typed lines wait for its answer.
    mutating func ask(_ request: Request) {
        unanswered += 1
        emit(.request(request))
    }

    mutating func hold(_ blocker: LineGateMachine.Blocker) {
        gate.handle(.hold(blocker))
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
