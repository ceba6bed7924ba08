import ChirperCore
import ChirperSystem
import NIOConcurrencyHelpers

/// How the player's states reach those who follow them: each change is decided under the player's lock
/// (`send`) and posted to the subscribers' channels after it, in the order decided.
extension Player {
    /// The current state, then every change, once each and in order, until `shutdown` (then it is finished),
    /// or until the consumer cancels it. Each call makes an independent channel.
    public func stateUpdates() -> Channel<PlaybackState, Never> {
        let updates = Channel(of: PlaybackState.self, failure: Never.self)
        let deliver = locked.withLockedValue { locked in
            let id = locked.nextSubscriber
            locked.nextSubscriber += 1
            locked.subscribers[id] = updates
            return Self.publish(.state(locked.published, to: [id: updates]), in: &locked)
        }
        if deliver { self.deliver() }
        return updates
    }

    /// What is published to whom: a state to the subscribers there were when it was decided, or the end.
    enum Publication {
        case state(PlaybackState, to: [Int: Channel<PlaybackState, Never>])
        case end([Channel<PlaybackState, Never>])
    }

    /// Queues `publication` in the outbox (lock held); true when the caller is to deliver it, after unlocking.
    static func publish(_ publication: Publication, in locked: inout Locked) -> Bool {
        locked.outbox.append(publication)
        guard !locked.delivering else { return false }
        locked.delivering = true
        return true
    }

    /// Posts the outbox, in order, with the lock released; until it stays empty. One thread at a time delivers
    /// (the one `publish` told to), so two states decided one after the other are never posted the other way
    /// round. A subscriber whose channel is cancelled is dropped.
    func deliver() {
        var gone: Set<Int> = []
        while true {
            let publications = locked.withLockedValue { locked -> [Publication] in
                gone.forEach { locked.subscribers[$0] = nil }
                if locked.outbox.isEmpty { locked.delivering = false }
                defer { locked.outbox = [] }
                return locked.outbox
            }
            gone = []
            if publications.isEmpty { return }
            for publication in publications {
                switch publication {
                case .state(let state, let subscribers):
                    for (id, subscriber) in subscribers where !subscriber.post(state) { gone.insert(id) }
                case .end(let subscribers):
                    subscribers.forEach { $0.finish() }
                }
            }
        }
    }
}
