import AsyncHTTPClient
import ChirperCore
import ChirperSystem
import NIOConcurrencyHelpers

/// Plays one recording at a time: source → sniff → decoder → sink, driven by `PlaybackMachine`.
///
/// Every event goes through the machine under one lock; the effect it names is decided inside the lock and
/// run outside it, by one runner (`run`). The pipeline runs in its own task and gets its work (reconnect,
/// restart, drain, stop) as commands in its one channel, beside its connection's news; `stop` silences at
/// once and returns when that task has ended.
/// State changes are published once each, in order, to every `stateUpdates()` channel: decided under the
/// lock, posted after it and after the effects decided with them (see `deliver`).
public final class Player: Sendable {

    struct Locked {
        var machine: PlaybackMachine
        var published: PlaybackState = .start
        var subscribers: [Int: Channel<PlaybackState, Never>] = [:]
        var nextSubscriber = 0
        /// Publications decided under the lock and not yet posted, in order (see `deliver`).
        var outbox: [Outgoing] = []
        /// A thread is posting the outbox: others leave theirs for it, so the order is kept.
        var delivering = false
        /// The last hold on the outbox given out (see `publish`).
        var lastHold = 0
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
        let delivery = locked.withLockedValue { locked in
            defer { locked.subscribers.removeAll() }
            return Self.publish(.end(Array(locked.subscribers.values)), in: &locked)
        }
        complete(delivery)
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
        let (effects, active, delivery) = locked.withLockedValue { locked -> ([Effect], PlaybackTicket?, Delivery) in
            let actions = event(&locked.machine)
            let effects = actions.map { Self.effect(for: $0, in: &locked) }.filter { !$0.isNothing }
            let state = locked.machine.playbackState
            var delivery = Delivery.none
            if state != locked.published, shouldPublish(state, at: now, in: &locked) {
                locked.published = state
                // Held until the effects have run: `playing` is seen once the output is started, not before.
                delivery = Self.publish(
                    .state(state, to: locked.subscribers), in: &locked, holding: !effects.isEmpty)
            }
            followStallWatch(at: stallNow, in: &locked)
            return (effects, locked.machine.activeTicket, delivery)
        }
        for effect in effects { run(effect) }
        complete(delivery)
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

    /// A change of state, place (`PlaybackProgress.samePlace`) or duration is published at once; a change of position or buffered
    /// seconds alone at most once per `progressInterval`, so a fast decode does not flood the status line.
    private func shouldPublish(_ next: PlaybackState, at now: Duration, in locked: inout Locked) -> Bool {
        guard let old = locked.published.progress, let new = next.progress,
            Self.kind(of: locked.published) == Self.kind(of: next),
            old.samePlace(as: new), old.duration == new.duration
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
