import ChirperCatalog
import ChirperCore
import FoundationEssentials
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The read-eval-print loop's effect runner. Every event (typed lines, list and playback changes, Ctrl-C, the
/// workers' results) goes, in order, through the one ``SessionMachine``, which decides; the actor only does
/// what it was told: prints, asks the list and the player, and starts or cancels the workers. Nothing else
/// prints.
public actor REPL {
    /// What the outside tells the session.
    public enum Signal: Sendable {
        /// Ctrl-C.
        case interrupt
        /// SIGTERM or SIGHUP: leave as `quit` does (playback stopped, the terminal restored, what the caller
        /// still writes written), ending with `status`.
        case terminate(status: Int32)
        /// One line from the play cache (a rebuilt index, a folder that cannot be written).
        case cacheNotice(String)
        /// The desktop (MPRIS) asked for this.
        case desktop(DesktopCommand)
        /// There is no session bus: the line for a terminal (and no cover art is drawn).
        case desktopMissing(String)
    }

    let console: any Console
    private let list: ListController
    private let player: any PlaybackControl
    private let sonograms: any SonogramSource
    private let fieldKit: FieldKit
    private let pictures: any PictureWriting
    private let measurer: any MeasurementSource
    private let identifier: any SpeciesIdentifying
    /// `identify on`'s classifier, and its listener while on.
    private let listener: any LiveSpeciesListening
    private var live = LiveListenerWork()
    private var session: SessionMachine
    private let answerer: RequestAnswerer
    /// The session's one channel: the console, the list, the player, the signals and the workers post here.
    private let eventSink = Channel(of: SessionMachine.Event.self, failure: Never.self)
    /// The running work, one task for each kind, keyed by what cancels or replaces it.
    private var tasks: [WorkKey: Task<Void, Never>] = [:]
    /// While the strip is on: what the player decodes (`heard`), routed into what the strip's painter is asked
    /// to draw (`work`).
    private var stripWork: (work: Channel<StripWork, Never>, heard: Channel<HeardAudio, Never>)?
    /// Answers given at once, taken before the next event.
    private var ready: [SessionMachine.Event] = []
    private let quiz: QuizKit
    private let desktop: (any DesktopPublishing)?
    /// Times A/B listening's gaps.
    private let clock: any Clock<Duration>
    /// The live strip's last page in real pixels, encoded (once a page).
    private var stripPicture: (image: StripImage, picture: StatusPicture)?

    public init(
        console: any Console, list: ListController, player: any PlaybackControl, sonograms: any SonogramSource,
        presenter: Presenter, fieldKit: FieldKit = .none, contrast: SonogramContrast = .auto,
        graphics: GraphicsMode = .auto, pictures: any PictureWriting = NoPictures(),
        measurer: any MeasurementSource = NoMeasurements(),
        identifier: any SpeciesIdentifying = NoSpeciesIdentifier(reason: "identify is not available here"),
        listener: any LiveSpeciesListening = NoLiveListener(reason: "identify on is not available here"),
        quiz: QuizKit = .none,
        desktop: (any DesktopPublishing)? = nil, coverArtFolder: String? = nil,
        clock: any Clock<Duration> = ContinuousClock(), seed: UInt64 = .random(in: 0...UInt64.max)
    ) {
        self.quiz = quiz
        self.desktop = desktop
        self.clock = clock
        self.pictures = pictures
        self.measurer = measurer
        self.identifier = identifier
        self.listener = listener
        self.console = console
        self.list = list
        self.player = player
        self.sonograms = sonograms
        self.fieldKit = fieldKit
        answerer = RequestAnswerer(list: list, player: player, fieldKit: fieldKit, pictures: pictures, quiz: quiz)
        session = SessionMachine(
            SessionMachine.Setup(
                interactive: console.isInteractive, presenter: presenter, saveDirectory: fieldKit.saveDirectory,
                homeDirectory: getenv("HOME").map { String(cString: $0) } ?? PathText.homeDirectory, contrast: contrast,
                graphics: graphics, terminal: console.graphics, seed: seed, desktop: desktop != nil,
                coverArtFolder: coverArtFolder))
    }

    /// Feeds a signal from outside.
    public nonisolated func send(_ signal: Signal) {
        eventSink.post(Self.event(signal))
    }

    /// Takes `signals` as they come (those posted already first), in order: the channel of what is posted
    /// from outside before the session exists and while it runs.
    public nonisolated func listen(to signals: Channel<Signal, Never>) {
        signals.route(into: eventSink, Self.event)
    }

    private static func event(_ signal: Signal) -> SessionMachine.Event {
        switch signal {
        case .interrupt: .interrupt
        case .terminate(let status): .terminate(status: status)
        case .cacheNotice(let text): .cacheNotice(text)
        case .desktop(let command): .desktop(command)
        case .desktopMissing(let text): .desktopMissing(text)
        }
    }

    /// Runs until `quit`, a signal to leave, or the end of input. Returns the exit status.
    /// `opening`: files and folders named at launch, opened before any line is read.
    public func run(banner: [String], opening: [String] = []) async -> Int32 {
        console.print(banner)
        if !opening.isEmpty { eventSink.post(.launchOpen(opening)) }
        let console = self.console
        // The console, the list and the player post straight into the session's channel.
        player.stateUpdates().route(into: eventSink) { .playback($0) }
        list.updates.route(into: eventSink) { .list($0) }
        console.lines.route(into: eventSink, { .typed($0, columns: console.width) }, ended: .inputEnded)
        var status: Int32 = 0
        events: while let event = await eventSink.next() {
            // An answer is taken before the next event, so the session sees its requests in order.
            var inbox = [event]
            while !inbox.isEmpty {
                for action in session.handle(inbox.removeFirst()) {
                    if case .quit(let code) = action {
                        status = code
                        break events
                    }
                    perform(action)
                }
                inbox += ready
                ready = []
            }
        }
        // A request asked on the way out (the quiz's sound stopped) is answered, as the runner once waited
        // for it; the rest of the work stops.
        let request = tasks.removeValue(forKey: .request)
        for task in tasks.values { task.cancel() }
        live.stop()
        await request?.value
        // Requests still waiting behind it are answered in turn, as the runner once answered each before the next.
        for waiting in session.requests.dropFirst() { _ = await answerer.answer(waiting) }
        // Nobody reads the session's events any more: those who post learn it.
        eventSink.cancel()
        await player.shutdown()
        // The cover art's folder is removed once the session ends: nothing may be written there after. Awaited
        // once the player is down, so that a picture following its download is not left waiting for bytes.
        await tasks[.coverArt]?.value
        await tasks[.coverArtRemoval]?.value
        console.setStatus([])
        await console.close()
        return status
    }

    /// The live strip's page as the terminal draws it: encoded when the page is new, each page under a new id.
    private func statusPicture(_ image: StripImage) -> StatusPicture {
        if let kept = stripPicture, kept.image == image { return kept.picture }
        let id = (stripPicture?.picture.id ?? StatusPicture.firstID - 1) &+ 1
        // A page that cannot be drawn (a graphics library missing) leaves the strip's rows empty: `sono` says why.
        let picture = StatusPicture(
            escape: (try? pictures.escape(for: image.image, on: image.canvas)) ?? "",
            protocol: image.canvas.pixelProtocol, id: id, lines: image.lines, column: image.column)
        stripPicture = (image, picture)
        return picture
    }

    /// Answers `request`: at once when it asks the player a command, otherwise in a task off the runner whose
    /// answer comes back as an event.
    private func send(_ request: SessionMachine.Request) {
        if let answer = answerer.answerAtOnce(request) {
            ready.append(.answered(answer))
            return
        }
        let (answerer, sink) = (self.answerer, eventSink)
        replace(.request, with: Task { sink.post(.answered(await answerer.answer(request))) })
    }

    /// Stops the strip's painter and what hands it the player's audio.
    private func stopStrip() {
        cancel(.strip)
        stripWork?.heard.cancel()
        stripWork?.work.cancel()
        stripWork = nil
    }

    /// Starts `task` under `key`, cancelling the one it replaces.
    private func replace(_ key: WorkKey, with task: Task<Void, Never>) {
        tasks[key]?.cancel()
        tasks[key] = task
    }

    private func cancel(_ key: WorkKey) {
        tasks[key]?.cancel()
    }

    /// Does one thing the session decided.
    private func perform(_ action: SessionMachine.Action) {
        switch action {
        case .print(let lines):
            console.print(lines)
        case .showPicture(let lines, let image, let canvas):
            do {
                console.print(lines + [try pictures.escape(for: image, on: canvas)])
            } catch {
                console.print(lines)
                eventSink.post(.pictureRefused(userMessage(for: error)))
            }
        case .status(let rows, let image):
            console.setStatus(rows, picture: image.map(statusPicture))
        case .markInterrupted:
            console.interrupted()
        case .request(let request):
            send(request)
        case .drawSonogram(let id, let item, let shape):
            start(.sonogram) {
                .sonogram(id: id, $0)
            } computing: { [sonograms] in
                try await sonograms.sonogram(of: item, shape: shape)
            }
        case .cancelSonogram:
            cancel(.sonogram)
        case .listenStrip:
            stopStrip()
            let (work, heard, sink) = (Channel<StripWork, Never>(), player.heardAudio(), eventSink)
            // The player's thread hands each piece straight on; once the painter is gone, the player is told.
            heard.route(into: work) { .heard($0) }
            stripWork = (work, heard)
            replace(
                .strip,
                with: Task { [sonograms] in
                    await sonograms.drawStrip(work) { ticket, result in
                        sink.post(
                            .stripPicture(
                                ticket, result.mapError { SessionMachine.WorkFailure.failed(userMessage(for: $0)) }))
                    }
                })
        case .computeStrip(let item, let ticket, let shape, let duration):
            stripWork?.work.post(.draw(item, ticket, shape, duration: duration))
        case .cancelStrip:
            stopStrip()
        case .measure(let id, let item, let span, let band):
            start(.measure) {
                .measured(id: id, $0)
            } computing: { [measurer] in
                try await measurer.measure(item, span: span, band: band, signalWithin: nil)
            }
        case .cancelMeasure:
            cancel(.measure)
        case .compare(let id, let tasks):
            start(.compare) {
                .compared(id: id, $0)
            } computing: { [sonograms, measurer] in
                var results: [SessionMachine.Compared] = []
                for task in tasks {
                    let section = task.section
                    let sonogram = try await sonograms.sonogram(of: section.item, shape: task.shape)
                    let measurement = try await measurer.measure(
                        section.item, span: section.span, band: section.band, signalWithin: task.signalWithin)
                    results.append(SessionMachine.Compared(sonogram: sonogram, measurement: measurement))
                }
                return results
            }
        case .cancelCompare:
            cancel(.compare)
        case .identify(let id, let task):
            start(.identify) {
                .identified(id: id, $0)
            } computing: { [identifier] in
                try await identifier.identify(
                    task.item, span: task.span, options: task.options, place: RecordingPlace(recording: task.recording))
            }
        case .cancelIdentify:
            cancel(.identify)
        case .listenLive(let options):
            live.start(options, player: player, listener: listener, sink: eventSink)
        case .stopLive:
            live.stop()
        case .livePlayed(let played):
            live.played(played)
        case .buildQuizDeck(let id, let origin):
            start(.quizDeck) {
                .quizDeck(id: id, $0)
            } computing: { [decks = quiz.decks] in
                try await decks.recordings(for: origin)
            }
        case .cancelQuizDeck:
            cancel(.quizDeck)
        case .publishDesktop(let state, let seeked):
            desktop?.publish(state, seeked: seeked)
        case .drawCoverArt(let file, let item, let path):
            // One drawing at a time: the next waits for the one it stops, so awaiting the last awaits them all.
            let previous = tasks[.coverArt]
            start(.coverArt) {
                .coverArt(file: file, drawn: (try? $0.get()) != nil)
            } computing: { [sonograms, pictures] () async throws -> Void in
                await previous?.value
                let sonogram = try await sonograms.sonogram(of: item, shape: CoverArtMachine.shape)
                try Task.checkCancellation()
                // Written whole, then renamed (PNGFile): the desktop never reads half a picture.
                try pictures.writePNG(SonogramRaster.plain(sonogram), to: path)
            }
        case .stopCoverArt:
            cancel(.coverArt)
        case .removeCoverArt(let path):
            // Off the runner, in turn with the removals before it.
            let previous = tasks[.coverArtRemoval]
            tasks[.coverArtRemoval] = Task {
                await previous?.value
                unlink(path)
            }
        case .drawQuizPictures(let id, let pictures):
            start(.quizPictures) {
                .quizPictures(id: id, $0)
            } computing: { [sonograms] in
                try await QuizPicture.draw(pictures) { try await sonograms.sonogram(of: $0.item, shape: $0.shape) }
            }
        case .abWait(let seconds, let round):
            let (clock, sink) = (self.clock, eventSink)
            replace(
                .abGap,
                with: Task {
                    guard (try? await clock.sleep(for: .seconds(seconds))) != nil else { return }
                    sink.post(.abGapEnded(round: round))
                })
        case .save(let recording, let directory, let batch):
            let saver = fieldKit.saver
            let sink = eventSink
            replace(
                .save,
                with: Task {
                    let outcome = await saver.save(recording, into: directory) { progress in
                        sink.post(.saveProgress(batch: batch, progress))
                    }
                    sink.post(.saveEnded(batch: batch, outcome))
                })
        case .cancelSave:
            cancel(.save)
        case .quit:
            break
        }
    }

    /// Work off the event loop (a sonogram, a measurement, a comparison); its result, or why there is none
    /// (stopped, or the error's one line), comes back as an event.
    private func start<Value: Sendable>(
        _ key: WorkKey,
        _ event: @escaping @Sendable (Result<Value, SessionMachine.WorkFailure>) -> SessionMachine.Event,
        computing: @escaping @Sendable () async throws -> Value
    ) {
        let sink = eventSink
        replace(
            key,
            with: Task {
                let result: Result<Value, SessionMachine.WorkFailure>
                do {
                    result = .success(try await computing())
                } catch is CancellationError {
                    result = .failure(.stopped)
                } catch {
                    result = .failure(.failed(userMessage(for: error)))
                }
                sink.post(event(result))
            })
    }
}

/// What names a piece of running work in the runner's table: starting another of the same kind replaces it,
/// and cancelling by the name stops it.
enum WorkKey: Hashable, Sendable {
    /// The request being answered off the runner.
    case request
    case sonogram
    /// The live strip's painter.
    case strip
    case save
    case measure
    case compare
    case identify
    /// The gap between A/B sides.
    case abGap
    case quizDeck
    case quizPictures
    case coverArt
    /// Cover art files no longer shown, removed one after the other.
    case coverArtRemoval
}
