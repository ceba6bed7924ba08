import AsyncHTTPClient
import ChirperCore
import NIOConcurrencyHelpers

/// Plays one recording at a time: source → sniff → decoder → sink, driven by `PlaybackMachine`.
///
/// Every event goes through the machine under one lock; the effect it names is decided inside the lock and
/// run outside it, by one runner (`run`). The pipeline runs in its own task and gets its work (reconnect,
/// give up, drain, stop) as messages in its mailbox; `stop` silences at once and returns when that task
/// has ended.
/// State changes are published once each, in order, to every `stateUpdates()` stream.
public final class Player: Sendable {
    public struct Configuration: Sendable {
        /// When to start and restart the sound.
        public var policy: BufferingPolicy
        /// No bytes for this long while waiting for them: `failed("network stalled…")`.
        public var stallTimeout: Duration
        /// How often the position is read from the sink while playing.
        public var progressInterval: Duration
        /// Largest piece of input fed to the decoder at once (bounds the PCM produced per step).
        public var decodeChunkBytes: Int
        /// How many dropped connections a track survives (each resumed with `Range: bytes=N-`).
        public var maxReconnects: Int
        /// The wait before the first reconnect; it doubles for each further one (on the injected clock).
        public var reconnectBackoff: Duration

        public init(
            policy: BufferingPolicy = .default,
            stallTimeout: Duration = .seconds(20),
            progressInterval: Duration = .milliseconds(250),
            decodeChunkBytes: Int = 16 * 1024,
            maxReconnects: Int = 3,
            reconnectBackoff: Duration = .milliseconds(500)
        ) {
            self.policy = policy
            self.stallTimeout = stallTimeout
            self.progressInterval = progressInterval
            self.decodeChunkBytes = max(1, decodeChunkBytes)
            self.maxReconnects = max(0, maxReconnects)
            self.reconnectBackoff = reconnectBackoff
        }

        /// The wait before reconnect number `attempt` (1, 2, …): the back-off, doubled per earlier attempt.
        public func backoff(attempt: Int) -> Duration {
            reconnectBackoff * (1 << min(max(attempt - 1, 0), 16))
        }
    }

    /// The clocks the player waits on, each injectable on its own so tests can drive one without the others.
    public struct Clocks: Sendable {
        /// Times the stall watchdog (`Configuration.stallTimeout`).
        public var stall: any Clock<Duration>
        /// Times the wait before each reconnect (`Configuration.backoff(attempt:)`).
        public var backoff: any Clock<Duration>
        /// Times the position reads (`Configuration.progressInterval`) and the publish throttle.
        public var progress: any Clock<Duration>

        public init(
            stall: any Clock<Duration> = ContinuousClock(),
            backoff: any Clock<Duration> = ContinuousClock(),
            progress: any Clock<Duration> = ContinuousClock()
        ) {
            self.stall = stall
            self.backoff = backoff
            self.progress = progress
        }
    }

    private struct Locked {
        var machine: PlaybackMachine
        var published: PlaybackState = .start
        var subscribers: [Int: AsyncStream<PlaybackState>.Continuation] = [:]
        var nextSubscriber = 0
        /// When only the position or buffered figures last changed the published state.
        var figuresPublishedAt: Duration?
        /// Pipelines whose task has not finished yet (the current one and any being torn down).
        var pipelines: [PlaybackMachine.Ticket: Pipeline] = [:]
    }

    private let sink: any AudioSink
    private let sources: ByteSources
    private let clocks: Clocks
    /// Time on the progress clock since the player was made (for the publish throttle).
    private let progressElapsed: @Sendable () -> Duration
    private let configuration: Configuration
    private let locked: NIOLockedValueBox<Locked>

    /// - Parameters:
    ///   - sink: where the sound goes (kept for the session).
    ///   - sources: how locations become byte sources (HTTP(S) and local files by default).
    ///   - clock: the clock for the stall timeout and the reconnect back-off (tests inject their own); the
    ///     progress reads keep the continuous clock.
    public convenience init(
        sink: any AudioSink,
        sources: ByteSources = .live(),
        clock: any Clock<Duration> = ContinuousClock(),
        configuration: Configuration = Configuration()
    ) {
        self.init(
            sink: sink, sources: sources, clocks: Clocks(stall: clock, backoff: clock),
            configuration: configuration)
    }

