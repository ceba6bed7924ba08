import ChirperCore
import Testing
import ChirperSystem

private struct Broken: Error, Equatable {}

/// Waits (yielding, no clock) until `condition` holds.
private func until(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}

@Suite("Channel: the one hand-off between tasks", .timeLimit(.minutes(1)))
struct ChannelTests {
    @Test("unbounded: posts arrive in order; after finish the queue is still read, then nil; later posts dropped")
    func unbounded() async {
        let channel = Channel(of: String.self, failure: Never.self)
        #expect(channel.post("a") && channel.post("b") && channel.post("c"))
        #expect(await channel.next() == "a")
        #expect(channel.poll() == "b")
        channel.finish()
        #expect(!channel.post("d"), "a finished channel takes nothing more")
        #expect(await channel.next() == "c")
        #expect(await channel.next() == nil)
        #expect(await channel.next() == nil)
        #expect(channel.poll() == nil)
    }

    @Test("a last post finishes the channel in the same step: it is received, then the end")
    func lastPost() async {
        let channel = Channel(of: String.self, failure: Never.self)
        #expect(channel.post("close", last: true))
        #expect(!channel.post("print"), "nothing after the last")
        #expect(await channel.next() == "close")
        #expect(await channel.next() == nil)
    }

    @Test("a waiting receiver gets the next post, or nil when the channel finishes")
    func waitingReceiver() async {
        let channel = Channel(of: Int.self, failure: Never.self)
        let first = Task { await channel.next() }
        channel.post(1)  // handed to the waiting receiver, or queued for it
        #expect(await first.value == 1)
        let second = Task { await channel.next() }
        channel.finish()
        #expect(await second.value == nil)
    }

    @Test("bounded: a sender waits while it is full and goes on as the receiver takes; nothing is lost")
    func bounded() async throws {
        let channel = Channel(capacity: 2, of: Int.self, failure: Never.self)
        let sender = Task {
            for value in 1...5 { try await channel.send(value) }
            channel.finish()
        }
        await until { channel.counts == (2, 1) }
        #expect(channel.counts.queued == 2, "never more than the bound")
        var received: [Int] = []
        while let value = await channel.next() {
            received.append(value)
            #expect(channel.counts.queued <= 2)
        }
        try await sender.value
        #expect(received == [1, 2, 3, 4, 5])
    }

    @Test("a failure ends the channel after what was queued")
    func failure() async throws {
        let channel = Channel(of: Int.self, failure: Broken.self)
        channel.post(1)
        channel.finish(throwing: Broken())
        #expect(try await channel.next() == 1)
        await #expect(throws: Broken()) { try await channel.next() }
    }

    @Test("cancel: the queue goes, a waiting sender is told it is closed, a waiting receiver gets nil")
    func cancelled() async {
        let channel = Channel(capacity: 1, of: Int.self, failure: Never.self)
        channel.post(1)
        let sender = Task { try await channel.send(2) }
        await until { channel.counts.waitingSenders == 1 }
        channel.cancel()
        await #expect(throws: Channel<Int, Never>.Closed.self) { try await sender.value }
        #expect(channel.poll() == nil)
        #expect(await channel.next() == nil)
        #expect(!channel.post(3))
    }

    @Test("a receiver whose task is cancelled while it waits cancels the channel")
    func receiverCancelled() async {
        let channel = Channel(of: Int.self, failure: Never.self)
        let receiver = Task { await channel.next() }
        receiver.cancel()
        #expect(await receiver.value == nil)
        #expect(!channel.post(1), "the consumer is gone")
    }

    @Test("a routed channel hands its queue, then each post, then its end, straight into its consumer")
    func routed() async {
        let session = Channel(of: String.self, failure: Never.self)
        let lines = Channel(of: String.self, failure: Never.self)
        lines.post("search wren")
        lines.route(into: session, { "typed " + $0 }, ended: "input ended")
        #expect(lines.counts.queued == 0, "what was queued went on at once")
        lines.post("play 1")
        lines.finish()
        #expect(session.pollAll() == ["typed search wren", "typed play 1", "input ended"])
        #expect(!lines.post("late"))
        #expect(session.poll() == nil, "the end is handed on once")
    }

    @Test("several producers routed into one channel: each producer's elements arrive in its order, none lost")
    func routedProducers() async {
        let session = Channel(of: (source: Int, value: Int).self, failure: Never.self)
        let sources = (0..<3).map { _ in Channel(of: Int.self, failure: Never.self) }
        for (number, source) in sources.enumerated() { source.route(into: session) { (number, $0) } }
        await withTaskGroup(of: Void.self) { group in
            for source in sources {
                group.addTask { for value in 1...200 { source.post(value) } }
            }
        }
        var received: [[Int]] = [[], [], []]
        for element in session.pollAll() { received[element.source].append(element.value) }
        #expect(received == Array(repeating: Array(1...200), count: 3))
    }

    @Test("a routed channel whose consumer is gone is cancelled: its producer learns it at its next post")
    func routedConsumerGone() async {
        let session = Channel(of: Int.self, failure: Never.self)
        let updates = Channel(of: Int.self, failure: Never.self)
        updates.route(into: session) { $0 }
        #expect(updates.post(1))
        session.cancel()
        #expect(updates.post(2), "taken before the consumer was found gone")
        #expect(!updates.post(3), "the route is closed now")
    }

    @Test("a bounded routed channel never keeps a sender waiting: what it queues goes on as it is sent")
    func routedBounded() async throws {
        let session = Channel(of: Int.self, failure: Never.self)
        let pieces = Channel(capacity: 1, of: Int.self, failure: Never.self)
        pieces.route(into: session) { $0 }
        for value in 1...3 { try await pieces.send(value) }
        #expect(session.pollAll() == [1, 2, 3])
    }

    @Test("a latch: any number wait until the channel ends; later waiters return at once")
    func latch() async {
        let finished = Channel(of: Never.self, failure: Never.self)
        let opened = Channel(of: Int.self, failure: Never.self)
        let waiters = (1...3).map { number in
            Task {
                await finished.ended()
                opened.post(number)
            }
        }
        await until { finished.waitingForEnd == 3 }
        #expect(opened.poll() == nil, "nobody passes before the end")
        finished.finish()
        for waiter in waiters { await waiter.value }
        #expect(Set(opened.pollAll()) == [1, 2, 3])
        await finished.ended()
        #expect(finished.waitingForEnd == 0)
    }

    @Test("a latch also opens when the channel is cancelled, or with its last post")
    func latchCancelled() async {
        let cancelled = Channel(of: Int.self, failure: Never.self)
        let waiter = Task { await cancelled.ended() }
        await until { cancelled.waitingForEnd == 1 }
        cancelled.cancel()
        await waiter.value
        let lastPosted = Channel(of: Int.self, failure: Never.self)
        let second = Task { await lastPosted.ended() }
        await until { lastPosted.waitingForEnd == 1 }
        lastPosted.post(1, last: true)
        await second.value
        #expect(lastPosted.poll() == 1, "the last element is still there to read")
    }
}
