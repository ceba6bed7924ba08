import ChirperAudio
import NIOConcurrencyHelpers

/// A byte source that hands the player only what the test releases, when it releases it: a server exactly as
/// slow as the scenario says. It expects to be opened once, from the start; anything else fails the read.
final class GatedSource: ByteSource {
    private let stream: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let length: Int64
    private let opened = NIOLockedValueBox(false)

    init(totalLength: Int) {
        (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        length = Int64(totalLength)
    }

    var sources: ByteSources { ByteSources { _ in self } }

    /// The next bytes of the recording arrive.
    func release(_ bytes: some Collection<UInt8>) {
        continuation.yield(Array(bytes))
    }

    /// The body ends (after what was released).
    func finish() {
        continuation.finish()
    }

    var canResume: Bool { true }

    func open(from offset: Int64) async throws -> any ByteReader {
        let first = opened.withLockedValue { opened in
            defer { opened = true }
            return !opened
        }
        guard first, offset == 0 else {
            throw TestFailure("unexpected open(from: \(offset)): the gated source is read once, from the start")
        }
        return GatedReader(stream: stream, totalLength: length)
    }
}

private final class GatedReader: ByteReader {
    private var iterator: AsyncStream<[UInt8]>.AsyncIterator
    let totalLength: Int64?

    init(stream: AsyncStream<[UInt8]>, totalLength: Int64) {
        self.iterator = stream.makeAsyncIterator()
        self.totalLength = totalLength
    }

    func read() async throws -> [UInt8]? {
        // Used by one task at a time (`ByteReader`): the copy is put back before the next read.
        var iterator = self.iterator
        let next = await iterator.next()
        self.iterator = iterator
        return next
    }
}
