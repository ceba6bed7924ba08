import AsyncHTTPClient
import ChirperAudio
import ChirperCatalog
import ChirperCore
import ChirperDesktop
import ChirperHTTP
import ChirperIdentify
import ChirperREPL
import ChirperStore
import Dispatch
import FoundationEssentials
import NIOCore
import Synchronization
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

@main
struct ChirperPlay {
    let options: LaunchOptions

    static func main() {
        let request: LaunchRequest
        do {
            request = try LaunchOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            // A batch run's bad usage is status 2, as the tools it runs beside (a job array's script) expect.
            if CommandLine.arguments.dropFirst().first == "identify" {
                FileIO.writeAll(LaunchHelp.failure(error).utf8, to: STDERR_FILENO)
                exit(2)
            }
            fail(error)
        }
        switch request {
        case .help:
            print(LaunchHelp.text, terminator: "")
        case .version:
            print(ChirperVersion.current)
        case .completionScript(let shell):
            print(LaunchHelp.completionScript(for: shell), terminator: "")
        case .identify(let options):
            AllocatorTuning.apply()
            // As the session: the main thread parks, the run ends the process with its status.
            Task.detached { exit(await BatchIdentify.run(options)) }
            while true { pause() }
        case .run(let options):
            let program = ChirperPlay(options: options)
            do {
                try program.validate()
            } catch {
                fail(error)
            }
            AllocatorTuning.apply()
            HTTPClients.runOnOneEventLoop()
            // The session runs on the global executor and ends the process with its status; the main thread
            // parks. An async `main` would hand the main thread to `dispatch_main`, which ends it with
            // `pthread_exit`: a forced unwind of its stack that read most of the binary's unwind tables
            // at every start and kept them resident.
            Task.detached {
                do throws(LaunchError) {
                    exit(try await program.run())
                } catch {
                    ChirperPlay.fail(error)
                }
            }
            while true { pause() }
        }
    }

    /// A command line that cannot be run: its one line and the usage on standard error, status 64 (EX_USAGE).
    static func fail(_ error: LaunchError) -> Never {
        FileIO.writeAll(LaunchHelp.failure(error).utf8, to: STDERR_FILENO)
        exit(64)
    }

    func validate() throws(LaunchError) {
        if GraphicsMode(rawValue: options.graphics) == nil {
            throw LaunchError("--graphics takes auto, kitty, sixel or blocks")
        }
        if !["auto", "fixed"].contains(options.contrast) {
            throw LaunchError("--contrast takes auto or fixed")
        }
        if let perPage = options.perPage, !(1...500).contains(perPage) {
            throw LaunchError("--per-page must be between 1 and 500 (xeno-canto serves 50 to 500)")
        }
        do {
            _ = try OutputChoice(parsing: options.output)
        } catch {
            throw LaunchError("\(error)")
        }
        if CacheIndex.parseSize(options.cacheSize) == nil {
            throw LaunchError("--cache-size takes a size such as 500MB, 2G or 800k (0 turns the cache off)")
        }
        if options.offline && options.catalog != nil {
            throw LaunchError("--offline and --catalog both choose what to search; give one")
        }
        let scheme = URLComponents(string: options.apiURL)?.scheme?.lowercased()
        if scheme != "http" && scheme != "https" {
            throw LaunchError("--api-url must be an http(s) URL")
        }
        do {
            _ = try TLSTrust.resolve(environment: [:], caFiles: options.caFiles)
        } catch {
            throw LaunchError(error.description)
        }
    }

