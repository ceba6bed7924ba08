import ChirperCore
import FoundationEssentials

/// A read from inside a `.part` of the play cache: the part's bytes from disk up to where it ends, then the
/// rest from the server, asked from that byte and teed on into the same part (`TeeReader`).
///
/// It holds the cache's claim on the part from its start, so no other reader writes the part under it; the
/// claim passes to the tee when the network part begins, and goes back when the reader is dropped before
/// that. The server is asked only when the disk's bytes are used up: a seek back into what arrived plays from
/// disk at once, whatever the connection.
final class PartThenNetworkReader: ByteReader {
    private var file: FileByteReader?
    /// The body offset of the next byte read.
    private var position: Int64
    /// Where the part ended when the read began: the disk is read up to there, the network from there.
    private let fileEnd: Int64
    private let part: URL
    private let base: any ByteSource
    private let cache: RecordingCache
    private let id: String
    /// The network part, once the disk's bytes are used up.
    private var network: (any ByteReader)?
    /// This reader still holds the cache's claim on `id` (not yet handed to the network part's tee).
    private var claimed = true
    let totalLength: Int64?

    /// `file` reads the claimed `part` from `offset`; the part ends at `fileEnd`, the recording at `whole`.
    init(
        file: FileByteReader, fileEnd: Int64, offset: Int64, whole: Int64, part: URL, base: any ByteSource,
        cache: RecordingCache, id: String
    ) {
        self.file = file
        self.position = offset
        self.fileEnd = fileEnd
        self.totalLength = whole
        self.part = part
        self.base = base
        self.cache = cache
        self.id = id
    }

    deinit {
        if claimed { cache.release(id: id) }
    }

    var rangeIgnored: Bool { network?.rangeIgnored ?? false }

    func read() async throws -> [UInt8]? {
        if let file {
            // A disk that fails (or a part cut short behind the cache's back) only means the server is asked
            // from an earlier byte.
            if position < fileEnd, var chunk = try? file.readNow() {
                if Int64(chunk.count) > fileEnd - position { chunk.removeLast(chunk.count - Int(fileEnd - position)) }
                position += Int64(chunk.count)
                return chunk
            }
            self.file = nil
        }
        if let network { return try await network.read() }
        let reader: any ByteReader
        do {
            reader = try await base.open(from: position)
        } catch {
            // A drop before the rest began: the part stays as it is, and the resumed read (from its end)
            // tees on into it.
            claimed = false
            cache.release(id: id)
            throw error
        }
        if let whole = reader.totalLength { cache.notePartLength(whole, id: id) }
        claimed = false
        // The tee appends to the part only where it ends (a part cut short is not teed into).
        let tee = TeeReader(
            base: reader, part: CachePart(url: part, offset: position, cache: cache, id: id), cache: cache)
        network = tee
        return try await tee.read()
    }
}
