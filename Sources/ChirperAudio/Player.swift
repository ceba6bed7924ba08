import AsyncHTTPClient
import ChirperCore
import ChirperSystem
import NIOConcurrencyHelpers

/// Plays one recording at a time: source → sniff → decoder → sink, driven by `PlaybackMachine`.
///
/// Every event goes through the machine under one lock; the effect it names is decided inside the lock and
/// run outside it, by one runner (`run`). The pipeline runs in its own task and gets its work (reconnect,
/// give up, drain, stop) as messages in its mailbox; `stop` silences at once and returns when that task
/// has ended.
/// State changes are published once each, in order, to every `stateUpdates()` channel: decided under the
/// lock, posted after it (see `deliver`).
public final class Player: Sendable {

    struct Locked {
        var machine: PlaybackMachine
        var published: PlaybackState = .start
        var subscribers: [Int: Channel<PlaybackState, Never>] = [:]
        var nextSubscriber = 0
        /// Publications decided under the lock and not yet posted, in order (see `deliver`).
        var outbox: [Publication] = []
        /// A thread is posting the outbox: others leave theirs for it, so the order is kept.
        var delivering = false
        /// When only the position or buffered figures last changed the published state.
        var figuresPublishedAt: Duration?
        /// Pipelines whose task has not finished yet (the current one and any being torn down).
        var pipelines: [PlaybackMachine.Ticket: Pipeline] = [:]
        /// The machine's stall watch and when (on the stall clock) it began.
        var stall: (watch: StallWatch, since: Duration)?
        /// Times `stall` while there is one (see `watchStalls`).
        var stallTimer: Task<Void, Never>?
    }

    let sink: any AudioSink
    let sources: ByteSources
    let clocks: Clocks
    /// Time on the progress clock since the player was made (for the publish throttle).
    private let progressElapsed: @Sendable () -> Duration
    /// Time on the stall clock since the player was made (for the stall watchdog).
    let stallElapsed: @Sendable () -> Duration
    let configuration: Configuration
    let locked: NIOLockedValueBox<Locked>
    /// Those who listen to what the tracks decode (`heardAudio()`).
    let hearing = HeardAudioRelay()

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
        self.stallElapsed = elapsedTime(on: clocks.stall)
        self.configuration = configuration
        self.locked = NIOLockedValueBox(
            Locked(
                machine: PlaybackMachine(
                    policy: configuration.policy, maxReconnects: configuration.maxReconnects,
                    realTimeOutput: sink.playsInRealTime, decodeChunkBytes: configuration.decodeChunkBytes)))
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

    /// Jumps to `time` in the recording (inside what arrived: no request; beyond: a `Range` request from the
    /// byte the decoder names); or the reason it cannot (nothing playing, a time outside the recording).
    @discardableResult
    public func seek(_ time: TimeInput) -> String? {
        send { $0.seekRequested(time) }.refusal
    }

    /// Repeats `a`…`b` gap-free until `loopOff`, starting at `a`; or the reason it cannot.
    @discardableResult
    public func loop(from a: TimeInput, to b: TimeInput) -> String? {
        send { $0.loopRequested(from: a, to: b) }.refusal
    }

    /// Plays `a`–`b` of the loaded track once (only `band` of it, if given): it jumps to `a` and the track
    /// ends at `b`. Or the reason not.
    public func playSection(from a: TimeInput, to b: TimeInput, band: FrequencyBand?) -> String? {
        send { $0.loopRequested(from: a, to: b, once: true, band: band) }.refusal
    }

    /// Stops repeating; playback goes on past the loop's end. Or the reason there is nothing to stop.
    @discardableResult
    public func loopOff() -> String? {
        send { $0.loopOffRequested() }.refusal
    }

    /// Plays this and later tracks at `speed` (tape: pitch moves; keep: pitch kept).
    @discardableResult
    public func setSpeed(_ speed: PlaybackSpeed) -> String? {
        send { $0.speedRequested(speed) }.refusal
    }

    /// Sets the volume (0…100, 50 halves the amplitude) at once, for this and later tracks; unmutes.
    @discardableResult
    public func setVolume(_ percent: Int) -> String? {
        send { $0.volumeRequested(percent) }.refusal
    }

    /// Mutes (true) or unmutes, keeping the volume; or the reason it changes nothing.
    @discardableResult
    public func setMuted(_ muted: Bool) -> String? {
        send { $0.muteRequested(muted) }.refusal
    }

    /// Speed, volume and mute as the machine holds them.
    public var settings: PlaybackSettings {
        locked.withLockedValue { $0.machine.settings }
    }

    /// Connects to the sound server in the background (at start-up, while the first search runs), so the
    /// first `play` finds the connection ready. A failure here is not reported: the first `play` tries again
    /// and says what went wrong.
    public func warmUp() {
        let sink = self.sink
        Task { try? await sink.prepare() }
    }

    /// Stops, closes the sink's connection and ends every `stateUpdates()` stream.
    public func shutdown() async {
        await stop()
        sink.shutdown()
        let deliver = locked.withLockedValue { locked in
            defer { locked.subscribers.removeAll() }
            return Self.publish(.end(Array(locked.subscribers.values)), in: &locked)
        }
        if deliver { self.deliver() }
        hearing.finish()
    }

