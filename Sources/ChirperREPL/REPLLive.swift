import ChirperCore
import ChirperSystem

/// `identify on`'s classifier: it hears what the player decodes, as the live strip does, so what plays is
/// fetched and decoded once.
public protocol LiveSpeciesListening: Sendable {
    /// Hears `work` until it ends or the task is cancelled: `ready` once the classifier is loaded, then `heard`
    /// with each segment. Throws (a `UserFacingError`) what stops it: no model, a damaged one.
    func listen(
        _ work: Channel<LiveWork, Never>, options: IdentifyOptions, ready: @escaping @Sendable () -> Void,
        heard: @escaping @Sendable (LiveSegment) -> Void
    ) async throws
}

/// A session without a classifier: `identify on` says what is missing, and how to get it.
public struct NoLiveListener: LiveSpeciesListening {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public func listen(
        _ work: Channel<LiveWork, Never>, options: IdentifyOptions, ready: @escaping @Sendable () -> Void,
        heard: @escaping @Sendable (LiveSegment) -> Void
    ) async throws {
        throw IdentifyUnavailable(reason: reason)
    }
}

/// The runner's side of `identify on`: the channel the listener reads (the player's pieces routed into it, and
/// where playback is), and the listener's task. What it hears comes back as the session's events.
struct LiveListenerWork {
    private var running: (work: Channel<LiveWork, Never>, heard: Channel<HeardAudio, Never>, task: Task<Void, Never>)?

    mutating func start(
        _ options: IdentifyOptions, player: any PlaybackControl, listener: any LiveSpeciesListening,
        sink: Channel<SessionMachine.Event, Never>
    ) {
        stop()
        let (work, heard) = (Channel<LiveWork, Never>(), player.heardAudio())
        // The player's thread hands each piece straight on; once the listener is gone, the player is told.
        heard.route(into: work) { .heard($0) }
        let task = Task {
            do {
                try await listener.listen(
                    work, options: options, ready: { sink.post(.listened(.ready)) },
                    heard: { sink.post(.listened(.heard($0))) })
            } catch is CancellationError {
            } catch {
                // Stopped on purpose, it says nothing.
                guard !Task.isCancelled else { return }
                sink.post(.listened(.failed(userMessage(for: error))))
            }
        }
        running = (work, heard, task)
    }

    /// Where playback is: the listener drops the segments it passed.
    func played(_ played: LiveIdentify.Played) {
        _ = running?.work.post(.played(played.ticket, index: played.index, last: played.last, place: played.place))
    }

    mutating func stop() {
        running?.task.cancel()
        running?.heard.cancel()
        running?.work.cancel()
        running = nil
    }
}
