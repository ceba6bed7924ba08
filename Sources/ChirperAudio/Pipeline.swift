import ChirperCore
import NIOConcurrencyHelpers
import ChirperSystem

/// Work the effect runner hands to a pipeline task, in its channel: the track machine's commands.
typealias PipelineCommand = TrackMachine.Command

/// What reaches a pipeline task, in its one channel: the playback machine's commands, and what its source's
/// connections met. The task waits on nothing else (a write or a drain of its output returns when a command
/// retires or closes it).
enum PipelineInput: Sendable {
    case command(PipelineCommand)
    /// News of connection `number` (`SourceConnection`).
    case connection(Int, ConnectionNews)
}

/// How a pipeline ended; the last event is sent once its task has released everything.
enum PipelineOutcome {
    /// Everything was played: the machine gets `sinkDrained`.
    case drained
    /// Something failed: the machine gets `failed(reason)`.
    case failed(String)
    /// Stopped or replaced, or the machine already decided (e.g. "no audio"): nothing to send.
    case ended
}

/// One play request's output and channel, shared by the player's commands and the pipeline task.
final class Pipeline: Sendable {
    let ticket: PlaybackMachine.Ticket
    let output: OutputControl
    /// Everything the pipeline task is told, in order, read only by that task: it polls between steps (so a
    /// seek interrupts a long decode) and waits on it when it has nothing else to do. nil from `next`: stopped.
    let inbox = Channel(of: PipelineInput.self, failure: Never.self)
    private struct State {
        var stopped = false
        /// Stopped by the machine giving up: the pipeline ends with `failed(failure)`.
        var failure: String?
    }
    private let state = NIOLockedValueBox(State())
    /// Ends when the pipeline task has released everything: a latch for `waitUntilFinished`.
    private let finished = Channel(of: Never.self, failure: Never.self)

    init(ticket: PlaybackMachine.Ticket, volume: Int) {
        self.ticket = ticket
        self.output = OutputControl(volume: volume)
    }

    /// Hands `command` to the pipeline task (dropped once the pipeline is stopped).
    func post(_ command: PipelineCommand) {
        inbox.post(.command(command))
    }

    var isStopped: Bool { state.withLockedValue { $0.stopped } }

    /// Why the machine gave up on this pipeline, if it did.
    var failure: String? { state.withLockedValue { $0.failure } }

    /// Silences the output at once and tells the task to stop, as the last thing in its channel: whatever it
    /// waits for (its connection, the back-off, room at the output) it is woken by that, and hangs up; with
    /// `failing`, the pipeline then ends as `failed(failing)`. Idempotent (the first reason stays).
    func stop(failing reason: String? = nil) {
        state.withLockedValue { state in
            if !state.stopped { state.failure = reason }
            state.stopped = true
        }
        output.close()
        inbox.post(.command(.stop), last: true)
    }

    func markFinished() {
        finished.finish()
    }

    func waitUntilFinished() async {
        await finished.ended()
    }
}

/// The output of the track being played, reachable from commands (start, pause, seek, volume, stop) while
/// the pipeline task writes to it. Remembers whether it should be running and its volume, for an output
/// opened later.
final class OutputControl: Sendable {
    private struct State {
        var output: (any AudioOutput)?
        /// An output being opened: a stop hangs it up (`close`).
        var opening: Task<any AudioOutput, any Error>?
        /// The segment the current output plays.
        var segment = 0
        var running = false
        var closed = false
        var volume: Int
        /// Seconds played by earlier outputs of the same segment (after a format change).
        var playedBefore: Double = 0
    }
    private let state: NIOLockedValueBox<State>

    init(volume: Int) {
        state = NIOLockedValueBox(State(volume: volume))
    }

    var current: (any AudioOutput)? { state.withLockedValue { $0.output } }

    /// The segment's position at the sink: earlier outputs plus what the current one has played.
    var played: (segment: Int, seconds: Double)? {
        let (output, before, segment) = state.withLockedValue { ($0.output, $0.playedBefore, $0.segment) }
        guard let output, let played = output.playedSeconds else { return nil }
        return (segment, before + played)
    }

