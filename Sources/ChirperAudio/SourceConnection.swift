import ChirperSystem

/// What one connection to a track's source tells the pipeline, in the pipeline's channel.
enum ConnectionNews: Sendable {
    /// The source answered: the recording's length if it says, and whether it ignored the byte asked from.
    case opened(totalLength: Int64?, rangeIgnored: Bool)
    /// The next bytes: the first as soon as the source answered, then one each time the pipeline asks
    /// (`SourceConnection.read`).
    case chunk([UInt8])
    /// The body ended.
    case ended
    /// The open or a read failed (or the back-off before it was cut short).
    case failed(any Error)
}

/// One request to a track's source, in a task of its own that owns the reader: it waits the back-off if there
/// is one, opens the source from its byte, reads its first chunk at once, then one more each time the pipeline
/// asks, and posts what happened into the pipeline's channel tagged with its number. So the pipeline task
/// never waits on the network itself: it waits on its channel, where a stop, a seek or a new track arrives
/// beside the bytes, and news of a connection it has already replaced is known by its number. Bytes are read
/// only when the decoder has used those before (back-pressure, as a reader gives): reading on while it decodes
/// would hold the whole recording when the source is faster than the decoding.
final class SourceConnection: Sendable {
    let number: Int
    /// One element per chunk the reader may read: the first, then one per `read`.
    private let demand: Channel<Void, Never>
    private let task: Task<Void, Never>

    init(
        number: Int, source: any ByteSource, from offset: Int64, after wait: Duration?, clock: any Clock<Duration>,
        into inbox: Channel<PipelineInput, Never>
    ) {
        let demand = Channel(of: Void.self, failure: Never.self)
        demand.post(())
        self.number = number
        self.demand = demand
        task = Task {
            func tell(_ news: ConnectionNews) { inbox.post(.connection(number, news)) }
            do {
                if let wait { try await clock.sleep(for: wait) }
                let reader = try await source.open(from: offset)
                tell(.opened(totalLength: reader.totalLength, rangeIgnored: reader.rangeIgnored))
                while await demand.next() != nil {
                    guard let chunk = try await reader.read() else { return tell(.ended) }
                    tell(.chunk(chunk))
                }
            } catch {
                tell(.failed(error))
            }
        }
    }

    /// Asks for the next chunk; it arrives in the pipeline's channel.
    func read() {
        demand.post(())
    }

    /// Hangs up: a wait, an open or a read under way is cancelled; what it posts after is stale.
    func close() {
        demand.cancel()
        task.cancel()
    }

    /// Returns once the connection's task has let go of its reader (after `close`, or the body's end).
    func released() async {
        await task.value
    }
}

/// A track's connections to its source: the current one and whether a chunk is asked of it, and those hung up
/// whose task may not have ended yet (a pipeline ends once they have let go of their readers).
struct SourceConnections {
    /// The current connection; `asked`: a chunk was asked of it (its first is, with the open) and has not come.
    private var current: (connection: SourceConnection, asked: Bool)?
    private var hungUp: [SourceConnection] = []
    private var opened = 0

    /// Hangs up the current connection and opens a new one from byte `offset`, after `wait` (a back-off).
    mutating func open(
        _ source: any ByteSource, from offset: Int64, after wait: Duration?, clock: any Clock<Duration>,
        into inbox: Channel<PipelineInput, Never>
    ) {
        hangUp()
        opened += 1
        let connection = SourceConnection(
            number: opened, source: source, from: offset, after: wait, clock: clock, into: inbox)
        current = (connection, asked: true)
    }

    /// Whether the current connection is the track's first: its answer is the source's first.
    var currentIsFirst: Bool { opened == 1 && current != nil }

    /// Whether `number` is the current connection (news of an earlier one is stale).
    func isCurrent(_ number: Int) -> Bool {
        number == current?.connection.number
    }

    /// Asks the current connection for its next chunk, unless one is asked for already; false with none open.
    mutating func askForChunk() -> Bool {
        guard let (connection, asked) = current else { return false }
        if !asked {
            current?.asked = true
            connection.read()
        }
        return true
    }

    mutating func chunkArrived() {
        current?.asked = false
    }

    mutating func hangUp() {
        guard let connection = current?.connection else { return }
        connection.close()
        hungUp.append(connection)
        current = nil
    }

    /// Hangs up for good: the connections whose end the pipeline waits for.
    mutating func hangUpAll() -> [SourceConnection] {
        hangUp()
        defer { hungUp = [] }
        return hungUp
    }
}
