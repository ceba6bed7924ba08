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
        let delivery = locked.withLockedValue { locked in
            let id = locked.nextSubscriber
            locked.nextSubscriber += 1
            locked.subscribers[id] = updates
            return Self.publish(.state(locked.published, to: [id: updates]), in: &locked)
        }
        complete(delivery)
        return updates
    }

    /// What is published to whom: a state to the subscribers there were when it was decided, or the end.
    enum Publication {
        case state(PlaybackState, to: [Int: Channel<PlaybackState, Never>])
        case end([Channel<PlaybackState, Never>])
    }

    /// A publication in the outbox, and the hold on it, if any.
    struct Outgoing {
        var publication: Publication
        /// Not posted (nor anything after it) until `complete(.afterHold(hold))`.
        var hold: Int?
    }

    /// What the thread that published is to do once it released the lock.
    enum Delivery {
        /// Nothing: no publication, or another thread is posting the outbox.
        case none
        /// Post the outbox.
        case now
        /// Run the effects decided with the publication, then release its hold and post the outbox.
        case afterHold(Int)
    }

    /// Queues `publication` in the outbox (lock held), held when `holding` (until `complete`); says what the
    /// caller is to do after unlocking.
    static func publish(_ publication: Publication, in locked: inout Locked, holding: Bool = false) -> Delivery {
        if holding {
            locked.lastHold += 1
            locked.outbox.append(Outgoing(publication: publication, hold: locked.lastHold))
            return .afterHold(locked.lastHold)
        }
        locked.outbox.append(Outgoing(publication: publication))
        guard !locked.delivering else { return .none }
        locked.delivering = true
        return .now
    }

    /// Does what `publish` said, with the lock released.
    func complete(_ delivery: Delivery) {
        switch delivery {
        case .none:
            return
        case .now:
            deliver()
        case .afterHold(let hold):
            let claimed = locked.withLockedValue { locked in
                if let index = locked.outbox.firstIndex(where: { $0.hold == hold }) { locked.outbox[index].hold = nil }
                guard !locked.delivering else { return false }
                locked.delivering = true
                return true
            }
            if claimed { deliver() }
        }
    }

    /// Posts the outbox, in order, with the lock released; until it stays empty or its first publication is
    /// held (its holder posts on). One thread at a time delivers (the one `publish` or `complete` told to), so
    /// two states decided one after the other are never posted the other way round. A subscriber whose channel
    /// is cancelled is dropped.
    func deliver() {
        var gone: Set<Int> = []
        while true {
            let publications = locked.withLockedValue { locked -> [Publication] in
                gone.forEach { locked.subscribers[$0] = nil }
                let ready = locked.outbox.prefix { $0.hold == nil }.map(\.publication)
                locked.outbox.removeFirst(ready.count)
                if ready.isEmpty { locked.delivering = false }
                return ready
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