    /// Opens an output with `open`, in a task of its own that a stop (`close`) hangs up, as the sound server
    /// may be slow to answer; nil when the control was closed first (the stop is in the pipeline's channel).
    func open(_ open: @escaping @Sendable () async throws -> any AudioOutput) async throws -> (any AudioOutput)? {
        let task = Task { try await open() }
        let closed = state.withLockedValue { state in
            if !state.closed { state.opening = task }
            return state.closed
        }
        if closed { task.cancel() }
        let result = await task.result
        let closedSince = state.withLockedValue { state in
            state.opening = nil
            return state.closed
        }
        switch result {
        case .success(let output):
            return output
        case .failure where closedSince:
            return nil
        case .failure(let error):
            throw error
        }
    }

    /// Makes `output` the current one, for `segment`; false when the control was closed (a stop) first: the
    /// output is stopped, and the command that closed it is in the pipeline's channel.
    func install(_ output: any AudioOutput, segment: Int, playedBefore: Double) throws -> Bool {
        let (old, closed, running, volume) = state.withLockedValue { state in
            let old = state.output
            if !state.closed {
                state.output = output
                state.segment = segment
                state.playedBefore = playedBefore
            }
            return (old, state.closed, state.running, state.volume)
        }
        old?.stop()
        if closed {
            output.stop()
            return false
        }
        output.setVolume(percent: volume)
        if running { try output.start() }
        settle(output, running: running, volume: volume)
        return true
    }

    func setRunning(_ running: Bool) {
        let output = state.withLockedValue { state in
            state.running = running
            return state.output
        }
        guard let output else { return }
        // A failure here shows up as the pipeline's next write failing.
        if running { try? output.start() } else { try? output.pause() }
        settle(output, running: running)
    }

    /// Sets the volume of the current output at once, and of those opened later.
    func setVolume(_ percent: Int) {
        let output = state.withLockedValue { state in
            state.volume = percent
            return state.output
        }
        guard let output else { return }
        output.setVolume(percent: percent)
        settle(output, volume: percent)
    }

    /// After `output` was started or left paused (`running`) or given a volume, as decided under the lock: does
    /// it again while a decision taken meanwhile says otherwise. Two threads that decided one after the other
    /// may act the other way round (a pause typed as the track starts, a volume as a new output opens), and the
    /// output must end as the last decision says; the thread that acts last sees it.
    private func settle(_ output: any AudioOutput, running: Bool? = nil, volume: Int? = nil) {
        var (running, volume) = (running, volume)
        while true {
            let latest = state.withLockedValue { (running: $0.running, volume: $0.volume, output: $0.output) }
            guard latest.output === output else { return }
            var acted = false
            if let applied = running, applied != latest.running {
                if latest.running { try? output.start() } else { try? output.pause() }
                (running, acted) = (latest.running, true)
            }
            if let applied = volume, applied != latest.volume {
                output.setVolume(percent: latest.volume)
                (volume, acted) = (latest.volume, true)
            }
            if !acted { return }
        }
    }

    /// Writes to the current output, waiting while it is full. `.stopped` when there is none, or when it was
    /// retired (a seek) or closed (a stop) under the write: the command that did it is in the pipeline's channel.
    func write(_ samples: [Int16]) async throws -> OutputWrite {
        guard let output = current else { return .stopped }
        let written = try await output.write(samples)
        try checkEnded(output, stopped: written == .stopped)
        return written
    }

    /// Waits until the current output has played everything; `.stopped` when there is none, or when it was
    /// retired or closed under the wait.
    func drain() async throws -> OutputDrain {
        guard let output = current else { return .stopped }
        let drained = try await output.drain()
        try checkEnded(output, stopped: drained == .stopped)
        return drained
    }

    /// An output that stopped while it is still the current one was ended from below (its connection closed),
    /// not by a command: no command will come to move the pipeline on, so it fails.
    private func checkEnded(_ output: any AudioOutput, stopped: Bool) throws {
        guard stopped, current === output else { return }
        throw AudioSinkError.soundServerLost(detail: "its stream was closed")
    }

    /// Silences and drops the current output at once (a seek): a waiting write or drain returns (see `write`);
    /// the pipeline opens a new output for the new segment.
    func retire() {
        let output = state.withLockedValue { state in
            // The new segment's output starts silent: the machine starts it once enough is queued again.
            state.running = false
            defer { state.output = nil }
            return state.output
        }
        output?.stop()
    }

    /// Silences and closes the output at once, for good, and hangs up an output being opened. Idempotent.
    func close() {
        let (output, opening) = state.withLockedValue { state in
            state.closed = true
            defer {
                state.output = nil
                state.opening = nil
            }
            return (state.output, state.opening)
        }
        output?.stop()
        opening?.cancel()
    }
}
