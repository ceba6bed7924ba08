import ChirperCore
import FoundationEssentials

/// A read from inside a `.part` of the play cache: the part's bytes from disk up to where it ends, then the
/// rest from the server, asked from that byte and teed on into the same part (`TeeReader`).
///
/// It holds the cache's claim on the part from its start, so no other reader writes the part under it; the
/// claim passes to the tee when the network part begins, and goes back when the reader is dropped before
/// that. The server is asked only when the disk's bytes are used up: a seek back into what arrived plays from
/// disk at once, whatever the connection.
final class ResumedPartReader: ByteReader {
    private var file: FileByteReader?
    /// The body offset of the next byte read.
    private var position: Int64
    /// Where the part ended when the read began: the disk is read up to there, the network from there.
    private let fileEnd: Int64
    private let part: URL
    /// The cached source read from: its network source, its cache and the recording's id.
    private let source: CachingByteSource
    /// The network part, once the disk's bytes are used up.
    private var network: (any ByteReader)?
    /// This reader still holds the cache's claim on `id` (not yet handed to the network part's tee).
    private var claimed = true
    let totalLength: Int64?

    /// `file` reads the claimed `part` from `offset`; the part ends at `fileEnd`, the recording at `whole`.
    init(file: FileByteReader, fileEnd: Int64, offset: Int64, whole: Int64, part: URL, source: CachingByteSource) {
        self.file = file
        self.position = offset
        self.fileEnd = fileEnd
        self.totalLength = whole
        self.part = part
        self.source = source
    }

    deinit {
        if claimed { source.cache.release(id: source.id) }
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
            reader = try await source.base.open(from: position)
        } catch {
            // A drop before the rest began: the part stays as it is, and the resumed read (from its end)
            // tees on into it.
            claimed = false
            source.cache.release(id: source.id)
            throw error
        }
        claimed = false
        // The tee appends to the part only where it ends (a part cut short is not teed into).
        let tee = source.tee(reader, into: part, from: position)
        network = tee
        return try await tee.read()
    }
}
