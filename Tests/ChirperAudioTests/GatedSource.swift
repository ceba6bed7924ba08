import ChirperAudio
import NIOConcurrencyHelpers

/// A byte source that hands the player only what the test releases, when it releases it: a server exactly as
/// slow as the scenario says. It is opened once from the start, and once more after each `drop()` from exactly
/// the byte where the dropped read ended; any other open fails the read.
final class GatedSource: ByteSource {
    private struct State {
        var continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation?
        /// Bytes released so far (where a resume must ask from).
        var released: Int64 = 0
        /// How many opens are allowed: 1, plus one per drop.
        var allowed = 1
        var opens: [Int64] = []
        var openWaiters = CountWaiters()
        /// Reads asked of every reader so far.
        var reads = 0
        var readWaiters = CountWaiters()
        /// Released while no reader was open: handed to the next one.
        var pending: [[UInt8]] = []
        /// A drop that came while no reader was open: the next one fails after the pending bytes.
        var droppedPending = false
        var finished = false
    }
    private let state = NIOLockedValueBox(State())
    private let length: Int64

    init(totalLength: Int) {
        length = Int64(totalLength)
    }

    var sources: ByteSources { ByteSources { _ in self } }

    /// The offsets the player opened the source from, in order.
    var opens: [Int64] { state.withLockedValue { $0.opens } }

    /// The next bytes of the recording arrive (at the open reader, or the next one).
    func release(_ bytes: some Collection<UInt8>) {
        let chunk = Array(bytes)
        state.withLockedValue { state in
            state.released += Int64(chunk.count)
            if let continuation = state.continuation {
                continuation.yield(chunk)
            } else {
                state.pending.append(chunk)
            }
        }
    }

    /// The body ends (after what was released).
    func finish() {
        state.withLockedValue { state in
            state.finished = true
            state.continuation?.finish()
        }
    }

    /// The connection drops: the open reader fails (after what it was handed), and one more open is expected,
    /// from the byte after the last released.
    func drop() {
        state.withLockedValue { state in
            state.allowed += 1
            guard let continuation = state.continuation else {
                state.droppedPending = true
                return
            }
            continuation.finish(throwing: Self.dropped)
            state.continuation = nil
        }
    }

    /// Returns once the source has been opened `count` times.
    func waitForOpens(_ count: Int) async {
        await state.wait(until: count, counted: { $0.opens.count }, in: \.openWaiters)
    }

    /// How many times the player has asked its readers for bytes.
    var reads: Int { state.withLockedValue { $0.reads } }

    /// Returns once the player has asked its readers for bytes `count` times (a read asked for while nothing
    /// is released waits: the player waits on its connection).
    func waitForReads(_ count: Int) async {
        await state.wait(until: count, counted: { $0.reads }, in: \.readWaiters)
    }

    /// A reader was asked for bytes.
    fileprivate func readAsked() {
        let ready = state.withLockedValue { state in
            state.reads += 1
            return state.readWaiters.reached(state.reads)
        }
        for watcher in ready { watcher.resume() }
    }

    var canResume: Bool { true }

    private static let dropped = ByteSourceError.network("the test dropped the connection")

    func open(from offset: Int64) async throws -> any ByteReader {
        let (stream, watchers) = try state.withLockedValue {
            state -> (AsyncThrowingStream<[UInt8], any Error>, [CheckedContinuation<Void, Never>]) in
            guard state.opens.count < state.allowed, offset == (state.opens.isEmpty ? 0 : state.released) else {
                throw TestFailure(
                    "unexpected open(from: \(offset)) after opens \(state.opens) with \(state.released) bytes released")
            }
            state.opens.append(offset)
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
            for chunk in state.pending { continuation.yield(chunk) }
            state.pending = []
            if state.droppedPending {
                state.droppedPending = false
                continuation.finish(throwing: Self.dropped)
            } else {
                if state.finished { continuation.finish() }
                state.continuation = continuation
            }
            return (stream, state.openWaiters.reached(state.opens.count))
        }
        for watcher in watchers { watcher.resume() }
        return GatedReader(stream: stream, totalLength: length, source: self)
    }
}

private final class GatedReader: ByteReader {
    private var iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
    let totalLength: Int64?
    private let source: GatedSource

    init(stream: AsyncThrowingStream<[UInt8], any Error>, totalLength: Int64, source: GatedSource) {
        self.iterator = stream.makeAsyncIterator()
        self.totalLength = totalLength
        self.source = source
    }

    func read() async throws -> [UInt8]? {
        // Used by one task at a time (`ByteReader`): the copy is put back before the next read.
        source.readAsked()
        var iterator = self.iterator
        let next = try await iterator.next()
        self.iterator = iterator
        return next
    }
}
