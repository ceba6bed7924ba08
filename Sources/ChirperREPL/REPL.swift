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
    private var session: SessionMachine
    /// The session's one channel: the console, the list, the player, the signals and the workers post here.
    private let eventSink = Channel(of: SessionMachine.Event.self, failure: Never.self)
    /// The running workers: the `sono` being computed, the live strip's picture, the save of one item.
    private var sonogramTask: Task<Void, Never>?
    private var stripTask: Task<Void, Never>?
    /// While the strip is on: what the player decodes, handed on to the strip's painter (`stripTask`) with
    /// what it is asked to draw, through `stripWork`.
    private var stripHearing: Task<Void, Never>?
    private var stripWork: Channel<StripWork, Never>?
    private var saveTask: Task<Void, Never>?
    private var measureTask: Task<Void, Never>?
    private var compareTask: Task<Void, Never>?
    private var abTimer: Task<Void, Never>?
    private var quizDeckTask: Task<Void, Never>?
    private var quizPicturesTask: Task<Void, Never>?
    /// Draws the desktop's cover art.
    private var coverArtTask: Task<Void, Never>?
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
        measurer: any MeasurementSource = NoMeasurements(), quiz: QuizKit = .none,
        desktop: (any DesktopPublishing)? = nil, coverArtFolder: String? = nil,
        clock: any Clock<Duration> = ContinuousClock(), seed: UInt64 = .random(in: 0...UInt64.max)
    ) {
        self.quiz = quiz
        self.desktop = desktop
        self.clock = clock
        self.pictures = pictures
        self.measurer = measurer
        self.console = console
        self.list = list
        self.player = player
        self.sonograms = sonograms
        self.fieldKit = fieldKit
        session = SessionMachine(
            SessionMachine.Setup(
                interactive: console.isInteractive, presenter: presenter, saveDirectory: fieldKit.saveDirectory,
                homeDirectory: getenv("HOME").map { String(cString: $0) } ?? PathText.homeDirectory, contrast: contrast,
                graphics: graphics, terminal: console.graphics, seed: seed, desktop: desktop != nil,
                coverArtFolder: coverArtFolder))
    }

    /// Feeds a signal from outside.
    public nonisolated func send(_ signal: Signal) {
        switch signal {
        case .interrupt: eventSink.post(.interrupt)
        case .terminate(let status): eventSink.post(.terminate(status: status))
        case .cacheNotice(let text): eventSink.post(.cacheNotice(text))
        case .desktop(let command): eventSink.post(.desktop(command))
        case .desktopMissing(let text): eventSink.post(.desktopMissing(text))
        }
    }

    /// Runs until `quit`, a signal to leave, or the end of input. Returns the exit status.
    public func run(banner: [String]) async -> Int32 {
        console.print(banner)
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
                    if let answer = await perform(action) { inbox.append(.answered(answer)) }
                }
            }
        }
        for task in [
            sonogramTask, stripTask, stripHearing, saveTask, measureTask, compareTask, abTimer, quizDeckTask,
            quizPicturesTask, coverArtTask,
        ] {
            task?.cancel()
        }
        // Nobody reads the session's events any more: those who post learn it.
        eventSink.cancel()
        await player.shutdown()
        // The cover art's folder is removed once the session ends: nothing may be written there after. Awaited
        // once the player is down, so that a picture following its download is not left waiting for bytes.
        await coverArtTask?.value
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

    /// Does one thing the session decided; a request returns its answer.
    private func perform(_ action: SessionMachine.Action) async -> SessionMachine.Answer? {
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
            return await answer(request)
        case .drawSonogram(let id, let item, let shape):
            sonogramTask?.cancel()
            sonogramTask = work {
                .sonogram(id: id, $0)
            } computing: { [sonograms] in
                try await sonograms.sonogram(of: item, shape: shape)
            }
        case .cancelSonogram:
            sonogramTask?.cancel()
        case .listenStrip:
            let (work, heard, sink) = (Channel<StripWork, Never>(), player.heardAudio(), eventSink)
            stripWork = work
            stripHearing = Task {
                // Until the painter or this task is gone; then the player hands nothing more here.
                while let piece = await heard.next(), work.post(.heard(piece)) {}
                heard.cancel()
            }
            stripTask = Task { [sonograms] in
                await sonograms.drawStrip(work) { ticket, result in
                    sink.post(
                        .stripPicture(
                            ticket, result.mapError { SessionMachine.WorkFailure.failed(userMessage(for: $0)) }))
                }
            }
        case .computeStrip(let item, let ticket, let shape, let duration):
            stripWork?.post(.draw(item, ticket, shape, duration: duration))
        case .cancelStrip:
            stripHearing?.cancel()
            stripTask?.cancel()
            stripWork = nil
        case .measure(let id, let item, let span, let band):
            measureTask?.cancel()
            measureTask = work {
                .measured(id: id, $0)
            } computing: { [measurer] in
                try await measurer.measure(item, span: span, band: band, signalWithin: nil)
            }
        case .cancelMeasure:
            measureTask?.cancel()
        case .compare(let id, let tasks):
            compareTask?.cancel()
            compareTask = work {
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
            compareTask?.cancel()
        case .buildQuizDeck(let id, let origin):
            quizDeckTask?.cancel()
            quizDeckTask = work {
                .quizDeck(id: id, $0)
            } computing: { [decks = quiz.decks] in
                try await decks.recordings(for: origin)
            }
        case .cancelQuizDeck:
            quizDeckTask?.cancel()
        case .publishDesktop(let state, let seeked):
            desktop?.publish(state, seeked: seeked)
        case .drawCoverArt(let file, let item, let path):
            // One drawing at a time: the next waits for the one it stops, so awaiting the last awaits them all.
            let previous = coverArtTask
            previous?.cancel()
            coverArtTask = work {
                .coverArt(file: file, drawn: (try? $0.get()) != nil)
            } computing: { [sonograms, pictures] () async throws -> Void in
                await previous?.value
                let sonogram = try await sonograms.sonogram(of: item, shape: CoverArtMachine.shape)
                try Task.checkCancellation()
                // Written whole, then renamed (PNGFile): the desktop never reads half a picture.
                try pictures.writePNG(SonogramRaster.plain(sonogram), to: path)
            }
        case .stopCoverArt:
            coverArtTask?.cancel()
        case .removeCoverArt(let path):
            unlink(path)
        case .drawQuizPictures(let id, let pictures):
            quizPicturesTask?.cancel()
            quizPicturesTask = work {
                .quizPictures(id: id, $0)
            } computing: { [sonograms] in
                try await QuizPicture.draw(pictures) { try await sonograms.sonogram(of: $0.item, shape: $0.shape) }
            }
        case .abWait(let seconds, let round):
            abTimer?.cancel()
            let (clock, sink) = (self.clock, eventSink)
            abTimer = Task {
                guard (try? await clock.sleep(for: .seconds(seconds))) != nil else { return }
                sink.post(.abGapEnded(round: round))
            }
        case .save(let recording, let directory, let batch):
            let saver = fieldKit.saver
            let sink = eventSink
            saveTask = Task {
                let outcome = await saver.save(recording, into: directory) { progress in
                    sink.post(.saveProgress(batch: batch, progress))
                }
                sink.post(.saveEnded(batch: batch, outcome))
            }
        case .cancelSave:
            saveTask?.cancel()
        case .quit:
            break
        }
        return nil
    }

    private func answer(_ request: SessionMachine.Request) async -> SessionMachine.Answer {
        switch request {
        case .search(let query):
            await list.search(query)
            return .searched
        case .nextPage:
            return .nextPage(refusal: await list.nextPage())
        case .play(let item, let recording, let forQueue):
            // The ticket names this request in the states that follow.
            let ticket = player.play(item)
            fieldKit.played(recording)
            return .started(ticket, recording, forQueue: forQueue)
        case .stop(let cause):
            return .stopped(refusal: await player.stop(), cause)
        case .writeText(let text, let path):
            do {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                return .textWritten(path: path, refusal: nil)
            } catch {
                let reason = FileErrorText.reason(error)
                return .textWritten(path: path, refusal: "cannot write \(path): \(reason)")
            }
        case .writePNG(let image, let path):
            do {
                try pictures.writePNG(image, to: path)
                return .pngWritten(path: path, refusal: nil)
            } catch {
                return .pngWritten(path: path, refusal: userMessage(for: error))
            }
        case .loadQuiz(let deck):
            let now = quiz.now()
            do {
                return .quiz(.loaded(try quiz.store.load(deck, at: now), now: now, refusal: nil))
            } catch {
                return .quiz(.loaded(QuizProgress(), now: now, refusal: userMessage(for: error)))
            }
        case .keepQuizAnswer(let record):
            let now = quiz.now()
            do {
                return .quiz(.kept(try quiz.store.keep(record, at: now), now: now, refusal: nil))
            } catch {
                return .quiz(.kept(record.memory(at: now), now: now, refusal: userMessage(for: error)))
            }
        case .quizStats:
            do {
                return .quiz(.stats(try quiz.store.stats(at: quiz.now()), refusal: nil))
            } catch {
                return .quiz(.stats(nil, refusal: userMessage(for: error)))
            }
        case .exportQuiz(let path):
            do {
                let rows = try quiz.store.exportRows()
                try QuizExport.csv(rows).write(toFile: path, atomically: true, encoding: .utf8)
                return .quiz(.exported(path: path, rows: rows.count, refusal: nil))
            } catch {
                let reason =
                    error is any UserFacingError
                    ? userMessage(for: error)
                    : "cannot write \(path): \(FileErrorText.reason(error))"
                return .quiz(.exported(path: path, rows: 0, refusal: reason))
            }
        case .control(let control):
            let refusal: String?
            switch control {
            case .pause: refusal = player.pause()
            case .resume: refusal = player.resume()
            case .seek(let time): refusal = player.seek(time)
            case .loop(let a, let b): refusal = player.loop(from: a, to: b)
            case .loopOff: refusal = player.loopOff()
            case .speed(let speed): refusal = player.setSpeed(speed)
            case .volume(let percent): refusal = player.setVolume(percent)
            case .muted(let muted): refusal = player.setMuted(muted)
            case .section(let a, let b, let band): refusal = player.playSection(from: a, to: b, band: band)
            case .settings: refusal = nil
            }
            return .control(control, refusal: refusal, settings: player.settings)
        }
    }

    /// Work off the event loop (a sonogram, a measurement, a comparison); its result, or why there is none
    /// (stopped, or the error's one line), comes back as an event.
    private func work<Value: Sendable>(
        _ event: @escaping @Sendable (Result<Value, SessionMachine.WorkFailure>) -> SessionMachine.Event,
        computing: @escaping @Sendable () async throws -> Value
    ) -> Task<Void, Never> {
        let sink = eventSink
        return Task {
            let result: Result<Value, SessionMachine.WorkFailure>
            do {
                result = .success(try await computing())
            } catch is CancellationError {
                result = .failure(.stopped)
            } catch {
                result = .failure(.failed(userMessage(for: error)))
            }
            sink.post(event(result))
        }
    }
}