    /// - Parameters:
    ///   - sink: where the sound goes (kept for the session).
    ///   - sources: how locations become byte sources (HTTP(S) and local files by default).
    ///   - clocks: the stall, back-off and progress clocks (tests inject their own, separately).
    public init(
        sink: any AudioSink,
        sources: ByteSources = .live(),
        clocks: Clocks,
        configuration: Configuration = Configuration()
    ) {
        self.sink = sink
        self.sources = sources
        self.clocks = clocks
        self.progressElapsed = elapsedTime(on: clocks.progress)
        self.configuration = configuration
        self.locked = NIOLockedValueBox(
            Locked(machine: PlaybackMachine(policy: configuration.policy, maxReconnects: configuration.maxReconnects)))
    }

    /// A player for an `--output` choice.
    public convenience init(output: OutputChoice, configuration: Configuration = Configuration()) {
        self.init(sink: output.makeSink(), configuration: configuration)
    }

    // MARK: - Observing

    /// The state now.
    public var state: PlaybackState {
        locked.withLockedValue { $0.published }
    }

    /// Pipelines still running (the current track, or one being torn down). 0 after `stop` returns.
    public var runningPipelines: Int {
        locked.withLockedValue { $0.pipelines.count }
    }

    /// The current state, then every change, once each and in order, until `shutdown` (or until the
    /// consumer stops iterating). Each call makes an independent stream.
    public func stateUpdates() -> AsyncStream<PlaybackState> {
        let (stream, continuation) = AsyncStream.makeStream(of: PlaybackState.self, bufferingPolicy: .unbounded)
        let id = locked.withLockedValue { locked in
            let id = locked.nextSubscriber
            locked.nextSubscriber += 1
            locked.subscribers[id] = continuation
            continuation.yield(locked.published)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.locked.withLockedValue { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: - Commands

    /// Plays `item`, stopping whatever plays first. Returns at once; follow `stateUpdates()`.
    @discardableResult
    public func play(_ item: PlayItem) -> PlaybackTicket {
        // The machine hands out the ticket; every state about this request carries it.
        guard let ticket = send({ $0.playRequested(item) }).active else {
            preconditionFailure("a play request always loads a track")
        }
        return ticket
    }

    /// Silences at once and returns when the pipeline has ended (nothing is left running); or the reason
    /// there was nothing to stop.
    @discardableResult
    public func stop() async -> String? {
        let running = locked.withLockedValue { Array($0.pipelines.values) }
        if let refusal = send({ $0.stopRequested() }).refusal { return refusal }
        for pipeline in running {
            pipeline.stop()
            await pipeline.waitUntilFinished()
        }
        return nil
    }

    /// Pauses the sound (keeps the place); or the reason it cannot (nothing playing, already paused).
    @discardableResult
    public func pause() -> String? {
        send { $0.pauseRequested() }.refusal
    }

    /// Resumes after `pause`; or the reason it cannot (nothing paused).
    @discardableResult
    public func resume() -> String? {
        send { $0.resumeRequested() }.refusal
    }

    /// Stops, closes the sink's connection and ends every `stateUpdates()` stream.
    public func shutdown() async {
        await stop()
        sink.shutdown()
        let subscribers = locked.withLockedValue { locked in
            defer { locked.subscribers.removeAll() }
            return Array(locked.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    // MARK: - Events and effects

    /// Feeds one event to the machine and publishes the state under the lock, deciding there what the
    /// action means for which pipeline; then runs it outside the lock.
    @discardableResult
    private func send(_ event: (inout PlaybackMachine) -> PlaybackMachine.Action) -> Reply {
        let now = progressElapsed()
        let (effect, reply) = locked.withLockedValue { locked -> (Effect, Reply) in
            let action = event(&locked.machine)
            let effect = Self.effect(for: action, in: &locked)
            let state = locked.machine.playbackState
            if state != locked.published, shouldPublish(state, at: now, in: &locked) {
                locked.published = state
                for subscriber in locked.subscribers.values { subscriber.yield(state) }
            }
            return (effect, Reply(refusal: action.refusal, active: locked.machine.activeTicket))
        }
        run(effect)
        return reply
    }

    /// What a command learns from the machine, at the moment it decided.
    private struct Reply {
        /// Why the command was refused (nothing changed).
        var refusal: String?
        /// The loaded track's ticket after the event.
        var active: PlaybackTicket?
    }

    /// A change of state, track or duration is published at once; a change of position or buffered
    /// seconds alone at most once per `progressInterval`, so a fast decode does not flood the status line.
    private func shouldPublish(_ next: PlaybackState, at now: Duration, in locked: inout Locked) -> Bool {
        guard let old = locked.published.progress, let new = next.progress,
            Self.kind(of: locked.published) == Self.kind(of: next),
            old.item == new.item, old.duration == new.duration
        else {
            locked.figuresPublishedAt = now
            return true
        }
        if let last = locked.figuresPublishedAt, now < last + configuration.progressInterval {
            return false
        }
        locked.figuresPublishedAt = now
        return true
    }

    private static func kind(of state: PlaybackState) -> Int {
        switch state {
        case .idle: 0
        case .buffering: 1
        case .playing: 2
        case .paused: 3
        case .failed: 4
        }
    }

    /// An action with the pipelines it concerns, looked up under the lock; pipelines are registered inside
    /// it so that a concurrent command always finds the pipeline it must stop.
    private enum Effect {
        case none
        case start(Pipeline, item: PlayItem, after: Pipeline?)
        case stop(Pipeline?)
        case setRunning(Pipeline?, Bool)
        /// Work for the pipeline task: silence (or start) the sink first when `running` says so, then post
        /// `command` to its mailbox.
        case tell(Pipeline?, PipelineCommand, running: Bool?)
    }

    private static func effect(for action: PlaybackMachine.Action, in locked: inout Locked) -> Effect {
        let active = locked.machine.activeTicket.flatMap { locked.pipelines[$0] }
        switch action {
        case .none, .refuse:
            // A refusal is answered to the caller (`Reply`); nothing to run.
            return .none
        case .drainOutput:
            return .tell(active, .drain, running: nil)
        case .startOutputAndDrain:
            return .tell(active, .drain, running: true)
        case .giveUp(let ticket, let reason):
            return .tell(locked.pipelines[ticket], .giveUp(reason), running: nil)
        case .reconnect(let ticket, let offset, let attempt):
            // The sink is silenced at once (keeping its queue); the pipeline waits the back-off and fetches.
            return .tell(locked.pipelines[ticket], .reconnect(from: offset, attempt: attempt), running: false)
        case .startPipeline(let item, let ticket):
            let pipeline = Pipeline(ticket: ticket)
            locked.pipelines[ticket] = pipeline
            return .start(pipeline, item: item, after: nil)
        case .replacePipeline(let stopping, let item, let ticket):
            let pipeline = Pipeline(ticket: ticket)
            let old = locked.pipelines[stopping]
            locked.pipelines[ticket] = pipeline
            return .start(pipeline, item: item, after: old)
        case .stopPipeline(let ticket), .finishPipeline(let ticket):
            return .stop(locked.pipelines[ticket])
        case .startOutput:
            return .setRunning(active, true)
        case .pauseOutput:
            return .setRunning(active, false)
        }
    }

    /// The one effect runner: every action the machine names is performed here, outside the lock.
    private func run(_ effect: Effect) {
        switch effect {
        case .none:
            break
        case .start(let pipeline, let item, let previous):
            previous?.stop()
            let task = Task { [self] in
                await previous?.waitUntilFinished()
                let outcome = await runPipeline(pipeline, item: item)
                // Everything is released before the last state is published: whoever sees `idle` or
                // `failed` finds nothing left running.
                pipeline.output.close()
                locked.withLockedValue { locked in
                    if locked.pipelines[pipeline.ticket] === pipeline {
                        locked.pipelines[pipeline.ticket] = nil
                    }
                }
                pipeline.markFinished()
                switch outcome {
                case .drained: send { $0.sinkDrained(ticket: pipeline.ticket) }
                case .failed(let reason): send { $0.failed(reason, ticket: pipeline.ticket) }
                case .ended: break
                }
            }
            pipeline.attach(task)
        case .stop(let pipeline):
            pipeline?.stop()
        case .setRunning(let pipeline, let running):
            pipeline?.output.setRunning(running)
        case .tell(let pipeline, let command, let running):
            if let running { pipeline?.output.setRunning(running) }
            pipeline?.post(command)
        }
    }

    // MARK: - The pipeline

    /// How a pipeline ended; the last event is sent once its task has released everything.
    private enum Outcome {
        /// Everything was played: the machine gets `sinkDrained`.
        case drained
        /// Something failed: the machine gets `failed(reason)`.
        case failed(String)
        /// Stopped or replaced, or the machine already decided (e.g. "no audio"): nothing to send.
        case ended
    }

    private func runPipeline(_ pipeline: Pipeline, item: PlayItem) async -> Outcome {
        do {
            try Task.checkCancellation()
            try await sink.prepare()
            let source = try sources.source(for: item.location)
            let monitor = makeStallMonitor(clock: clocks.stall, timeout: configuration.stallTimeout)
            return try await withThrowingTaskGroup(of: Outcome?.self) { group in
                group.addTask {
                    try await monitor.run()
                    return nil
                }
                group.addTask {
                    try await self.reportProgress(pipeline)
                    return nil
                }
                group.addTask { try await self.stream(source, item: item, pipeline: pipeline, monitor: monitor) }
                let outcome = try await group.next() ?? nil
                group.cancelAll()
                return outcome ?? .ended
            }
        } catch {
            if pipeline.isStopped { return .ended }
            return .failed(
                error is CancellationError ? "playback was interrupted; play again" : userMessage(for: error))
        }
    }

    /// Fetches, decodes and queues the whole recording, then drains the sink.
    ///
    /// When a resumable source's body ends early (closed before its length, or a read error), the machine
    /// decides and the runner posts its decision to the mailbox: reconnect after a back-off from the bytes
    /// received so far, feeding the same decoder (so the sink gets exactly what an uninterrupted read
    /// gives), or fail once the drops are used up.
    private func stream(
        _ source: any ByteSource,
        item: PlayItem,
        pipeline: Pipeline,
        monitor: any StallMonitor
    ) async throws -> Outcome {
        let ticket = pipeline.ticket
        var mailbox = pipeline.mailbox.makeAsyncIterator()
        monitor.waiting()
        var reader: (any ByteReader)? = try await source.open(from: 0)
        let total = reader?.totalLength
        let decoder = StreamDecoder(expectedLength: total)
        let limit = configuration.decodeChunkBytes
        var received: Int64 = 0
        while true {
            guard let current = reader else {
                // The connection dropped: reconnect, or stop if the machine failed the track.
                monitor.notWaiting()
                let offset: Int64
                let attempt: Int
                send { $0.connectionDropped(ticket: ticket) }
                switch await mailbox.next() {
                case .reconnect(let from, let number):
                    (offset, attempt) = (from, number)
                case .giveUp(let reason):
                    return .failed(reason)
                case .stop, nil:
                    return .ended
                case .drain:
                    // Drains are only posted after `endOfStream`, which this loop has not sent yet.
                    preconditionFailure("drain posted to a pipeline still reading")
                }
                try await clocks.backoff.sleep(for: configuration.backoff(attempt: attempt))
                monitor.waiting()
                do {
                    reader = try await source.open(from: offset)
                } catch  where Self.isDrop(error) {
                    reader = nil
                }
                continue
            }
            monitor.waiting()
            let next: [UInt8]?
            do {
                next = try await current.read()
            } catch  where source.canResume && Self.isDrop(error) {
                reader = nil
                continue
            }
            guard let chunk = next else {
                if source.canResume, let total, received < total {
                    reader = nil
                    continue
                }
                break
            }
            monitor.notWaiting()
            received += Int64(chunk.count)
            send { $0.bytesArrived(chunk.count, ticket: ticket) }
            var start = 0
            while start < chunk.count {
                let end = min(start + limit, chunk.count)
                let decoded = try chunk[start..<end].withUnsafeBytes { try decoder.feed($0) }
                try await deliver(decoded, item: item, pipeline: pipeline)
                start = end
            }
        }
        monitor.notWaiting()
        try await deliver(try decoder.finish(), item: item, pipeline: pipeline)

        send { $0.endOfStream(ticket: ticket) }
        switch await mailbox.next() {
        case .drain:
            try await pipeline.output.current?.drain()
            return .drained
        case .stop, nil:
            // Stopped, replaced, or failed by the machine (e.g. "no audio"): it already decided.
            return .ended
        case .reconnect, .giveUp:
            // Reconnects and give-ups answer `connectionDropped`, which is never sent after `endOfStream`.
            preconditionFailure("reconnect posted to a pipeline that has read everything")
        }
    }

    /// A failure of the connection (not of the server's answer, the audio or the task): worth a reconnect.
    private static func isDrop(_ error: any Error) -> Bool {
        if case .network = error as? ByteSourceError { return true }
        return false
    }

    /// Hands decoded audio to the sink, opening an output per format, in pieces small enough that the
    /// start threshold is always reached before the sink is full.
    private func deliver(_ decoded: [DecodedAudio], item: PlayItem, pipeline: Pipeline) async throws {
        let ticket = pipeline.ticket
        for piece in decoded {
            switch piece {
            case .format(let format, let duration):
                if let duration { send { $0.durationKnown(duration, ticket: ticket) } }
                if let current = pipeline.output.current {
                    if current.format == format { continue }
                    // A format change inside the track: play out the old stream, then open a new one.
                    try await current.drain()
                }
                let output = try await sink.openOutput(
                    format: format,
                    label: item.label,
                    bufferSeconds: configuration.policy.sinkBuffer,
                    onUnderrun: { [weak self] in
                        // Called on the sound server's thread: hop off it before touching the machine. The
                        // position goes first, so the machine knows what is really left in the sink.
                        Task {
                            guard let self else { return }
                            if let played = pipeline.output.playedSeconds {
                                self.send { $0.progress(playedSeconds: played, ticket: ticket) }
                            }
                            self.send { $0.underrun(ticket: ticket) }
                        }
                    }
                )
                try pipeline.output.install(output, playedBefore: pipeline.queuedSeconds)
            case .samples(let samples):
                guard let output = pipeline.output.current else {
                    throw MP3DecoderError(code: 0, message: "samples before a format")
                }
                let format = output.format
                // At most 50 ms per write, in whole frames.
                let step = max(format.channels, format.sampleRate / 20 * format.channels)
                var start = 0
                while start < samples.count {
                    let end = min(start + step, samples.count)
                    try await output.write(Array(samples[start..<end]))
                    let seconds = format.seconds(ofSamples: end - start)
                    pipeline.addQueued(seconds)
                    send { $0.pcmQueued(seconds: seconds, ticket: ticket) }
                    start = end
                }
                if let played = pipeline.output.playedSeconds {
                    send { $0.progress(playedSeconds: played, ticket: ticket) }
                }
            }
        }
    }

    /// Reads the sink's position every `progressInterval` (also while draining, when nothing is written).
    private func reportProgress(_ pipeline: Pipeline) async throws {
        let ticket = pipeline.ticket
        while true {
            try await clocks.progress.sleep(for: configuration.progressInterval)
            if let played = pipeline.output.playedSeconds {
                send { $0.progress(playedSeconds: played, ticket: ticket) }
            }
        }
    }
}

extension ByteSources {
    /// HTTP(S) through AsyncHTTPClient (only http and https URLs), local paths from the file system.
    public static func live(httpClient: HTTPClient = .shared) -> ByteSources {
        ByteSources { location in
            switch location {
            case .remote(let url): try HTTPByteSource(url: url, client: httpClient)
            case .local(let path): FileByteSource(path: path)
            }
        }
    }
}

/// Time elapsed on `clock` since this call (opens the existential so its instants can be kept).
private func elapsedTime(on clock: some Clock<Duration>) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
}

// MARK: - Pipeline bookkeeping

/// Work the effect runner hands to a pipeline task, in its mailbox.
private enum PipelineCommand: Sendable {
    /// Wait the back-off for reconnect number `attempt`, then fetch again from byte `from`.
    case reconnect(from: Int64, attempt: Int)
    /// The connection dropped once too often: end with `failed(reason)`.
    case giveUp(String)
    /// Everything is queued: wait until the sink has played it, then end as drained.
    case drain
    /// Stopped, replaced or failed: end without a last event.
    case stop
}

/// One play request's task, its output and its mailbox, shared by the player's commands and the task.
private final class Pipeline: Sendable {
    let ticket: PlaybackMachine.Ticket
    let output = OutputControl()
    /// Commands for the pipeline task, read only by that task.
    let mailbox: AsyncStream<PipelineCommand>
    private let postbox: AsyncStream<PipelineCommand>.Continuation
    private struct State {
        var task: Task<Void, Never>?
        var stopped = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var queued: Double = 0
    }
    private let state = NIOLockedValueBox(State())

    init(ticket: PlaybackMachine.Ticket) {
        self.ticket = ticket
        (mailbox, postbox) = AsyncStream.makeStream(of: PipelineCommand.self, bufferingPolicy: .unbounded)
    }

    /// Hands `command` to the pipeline task (dropped once the pipeline is stopped).
    func post(_ command: PipelineCommand) {
        postbox.yield(command)
    }

    var isStopped: Bool { state.withLockedValue { $0.stopped } }

    /// Seconds queued in all of this track's outputs so far.
    var queuedSeconds: Double { state.withLockedValue { $0.queued } }

    func addQueued(_ seconds: Double) {
        state.withLockedValue { $0.queued += seconds }
    }

    func attach(_ task: Task<Void, Never>) {
        let stopped = state.withLockedValue { state in
            state.task = task
            return state.stopped
        }
        if stopped { task.cancel() }
    }

    /// Silences the output at once and cancels the task. Idempotent.
    func stop() {
        let task = state.withLockedValue { state in
            state.stopped = true
            return state.task
        }
        output.close()
        postbox.yield(.stop)
        postbox.finish()
        task?.cancel()
    }

    func markFinished() {
        let waiters = state.withLockedValue { state in
            state.finished = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLockedValue { state in
                if !state.finished { state.waiters.append(continuation) }
                return state.finished
            }
            if finished { continuation.resume() }
        }
    }
}

/// The output of the track being played, reachable from commands (start, pause, stop) while the pipeline
/// task writes to it. Remembers whether it should be running, for an output opened later.
private final class OutputControl: Sendable {
    private struct State {
        var output: (any AudioOutput)?
        var running = false
        var closed = false
        /// Seconds played by earlier outputs of the same track (after a format change).
        var playedBefore: Double = 0
    }
    private let state = NIOLockedValueBox(State())

    var current: (any AudioOutput)? { state.withLockedValue { $0.output } }

    /// The track's position: earlier outputs plus what the current one has played.
    var playedSeconds: Double? {
        let (output, before) = state.withLockedValue { ($0.output, $0.playedBefore) }
        guard let output, let played = output.playedSeconds else { return nil }
        return before + played
    }

    func install(_ output: any AudioOutput, playedBefore: Double) throws {
        let (old, closed, running) = state.withLockedValue { state in
            let old = state.output
            if !state.closed {
                state.output = output
                state.playedBefore = playedBefore
            }
            return (old, state.closed, state.running)
        }
        old?.stop()
        if closed {
            output.stop()
            throw CancellationError()
        }
        if running { try output.start() }
    }

    func setRunning(_ running: Bool) {
        let output = state.withLockedValue { state in
            state.running = running
            return state.output
        }
        // A failure here shows up as the pipeline's next write failing.
        if running { try? output?.start() } else { try? output?.pause() }
    }

    /// Silences and closes the output at once. Idempotent.
    func close() {
        let output = state.withLockedValue { state in
            state.closed = true
            defer { state.output = nil }
            return state.output
        }
        output?.stop()
    }
}

extension PlaybackMachine.Action {
    /// The reason, for `refuse`.
    fileprivate var refusal: String? {
        if case .refuse(let reason) = self { return reason }
        return nil
    }
}
