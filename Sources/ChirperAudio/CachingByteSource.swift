import ChirperCore
import Dispatch
import FoundationEssentials
import NIOConcurrencyHelpers
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A byte source that serves a cached recording from disk, and otherwise tees the network read into the cache.
public struct CachingByteSource: ByteSource {
    let base: any ByteSource
    let cache: RecordingCache
    let id: String
    /// A reader beside the player (the sonogram): while the recording is being downloaded into the cache, it
    /// waits for that download and reads the file, instead of downloading it a second time.
    let follows: Bool

    public init(base: any ByteSource, cache: RecordingCache, id: String, follows: Bool = false) {
        self.base = base
        self.cache = cache
        self.id = id
        self.follows = follows
    }

    public var canResume: Bool { base.canResume }
    public var wholeLocalFile: String? { cache.cachedFile(id: id)?.path }

    public func open(from offset: Int64) async throws -> any ByteReader {
        if let file = cache.cachedFile(id: id) {
            return try await FileByteSource(path: file.path).open(from: offset)
        }
        if cache.isWriting(id: id) {
            // A follower waits for the download running into the cache to end; any other reader only for the
            // writes already queued (a play that just ended: its commit), so a replay right after reads the file.
            if follows { await cache.writingEnded(id: id) } else { await cache.settle() }
            if let file = cache.cachedFile(id: id) {
                return try await FileByteSource(path: file.path).open(from: offset)
            }
        }
        if let whole = cache.partLength(id: id), offset < whole, base.canResume,
            let reader = readPart(from: offset, whole: whole)
        {
            return reader
        }
        let reader = try await base.open(from: offset)
        guard let part = cache.claimPart(id: id) else { return reader }
        return tee(reader, into: part, from: offset)
    }

    /// `reader` (the network from body byte `offset`) teed into `part`, whose claim the tee now holds; the
    /// whole length the server gave is noted for reads back into the part.
    func tee(_ reader: any ByteReader, into part: URL, from offset: Int64) -> any ByteReader {
        if let whole = reader.totalLength { cache.notePartLength(whole, id: id) }
        return TeeReader(base: reader, part: CachePart(url: part, offset: offset, cache: cache, id: id), cache: cache)
    }

    /// Keeps what it reads on disk as it arrives (the cache's `.part`): reading it again from an earlier byte
    /// reads the disk, not the network, so the player keeps only a short window of it in memory.
    public var keepsArrivedBytes: Bool { true }

    /// A read from `offset` inside the `.part` begun this session (a seek or a loop back beyond what the player
    /// holds, a replay of a recording stopped early): the part's bytes from disk, then the rest from the server
    /// from where the part ends, teed on into it. Nil when the part does not reach `offset` or another reader
    /// is writing it.
    ///
    /// What is on disk now is read: writes still queued for the part (a slow disk) are not waited for, so a
    /// seek never waits for the disk; the server is then asked from an earlier byte.
    private func readPart(from offset: Int64, whole: Int64) -> (any ByteReader)? {
        guard let part = cache.claimPart(id: id) else { return nil }
        guard let size = FileIO.size(atPath: part.path), offset < size,
            let file = try? FileByteReader(path: part.path, offset: offset, chunkSize: 64 * 1024)
        else {
            cache.release(id: id)
            return nil
        }
        return ResumedPartReader(file: file, fileEnd: size, offset: offset, whole: whole, part: part, source: self)
    }
}

/// Hands what a network reader gives to the `.part` file, and at the end commits it, on the cache's writer
/// queue: the reader, and so the track and its end, never wait for the disk.
final class TeeReader: ByteReader {
    private let base: any ByteReader
    private let cache: RecordingCache
    /// The part being written; nil once handed back (ended, dropped, failed).
    private var part: CachePart?

    init(base: any ByteReader, part: CachePart, cache: RecordingCache) {
        self.base = base
        self.cache = cache
        self.part = part
        cache.writer.async { part.open() }
    }

    deinit {
        // A reader dropped before its end (stop, a new play, a seek): the part stays for a resume from where
        // it ends, and the claim goes.
        stopTeeing()
    }

    var totalLength: Int64? { base.totalLength }

