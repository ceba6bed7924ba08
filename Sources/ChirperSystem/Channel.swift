import Synchronization

/// Elements handed from producers to one consumer, in order: unbounded, or bounded (a sender waits while
/// `capacity` elements are queued). The one hand-off between tasks and threads in the program (the
/// pipeline's commands, decoded batches for the sonogram, the terminal thread's requests).
///
/// Two ways to end it:
/// - `finish(throwing:)`: the producer is done. Queued elements are still received; then `next` returns nil,
///   or throws the failure. Later sends are dropped (`post` returns false, `send` throws `Closed`).
/// - `cancel()`: the consumer is gone. The queue is dropped, waiting senders and receivers return at once.
///   A receiver whose task is cancelled while it waits cancels the channel.
///
/// Its consumer may be another channel (`route(into:)`): each element is posted there as it comes, by the
/// thread that posts it, with no task between. Anyone may wait for its end (`ended()`), which makes a
/// channel with no elements a latch.
public final class Channel<Element: Sendable, Failure: Error>: Sendable {
    /// A send to a channel that was finished or cancelled.
    public struct Closed: Error {}

    private struct State {
        var queue: [Element] = []
        /// nil while open; `.success` once finished cleanly, `.failure` with the producer's error.
        var end: Result<Void, Failure>?
        var cancelled = false
        var receiver: CheckedContinuation<Result<Element?, Failure>, Never>?
        var senders: [CheckedContinuation<Void, Never>] = []
        /// Those waiting in `ended()`.
        var endWaiters: [CheckedContinuation<Void, Never>] = []
        /// Where the elements go instead of a receiver (`route(into:)`).
        var route: Route?
        /// A thread is handing the queue to `route`: others queue behind it, so the order is kept.
        var routing = false
        /// The route was told of the end.
        var routedEnd = false
        var isOpen: Bool { end == nil && !cancelled }

        /// Claims the hand-over to the route when there is something to hand and nobody hands it now.
        mutating func claimRouting() -> Route? {
            guard let route, !routing, !queue.isEmpty || (end != nil && !routedEnd) else { return nil }
            routing = true
            return route
        }

        /// Takes the end waiters out once the channel is finished or cancelled.
        mutating func takeEndWaiters() -> [CheckedContinuation<Void, Never>] {
            guard !isOpen else { return [] }
            defer { endWaiters = [] }
            return endWaiters
        }
    }

    /// A channel's consumer that is another channel.
    private struct Route: Sendable {
        /// Posts one element on; false once the consumer is gone.
        var post: @Sendable (Element) -> Bool
        /// Tells the consumer the end came.
        var end: @Sendable () -> Void
    }

    private let state = Mutex(State())
    /// The most elements queued before a `send` waits; nil: no bound.
    public let capacity: Int?

    public init(capacity: Int? = nil, of: Element.Type = Element.self, failure: Failure.Type = Failure.self) {
        precondition(capacity.map { $0 > 0 } ?? true, "a bounded channel holds at least one element")
        self.capacity = capacity
    }

    /// Queues `element` without waiting (beyond any bound); false once the channel is finished or cancelled.
    /// `last`: the channel is finished with it, in the same step (nothing can be posted between the two).
    @discardableResult
    public func post(_ element: Element, last: Bool = false) -> Bool {
        let (posted, receiver, route, endWaiters) = state.withLock {
            state -> (
                Bool, CheckedContinuation<Result<Element?, Failure>, Never>?, Route?, [CheckedContinuation<Void, Never>]
            ) in
            guard state.isOpen else { return (false, nil, nil, []) }
            if last { state.end = .success(()) }
            if let receiver = state.receiver {
                state.receiver = nil
                return (true, receiver, nil, state.takeEndWaiters())
            }
            state.queue.append(element)
            return (true, nil, state.claimRouting(), state.takeEndWaiters())
        }
        receiver?.resume(returning: .success(element))
        endWaiters.forEach { $0.resume() }
        if let route { handOver(to: route) }
        return posted
    }