    // MARK: - Events and effects

    /// Feeds one event to the machine and publishes the state under the lock, deciding there what the
    /// action means for which pipeline; then runs it outside the lock.
    @discardableResult
    func send(_ event: (inout PlaybackMachine) -> PlaybackMachine.Action) -> Reply {
        var single = PlaybackMachine.Action.nothing
        let active = perform { machine in
            single = event(&machine)
            return [single]
        }
        return Reply(action: single, active: active)
    }

    /// Feeds one event that leads to several actions: all are decided, and the state published, under one
    /// taking of the lock; their effects then run in order outside it. Returns the loaded track after it.
    @discardableResult
    func perform(_ event: (inout PlaybackMachine) -> [PlaybackMachine.Action]) -> PlaybackTicket? {
        let now = progressElapsed()
        let stallNow = stallElapsed()
        let (effects, active, deliver) = locked.withLockedValue { locked -> ([Effect], PlaybackTicket?, Bool) in
            let actions = event(&locked.machine)
            let effects = actions.map { Self.effect(for: $0, in: &locked) }
            let state = locked.machine.playbackState
            var deliver = false
            if state != locked.published, shouldPublish(state, at: now, in: &locked) {
                locked.published = state
                deliver = Self.publish(.state(state, to: locked.subscribers), in: &locked)
            }
            followStallWatch(at: stallNow, in: &locked)
            return (effects, locked.machine.activeTicket, deliver)
        }
        if deliver { self.deliver() }
        for effect in effects { run(effect) }
        return active
    }

    /// What a command learns from the machine, at the moment it decided.
    struct Reply {
        /// What the machine decided.
        var action: PlaybackMachine.Action
        /// The loaded track's ticket after the event.
        var active: PlaybackTicket?
        /// Why the command was refused (nothing changed).
        var refusal: String? { action.refusal }
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
        case nothing
        case start(Pipeline, item: PlayItem, after: Pipeline?)
        /// A new segment: the command goes in first, then the output is retired (so a write it wakes finds
        /// the command waiting).
        case restart(Pipeline?, PlaybackSegment)
        case volume(Pipeline?, percent: Int)
        case stop(Pipeline?)
        /// End the pipeline at once; it reports `failed(reason)` once it has released everything.
        case giveUp(Pipeline?, reason: String)
        case setRunning(Pipeline?, Bool)
        /// Work for the pipeline task: silence (or start) the sink first when `running` says so, then post
        /// `command` to its mailbox.
        case tell(Pipeline?, PipelineCommand, running: Bool?)
    }

    private static func effect(for action: PlaybackMachine.Action, in locked: inout Locked) -> Effect {
        let active = locked.machine.activeTicket.flatMap { locked.pipelines[$0] }
        switch action {
        case .nothing, .refuse:
            // A refusal is answered to the caller (`Reply`); nothing to run.
            return .nothing
        case .finishPipeline(let ticket):
            // The sink played the track out (`drainFinished`): its pipeline ends.
            return .tell(locked.pipelines[ticket], .finish, running: nil)
        case .restartSegment(let ticket, let segment):
            return .restart(locked.pipelines[ticket], segment)
        case .applyVolume(let percent):
            return .volume(active, percent: percent)
        case .drainOutput:
            return .tell(active, .drain, running: nil)
        case .startOutputAndDrain:
            return .tell(active, .drain, running: true)
        case .giveUp(let ticket, let reason):
            return .giveUp(locked.pipelines[ticket], reason: reason)
        case .reconnect(let ticket, let offset, let attempt):
            // The sink plays on from its queue; the pipeline waits the back-off and fetches.
            return .tell(locked.pipelines[ticket], .reconnect(from: offset, attempt: attempt), running: nil)
        case .startPipeline(let item, let ticket, let segment):
            let pipeline = Pipeline(ticket: ticket, volume: segment.settings.audibleVolume)
            locked.pipelines[ticket] = pipeline
            return .start(pipeline, item: item, after: nil)
        case .replacePipeline(let stopping, let item, let ticket, let segment):
            let pipeline = Pipeline(ticket: ticket, volume: segment.settings.audibleVolume)
            let old = locked.pipelines[stopping]
            locked.pipelines[ticket] = pipeline
            return .start(pipeline, item: item, after: old)
        case .stopPipeline(let ticket):
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
        case .nothing:
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
        case .giveUp(let pipeline, let reason):
            pipeline?.stop(failing: reason)
        case .restart(let pipeline, let segment):
            pipeline?.post(.restart(segment))
            pipeline?.output.retire()
        case .volume(let pipeline, let percent):
            pipeline?.output.setVolume(percent)
        case .setRunning(let pipeline, let running):
            pipeline?.output.setRunning(running)
        case .tell(let pipeline, let command, let running):
            if let running { pipeline?.output.setRunning(running) }
            pipeline?.post(command)
        }
    }

}

/// Time elapsed on `clock` since this call (opens the existential so its instants can be kept).
private func elapsedTime(on clock: some Clock<Duration>) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
}

extension PlaybackMachine.Action {
    /// The reason, for `refuse`.
    fileprivate var refusal: String? {
        if case .refuse(let reason) = self { return reason }
        return nil
    }
}
