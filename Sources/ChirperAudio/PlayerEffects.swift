import ChirperCore
import NIOConcurrencyHelpers

/// The player's one effect runner: what each action of the machine means for which pipeline, decided under the
/// lock (`effect(for:in:)`), and performed after it (`run`).
extension Player {
    /// An action with the pipelines it concerns, looked up under the lock; pipelines are registered inside
    /// it so that a concurrent command always finds the pipeline it must stop.
    enum Effect {
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
        /// `command` to its channel.
        case tell(Pipeline?, PipelineCommand, running: Bool?)

        var isNothing: Bool {
            if case .nothing = self { return true }
            return false
        }
    }

    static func effect(for action: PlaybackMachine.Action, in locked: inout Locked) -> Effect {
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
    func run(_ effect: Effect) {
        switch effect {
        case .nothing:
            break
        case .start(let pipeline, let item, let previous):
            previous?.stop()
            Task { [self] in
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
