import ChirperCore
import Testing
import ChirperSystem

private struct Broken: Error, Equatable {}

/// Waits (yielding, no clock) until `condition` holds.
private func until(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}

@Suite("Channel: the one hand-off between tasks")
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
}