    func read() async throws -> [UInt8]? {
        let chunk: [UInt8]?
        do {
            chunk = try await base.read()
        } catch {
            // A drop: the part keeps what arrived, and the resumed read (from where it ends) carries on
            // teeing into it.
            stopTeeing()
            throw error
        }
        guard let part else { return chunk }
        guard let chunk else {
            self.part = nil
            let total = base.totalLength
            cache.writer.async { part.finish(expectedLength: total) }
            return nil
        }
        cache.writer.async { part.append(chunk) }
        return chunk
    }

    private func stopTeeing() {
        guard let part else { return }
        self.part = nil
        // The claim goes now; the writer closes the file before it runs anything a later reader asks for.
        part.releaseClaim()
        cache.writer.async { part.close() }
    }
}

/// One `.part` file of the cache, used only on the cache's writer queue: opened (from 0, or to resume where
/// it ends), appended to, then committed or closed. Any failure stops the teeing, never the playing.
final class CachePart: @unchecked Sendable {
    // @unchecked: the file state is used only on `cache.writer`, a serial queue (checked by
    // `dispatchPrecondition`); `claimed` has its own lock.
    let url: URL
    let id: String
    private let offset: Int64
    private let cache: RecordingCache
    private var handle: PartFile?
    /// This part still holds the cache's claim on `id` (given back once, from either side).
    private let claimed = NIOLockedValueBox(true)

    init(url: URL, offset: Int64, cache: RecordingCache, id: String) {
        self.url = url
        self.offset = offset
        self.cache = cache
        self.id = id
    }

    func open() {
        dispatchPrecondition(condition: .onQueue(cache.writer))
        if offset == 0 {
            // A deleted cache folder is made again here.
            if let code = FileIO.makeFolders(atPath: cache.directory.path) {
                cache.cannotWrite(reason: String(cString: strerror(code)))
            } else {
                do {
                    handle = try PartFile(path: url.path, truncating: true)
                } catch {
                    cache.cannotWrite(error)
                }
            }
        } else if FileIO.size(atPath: url.path) == offset {
            handle = try? PartFile(path: url.path)
        }
        if handle == nil { releaseClaim() }
    }

    func append(_ chunk: [UInt8]) {
        dispatchPrecondition(condition: .onQueue(cache.writer))
        guard let handle else { return }
        do {
            try handle.append(chunk)
        } catch {
            // A full disk or a deleted folder only costs the caching, never the playing.
            handle.discard()
            self.handle = nil
            releaseClaim()
        }
    }

    /// The body ended: commit a whole part; one that ended short stays for the resume that follows.
    func finish(expectedLength: Int64?) {
        dispatchPrecondition(condition: .onQueue(cache.writer))
        guard let handle else { return }
        let written = handle.size
        handle.close()
        self.handle = nil
        if let expectedLength, written < expectedLength {
            releaseClaim()
            return
        }
        cache.commit(id: id, part: url, expectedLength: expectedLength ?? written)
        releaseClaim()
    }

    /// Gives the claim on `id` back (once: a later reader's claim is never released by this part).
    func releaseClaim() {
        let held = claimed.withLockedValue { held in
            defer { held = false }
            return held
        }
        if held { cache.release(id: id) }
    }

    func close() {
        dispatchPrecondition(condition: .onQueue(cache.writer))
        handle?.close()
        handle = nil
    }
}

extension ByteSources {
    /// `base` with the play cache in front of it: locations `id` names a recording id for are served from the
    /// cache when complete and teed into it otherwise; others go straight to `base`. The Player and the
    /// SonogramReader get the same wrapped sources, so a replay, a seek, a loop or a `sono` of a cached
    /// recording makes no request.
    ///
    /// `follows`: for a reader beside the player (the sonogram), which waits for a download already running
    /// into the cache and reads the file, so a recording is downloaded once whatever is drawn. The player
    /// itself never waits for another reader.
    public static func cached(
        _ base: ByteSources, cache: RecordingCache, follows: Bool = false,
        id: @escaping @Sendable (AudioLocation) -> String? = FieldKitNaming.id(of:)
    ) -> ByteSources {
        ByteSources { location in
            let source = try base.source(for: location)
            guard case .remote = location, let key = id(location), FieldKitNaming.stem(forID: key) != nil else {
                return source
            }
            return CachingByteSource(base: source, cache: cache, id: key, follows: follows)
        }
    }
}