    /// Runs the session; returns the exit status.
    func run() async throws(LaunchError) -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let key = (options.apiKey ?? environment["XENO_CANTO_API_KEY"] ?? "").trimmingSpaces
        let saveDirectory = RecordingSaver.defaultDirectory(environment: environment)
        let cacheDirectory = RecordingCache.defaultDirectory(environment: environment)
        // An offline catalogue is read and checked on a thread of its own while the rest is set up (the HTTP
        // clients, the cache, the player), on another core: every launch without an API key waits for it.
        let offline = Self.loadingOffline(
            key: key, catalog: options.catalog, offline: options.offline,
            sidecarsIn: [saveDirectory, cacheDirectory.path])
        let interactive = !options.json && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        // Checked in `validate`; SSL_CERT_FILE / SSL_CERT_DIR naming nothing usable is said once, on stderr.
        let trust: TLSTrust
        let trustNotices: [String]
        do {
            (trust, trustNotices) = try TLSTrust.resolve(environment: environment, caFiles: options.caFiles)
        } catch {
            throw LaunchError(error.description)
        }
        // Proxy variables (HTTPS_PROXY, NO_PROXY …) that cannot be used are said once, on stderr, as well.
        let (proxies, proxyNotices) = ProxyRules.resolve(environment: environment)
        for notice in trustNotices + proxyNotices {
            FileIO.writeAll("chirper-play: \(notice)\n".utf8, to: STDERR_FILENO)
        }
        let http = HTTPClients.streaming(trust: trust, rules: proxies)
        if offline == nil, let perPage = options.perPage, perPage < 50 {
            await http.shutdown()
            throw LaunchError("xeno-canto serves 50 to 500 recordings a page; --per-page \(perPage) is too small")
        }
        let choice: OutputChoice
        do {
            choice = try OutputChoice(parsing: options.output)
        } catch {
            await http.shutdown()
            throw LaunchError("\(error)")
        }
        let live = ByteSources.live(routes: http)
        // What comes from outside the session (the cache's notices, the desktop's commands) is posted here, and
        // reaches the REPL in order once it exists: the cache's index is read before the REPL is made.
        let outside = ChirperSystem.Channel(of: REPL.Signal.self, failure: Never.self)
        let limit = CacheIndex.parseSize(options.cacheSize) ?? CacheIndex.defaultLimit
        let cache =
            limit > 0
            ? RecordingCache(
                directory: cacheDirectory, limit: limit, now: { Date().timeIntervalSince1970 },
                report: { outside.post(.cacheNotice($0)) })
            : nil
        let sources = cache.map { ByteSources.cached(live, cache: $0) } ?? live
        // On a terminal the position is read every 0.1 s, so the live sonogram strip's marker keeps within
        // 0.1 s of what is heard; a pipe prints no positions between state changes, so 0.25 s is plenty.
        let configuration = Player.Configuration(progressInterval: .milliseconds(interactive ? 100 : 250))
        let player = Player(sink: choice.makeSink(), sources: sources, configuration: configuration)
        let saveHTTP = HTTPClients.downloading(trust: trust, rules: proxies)
        let source: any RecordingSource
        let sourceLine: String
        do {
            if let offline {
                // Posted before the channel ends, unless loading it threw.
                (source, sourceLine) = try await offline.next()!
            } else {
                let configuration = XenoCantoConfiguration(apiURL: options.apiURL, apiKey: key)
                (source, sourceLine) = (XenoCantoClient(configuration: configuration, routes: http), "xeno-canto")
            }
        } catch {
            await saveHTTP.shutdown()
            await http.shutdown()
            throw LaunchError(error.description)
        }
        let client = source as? XenoCantoClient<ContinuousClock>
        let fieldKit = FieldKit(
            saver: RecordingSaver(
                sources: ByteSources.live(routes: saveHTTP), pace: { await client?.waitForTurn() }),
            saveDirectory: saveDirectory,
            played: { recording in
                if case .playable(.remote) = recording.audio { cache?.remember(recording, fetched: Date()) }
            })
        let graphicsMode = GraphicsMode(rawValue: options.graphics) ?? .auto
        let console = Self.console(interactive: interactive, askGraphics: graphicsMode == .auto, json: options.json)
        let color = console.isInteractive && !options.noColor && (environment["NO_COLOR"] ?? "").isEmpty
        let presenter = Presenter(
            style: console.isInteractive ? .terminal(color: color) : .script,
            width: console.width,
            sourceName: source.name,
            trueColor: ["truecolor", "24bit"].contains(environment["COLORTERM"]?.lowercased() ?? ""),
            exampleSearch: source.exampleSearch
        )
        // MPRIS on the session bus, started in the background once the session runs (see `startDesktop`).
        let desktop = options.noMpris ? nil : DesktopRelay()
        // The desktop's cover art (the sonogram of what plays) is kept in a folder of the session's own. None
        // without a bus to be had, nor without the cache: the picture reads the player's download from it, and
        // would otherwise download each recording a second time.
        let busMayExist = MPRISServer.sessionBusMayExist(environment)
        let coverArtFolder =
            desktop != nil && cache != nil && busMayExist ? Self.makeCoverArtFolder(environment: environment) : nil
        let removeCoverArt: @Sendable () -> Void = {
            if let coverArtFolder { try? FileManager.default.removeItem(atPath: coverArtFolder) }
        }
        let birdNET = BirdNETIdentifier(
            modelDirectory: options.modelDirectory ?? BirdNETIdentifier.defaultDirectory(environment: environment),
            libraryPath: OnnxRuntime.defaultLibraryPath(environment: environment),
            reader: MonoAudioReader(sources: cache.map { ByteSources.cached(live, cache: $0, follows: true) } ?? live),
            threads: ProcessInfo.processInfo.activeProcessorCount)
        let repl = REPL(
            console: console,
            list: ListController(source: SessionSource(archive: source), perPage: options.perPage),
            player: player,
            // The sonogram follows a download the player has running, instead of making its own.
            sonograms: SonogramReader(
                sources: cache.map { ByteSources.cached(live, cache: $0, follows: true) } ?? live),
            presenter: presenter,
            fieldKit: fieldKit,
            contrast: options.contrast == "fixed" ? .fixedDefault : .auto,
            graphics: graphicsMode,
            pictures: GraphicsPictures(),
            // Measurements follow a download the player has running, as the sonogram does.
            measurer: MeasurementReader(
                sources: cache.map { ByteSources.cached(live, cache: $0, follows: true) } ?? live),
            // BirdNET hears what the player downloads, too; its model and runtime are loaded by the first identify.
            identifier: birdNET,
            // identify on hears what the player decodes, with the same model, loaded once for both.
            listener: birdNET,
            quiz: Self.quizKit(
                source: source, perPage: options.perPage, saveDirectory: saveDirectory,
                cacheDirectory: cacheDirectory.path,
                environment: environment),
            desktop: desktop,
            coverArtFolder: coverArtFolder
        )
        repl.listen(to: outside)
        if let desktop {
            Self.startDesktop(desktop, signals: outside, busMayExist: busMayExist)
        }
        // SIGTERM or SIGHUP ends the session as `quit` does, so the cache's writes below are done; a second one
        // (a session that does not end) leaves at once, still after those writes.
        let signals = Self.watchSignals(repl: repl, console: console) {
            cache?.flush()
            removeCoverArt()
        }
        let banner =
            console.isInteractive ? presenter.banner(version: ChirperVersion.current, source: sourceLine) : []
        // The sound server is connected now, once the session's threads exist: loading libpulse (dozens of
        // libraries) holds glibc's loader lock, and a thread started meanwhile waited for it (perf sched: the
        // pipe reader's thread, and with it the first line of a cold start).
        player.warmUp()
        let status = await repl.run(banner: banner, opening: options.paths)
        // The desktop stops being shown the picture before it goes.
        desktop?.stop()
        removeCoverArt()
        signals.forEach { $0.cancel() }
        // Sidecars and commits still queued are written before the program ends.
        cache?.flush()
        await saveHTTP.shutdown()
        await http.shutdown()
        return status
    }

    /// The quiz: decks from the catalogue or the disk, and the store (opened at its first use; one that cannot
    /// be opened refuses every answer with its reason, and the quiz goes on without keeping them).
    static func quizKit(
        source: any RecordingSource, perPage: Int?, saveDirectory: String, cacheDirectory: String,
        environment: [String: String]
    ) -> QuizKit {
        let decks = QuizDecks(
            source: source, perPage: perPage ?? source.defaultPerPage, savedDirectory: saveDirectory,
            cacheDirectory: cacheDirectory)
        return QuizKit(decks: decks, store: LazyQuizStore(path: QuizStore.defaultPath(environment: environment)))
    }

    /// Starts the MPRIS server on a thread of its own, off the path to the first line and the first sound (it
    /// loads libsystemd and connects to the bus). Without a session bus (SSH, a container) the session is told
    /// (a terminal gets one line, a pipe nothing).
    static func startDesktop(
        _ desktop: DesktopRelay, signals: ChirperSystem.Channel<REPL.Signal, Never>, busMayExist: Bool
    ) {
        let missing =
            "no D-Bus session bus: media keys and playerctl do not see chirper-play (--no-mpris hides this line)"
        // No bus to be had: said at once, with no thread and no libsystemd.
        guard busMayExist else {
            signals.post(.desktopMissing(missing))
            return
        }
        startDetachedThread(name: "chirper-mpris-go") {
            do {
                desktop.attach(try MPRISServer.start { signals.post(.desktop($0)) })
            } catch {
                signals.post(.desktopMissing(missing))
            }
        }
    }

    /// A new folder, readable by this user only, for the cover art: in `$XDG_RUNTIME_DIR` (the session's
    /// own, emptied at logout), else in the temporary folder; nil if none can be made (no cover art then).
    static func makeCoverArtFolder(environment: [String: String]) -> String? {
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let parent = runtime.flatMap { access($0, W_OK) == 0 ? $0 : nil } ?? PathText.temporaryDirectory
        var template = Array((parent.hasSuffix("/") ? parent : parent + "/").utf8CString.dropLast())
        template += Array("chirper-play-art.XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
    }

    /// Line editing on a terminal; plain lines in a pipe, or when the terminal cannot be set up.
    static func console(interactive: Bool, askGraphics: Bool, json: Bool = false) -> any Console {
        guard interactive else { return PipeConsole(json: json) }
        do {
            return try TerminalConsole(askGraphics: askGraphics)
        } catch {
            FileIO.writeAll(
                "chirper-play: line editing is unavailable (\(error)); reading plain lines\n".utf8, to: STDERR_FILENO)
            return PipeConsole()
        }
    }

    /// Ctrl-C goes to the REPL (it stops playback). SIGTERM and SIGHUP end the REPL as `quit` does (the caller
    /// then writes what is pending); a second one restores the terminal, runs `lastWrites` and exits at once.
    static func watchSignals(
        repl: REPL, console: any Console, lastWrites: @escaping @Sendable () -> Void
    ) -> [any DispatchSourceSignal] {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGHUP, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { repl.send(.interrupt) }
        interrupt.resume()
        let received = Mutex(0)
        let leave = [SIGTERM, SIGHUP].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let count = received.withLock { count -> Int in
                    count += 1
                    return count
                }
                guard count > 1 else {
                    repl.send(.terminate(status: 128 + number))
                    return
                }
                console.closeAtOnce()
                lastWrites()
                Glibc.exit(128 + number)
            }
            source.resume()
            return source
        }
        return [interrupt] + leave
    }
}
