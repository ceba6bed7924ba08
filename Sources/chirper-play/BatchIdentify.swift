import ChirperAudio
import ChirperCatalog
import ChirperCore
import ChirperIdentify
import ChirperSystem
import Dispatch
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `chirper-play identify PATH… --out DIR`: finds the files, plans the run (``BatchIdentifyPlan``), and does what
/// ``BatchIdentifyMachine`` decides: each file identified by one of a few BirdNET instances, its table written
/// whole, a line per file on standard output.
enum BatchIdentify {
    /// What comes back to the run's loop: the machine's events, and which instance is free again.
    private struct Message: Sendable {
        var event: BatchIdentifyMachine.Event
        var freed: Int?
    }

    /// Files identified at once when `--jobs` does not say: one per two cores, each with two ONNX Runtime threads.
    /// On two cores one file on both was as fast as two files on one each, in half the memory (BENCH.md).
    static func defaultJobs(cores: Int) -> Int { max(1, cores / 2) }

    static func run(_ options: BatchIdentifyOptions) async -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let directory = FileManager.default.currentDirectoryPath
        let modelDirectory = options.modelDirectory ?? BirdNETIdentifier.defaultDirectory(environment: environment)
        if FileIO.size(atPath: modelDirectory + "/BirdNET_GLOBAL_6K_V2.4.onnx") == nil {
            say(BatchIdentifyMachine.unavailable(BirdNETIdentifier.missing(in: modelDirectory)))
            return 1
        }
        let (plan, unreadable) = Self.plan(options, directory: directory)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jobs = max(1, min(options.jobs ?? defaultJobs(cores: cores), plan.toIdentify.count))
        let threads = max(1, cores / jobs)
        let reader = MonoAudioReader(sources: localFiles)
        let instances = (0..<jobs).map { _ in
            BirdNETIdentifier(
                modelDirectory: modelDirectory,
                libraryPath: OnnxRuntime.defaultLibraryPath(environment: environment), reader: reader,
                threads: threads)
        }
        var machine = BatchIdentifyMachine(
            plan: plan, unreadable: unreadable, jobs: jobs, shard: options.shard, model: BirdNETIdentifier.modelName)
        let messages = ChirperSystem.Channel(of: Message.self, failure: Never.self)
        let signals = watchInterrupts(messages)
        defer { signals.forEach { $0.cancel() } }
        var free = Array(instances.indices.reversed())
        var running: [String: Task<Void, Never>] = [:]
        var pending = machine.handle(.start)
        while true {
            for action in pending {
                switch action {
                case .print(let line):
                    say(line)
                case .identify(let item):
                    guard let slot = free.popLast() else { continue }
                    let identifier = instances[slot]
                    let settings = options.identify
                    running[item.source] = Task.detached {
                        let event = await identify(item, with: identifier, options: settings)
                        messages.post(Message(event: event, freed: slot))
                    }
                case .cancel:
                    running.values.forEach { $0.cancel() }
                case .exit(let status):
                    return status
                }
            }
            guard let message = await messages.next() else { return 1 }
            if let slot = message.freed { free.append(slot) }
            switch message.event {
            case .identified(let item, _, _), .failed(let item, _), .stopped(let item): running[item.source] = nil
            default: break
            }
            pending = machine.handle(message.event)
        }
    }

    /// The run's plan: the named paths walked as `open` walks them (audio names in folders, every file named).
    static func plan(_ options: BatchIdentifyOptions, directory: String) -> (BatchIdentifyPlan, [SkippedFile]) {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : base + path }
        let found = FileTree.walk(options.paths, from: directory, keep: OwnFiles.isAudioName)
        let named = options.paths.map { path -> (path: String, isFolder: Bool) in
            var info = stat()
            let isFolder = stat(absolute(path), &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            return (absolute(path), isFolder)
        }
        let plan = BatchIdentifyPlan(
            files: found.files, named: named, out: BatchIdentifyPlan.lexical(absolute(options.out)),
            shard: options.shard,
            modified: { FileIO.status(atPath: $0, followingLinks: true)?.modified })
        // A path that cannot be read belongs to the first shard only, so that it is said once.
        let problems = options.shard.index == 1 ? found.problems : []
        return (plan, problems.map { SkippedFile(path: $0.path, reason: $0.reason) })
    }

    /// One file: its header read, BirdNET run over it, its table written whole.
    private static func identify(
        _ item: BatchIdentifyPlan.Item, with identifier: BirdNETIdentifier, options: IdentifyOptions
    ) async -> BatchIdentifyMachine.Event {
        let recording: Recording
        switch OwnFileReading.row(item.source) {
        case .success(let read): recording = read
        case .failure(let problem): return .failed(item, reason: problem.reason)
        }
        guard let playItem = recording.playItem else {
            return .failed(item, reason: "it cannot be decoded (WAV, FLAC and MP3 are read)")
        }
        let identification: Identification
        do {
            identification = try await identifier.identify(playItem, span: nil, options: options, place: nil)
        } catch is CancellationError {
            return .stopped(item)
        } catch {
            if Task.isCancelled { return .stopped(item) }
            return .failed(item, reason: userMessage(for: error))
        }
        if Task.isCancelled { return .stopped(item) }
        let text = BirdNETSelectionTable.text(
            identification, path: item.source, sampleRate: recording.ownFile?.header.sampleRate)
        let folder = String(item.table[..<(item.table.lastIndex(of: "/") ?? item.table.startIndex)])
        if let error = FileIO.makeFolders(atPath: folder) {
            return .failed(item, reason: "cannot make \(folder): \(String(cString: strerror(error)).lowercased())")
        }
        switch FileIO.writeWhole(text, to: item.table) {
        case nil:
            return .identified(
                item, segments: identification.segments.count, detections: identification.detectionCount)
        case .exists:
            return .failed(item, reason: "cannot write \(item.table)")
        case .failed(let reason):
            return .failed(item, reason: "cannot write \(item.table): \(reason)")
        }
    }

    /// Local files only: a batch run reads nothing from the network.
    private static let localFiles = ByteSources { location in
        switch location {
        case .local(let path): FileByteSource(path: path)
        case .remote: throw NotLocal()
        }
    }

    private struct NotLocal: UserFacingError {
        var userMessage: String { "only files on this machine are identified in a batch" }
    }

    /// Ctrl-C, SIGTERM and SIGHUP stop the run cleanly: the files under way stop, no table is left half written.
    private static func watchInterrupts(_ messages: ChirperSystem.Channel<Message, Never>)
        -> [any DispatchSourceSignal]
    {
        signal(SIGPIPE, SIG_IGN)
        return [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { messages.post(Message(event: .interrupt, freed: nil)) }
            source.resume()
            return source
        }
    }

    private static func say(_ line: String) {
        FileIO.writeAll((line + "\n").utf8, to: STDOUT_FILENO)
    }
}