    /// Queues `element`, waiting while the channel is full. Throws `Closed` once it is finished or cancelled,
    /// and `CancellationError` when the sending task is cancelled while it waits.
    public func send(_ element: Element) async throws {
        while true {
            try Task.checkCancellation()
            let now = state.withLock { state -> SendRoom in
                guard state.isOpen else { return .closed }
                if let capacity, state.receiver == nil, state.queue.count >= capacity { return .full }
                return .room
            }
            switch now {
            case .closed:
                throw Closed()
            case .room:
                guard post(element) else { throw Closed() }
                return
            case .full:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let waits = state.withLock { state in
                        guard state.isOpen, let capacity, state.queue.count >= capacity else { return false }
                        state.senders.append(continuation)
                        return true
                    }
                    if !waits { continuation.resume() }
                }
            }
        }
    }

    /// The producer is done: after the queued elements, `next` returns nil (or throws `failure`).
    public func finish(throwing failure: Failure? = nil) {
        let (receiver, waiting, route) = state.withLock {
            state -> (
                CheckedContinuation<Result<Element?, Failure>, Never>?, [CheckedContinuation<Void, Never>], Route?
            )
            in
            guard state.isOpen else { return (nil, [], nil) }
            state.end = failure.map { .failure($0) } ?? .success(())
            defer {
                state.receiver = nil
                state.senders = []
            }
            return (
                state.queue.isEmpty ? state.receiver : nil, state.senders + state.takeEndWaiters(),
                state.claimRouting()
            )
        }
        receiver?.resume(returning: failure.map { .failure($0) } ?? .success(nil))
        waiting.forEach { $0.resume() }
        if let route { handOver(to: route) }
    }

    /// The consumer is gone: the queue is dropped, and everyone waiting returns.
    public func cancel() {
        let (receiver, waiting) = state.withLock { state in
            state.cancelled = true
            state.queue = []
            defer {
                state.receiver = nil
                state.senders = []
            }
            return (state.receiver, state.senders + state.takeEndWaiters())
        }
        receiver?.resume(returning: .success(nil))
        waiting.forEach { $0.resume() }
    }

    /// Returns once the channel is finished or cancelled (at once if it is); any number may wait. Not ended
    /// by the waiting task's cancellation: a latch is waited for until it opens.
    public func ended() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.isOpen else { return true }
                state.endWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Makes `target` this channel's consumer: what is queued, then each element as it is posted, goes there
    /// as `map` makes it, in order, from the thread that posts it; the end (finished or failed) as `ended`,
    /// when there is one. Once `target` takes nothing more, this channel is cancelled. A channel routed has no
    /// other receiver, and is routed once.
    public func route<Target: Sendable>(
        into target: Channel<Target, Never>, _ map: @escaping @Sendable (Element) -> Target, ended: Target? = nil
    ) {
        let route = state.withLock { state -> Route? in
            precondition(state.receiver == nil && state.route == nil, "a channel has one consumer")
            state.route = Route(
                post: { target.post(map($0)) },
                end: {
                    if let ended { target.post(ended) }
                })
            return state.claimRouting()
        }
        if let route { handOver(to: route) }
    }

    /// Hands the queue to `route` until it is empty, then the end if it came; the caller claimed the hand-over
    /// (`claimRouting`). Elements posted meanwhile are queued and handed over here, after those before them.
    private func handOver(to route: Route) {
        while true {
            let (elements, senders, endNow) = state.withLock {
                state -> ([Element], [CheckedContinuation<Void, Never>], Bool) in
                if state.queue.isEmpty {
                    state.routing = false
                    let endNow = state.end != nil && !state.routedEnd
                    if endNow { state.routedEnd = true }
                    return ([], [], endNow)
                }
                defer {
                    state.queue = []
                    state.senders = []
                }
                return (state.queue, state.senders, false)
            }
            senders.forEach { $0.resume() }
            if elements.isEmpty {
                if endNow { route.end() }
                return
            }
            for element in elements where !route.post(element) {
                // The consumer is gone.
                cancel()
                return
            }
        }
    }

    /// Elements queued, and senders waiting for room (for tests and diagnostics).
    public var counts: (queued: Int, waitingSenders: Int) {
        state.withLock { ($0.queue.count, $0.senders.count) }
    }

    /// Tasks waiting in `ended()` (for tests and diagnostics).
    public var waitingForEnd: Int {
        state.withLock { $0.endWaiters.count }
    }

    /// The next element if one is queued.
    public func poll() -> Element? {
        let (element, sender) = state.withLock { state -> (Element?, CheckedContinuation<Void, Never>?) in
            guard !state.queue.isEmpty else { return (nil, nil) }
            return (state.queue.removeFirst(), state.senders.isEmpty ? nil : state.senders.removeFirst())
        }
        sender?.resume()
        return element
    }

    /// Everything queued now.
    public func pollAll() -> [Element] {
        let (elements, senders) = state.withLock { state in
            defer {
                state.queue = []
                state.senders = []
            }
            return (state.queue, state.senders)
        }
        senders.forEach { $0.resume() }
        return elements
    }

    /// The next element, waiting for it; nil at the end (finished, or cancelled). Throws the producer's
    /// failure after the queued elements.
    public func next() async throws(Failure) -> Element? {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Element?, Failure>, Never>) in
                // nil: wait (the continuation is kept).
                let now = state.withLock { state -> (Result<Element?, Failure>, CheckedContinuation<Void, Never>?)? in
                    if !state.queue.isEmpty {
                        let sender = state.senders.isEmpty ? nil : state.senders.removeFirst()
                        return (.success(state.queue.removeFirst()), sender)
                    }
                    if state.cancelled { return (.success(nil), nil) }
                    switch state.end {
                    case .success: return (.success(nil), nil)
                    case .failure(let failure): return (.failure(failure), nil)
                    case nil: break
                    }
                    precondition(state.receiver == nil, "a channel has one receiver at a time")
                    precondition(state.route == nil, "a routed channel has no other receiver")
                    state.receiver = continuation
                    return nil
                }
                if let (result, sender) = now {
                    sender?.resume()
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }
}

/// Whether a `send` can queue now.
private enum SendRoom {
    case closed
    case full
    case room
}
