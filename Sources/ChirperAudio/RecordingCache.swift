import ChirperCore
import Dispatch
import FoundationEssentials
import NIOConcurrencyHelpers
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The play cache on disk (`$XDG_CACHE_HOME/chirper-play`): complete recordings named `XC<id>.<ext>` (the
/// id only, the extension sniffed), `.part` files while a download is in flight, and `index.json` (sizes and
/// last use, written atomically) bounded by ``CacheIndex``. A deleted folder or a corrupted index is never
/// fatal: it is rebuilt from the files present, and `report` gets one line.
///
/// Every write to the folder (sidecars, parts, commits, evictions, the index) runs in order on one serial
/// queue, `writer`, never on the task that plays: a slow disk delays the cache, not the sound.
public final class RecordingCache: Sendable {
    public let directory: URL
    public let limit: Int64
    private let now: @Sendable () -> Double
    private let report: @Sendable (String) -> Void
    private let index: NIOLockedValueBox<CacheIndex>
    /// Ids whose `.part` a reader is writing now: a second reader of the same recording (a `sono` while it
    /// plays) reads through without teeing, so two writers never share one part file. Each with a latch that
    /// ends when the part is given back, for readers that follow it (`writingEnded`).
    private let writing = NIOLockedValueBox<[String: Channel<Never, Never>]>([:])
    /// The whole length of each recording whose `.part` was begun in this session, as its server said: a
    /// later read from inside such a part reads the part from disk and asks the server only for the rest
    /// (see `CachingByteSource`). A part from an earlier session has none, and is only ever resumed at its end.
    private let partLengths = NIOLockedValueBox<[String: Int64]>([:])
    /// A folder that cannot be written is said once, not at every play.
    private let toldUnwritable = NIOLockedValueBox(false)
    /// What the recordings being fetched are (``remember(_:fetched:)``), until their audio is committed; the
    /// latest ``describedLimit`` only (a recording stopped early is forgotten in time, not kept all session).
    /// Read and changed only with `index` locked too (index first), so a note and a commit cannot cross.
    private let described = NIOLockedValueBox<[Described]>([])
    static let describedLimit = 32

    private struct Described {
        var recording: Recording
        var fetched: Date
    }
    /// Runs every write to the folder, in the order asked.
    let writer = DispatchQueue(label: "chirper-play.cache-writer", qos: .utility)

    /// `now` is seconds since the epoch (injected); `report` receives the one-line notices (`cache: …`).
    public init(
        directory: URL, limit: Int64 = CacheIndex.defaultLimit, now: @escaping @Sendable () -> Double,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.directory = directory
        self.limit = limit
        self.now = now
        self.report = report
        self.index = NIOLockedValueBox(Self.load(directory: directory, report: report))
    }

    /// `$XDG_CACHE_HOME/chirper-play`, or `~/.cache/chirper-play`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let base = environment["XDG_CACHE_HOME"], base.hasPrefix("/") {
            return URL(fileURLWithPath: base).appendingPathComponent("chirper-play")
        }
        let home = environment["HOME"] ?? PathText.homeDirectory
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/chirper-play")
    }

    /// The complete cached file of recording `id`, touched as used now; nil when not cached (an entry whose
    /// file vanished is dropped).
    public func cachedFile(id: String) -> URL? {
        let time = now()
        // The file is looked at with the index unlocked; what that means is decided under the lock, for the
        // entry looked at only (a commit may have replaced it meanwhile).
        guard let entry = index.withLockedValue({ $0.entries[id] }) else { return nil }
        let url = directory.appendingPathComponent(entry.file)
        let size = FileIO.size(atPath: url.path)
        let kept = index.withLockedValue { index -> Bool in
            guard index.entries[id] == entry else { return false }
            guard size == entry.size else {
                // Deleted, or not the file that was kept (truncated, replaced): fetched again instead.
                index.entries[id] = nil
                return false
            }
            _ = index.touch(id, now: time)
            return true
        }
        if !kept, size != nil {
            // Removed in order with the commits, and only while no commit has kept this id again.
            writer.async { [index] in
                guard index.withLockedValue({ $0.entries[id] == nil }) else { return }
                try? FileManager.default.removeItem(at: url)
            }
        }
        return kept ? url : nil
    }

    /// Claims the `.part` of `id` for one reader; nil for an id that cannot name a file, or while another
    /// reader holds it. ``release(id:)`` gives it back.
    func claimPart(id: String) -> URL? {
        guard let stem = FieldKitNaming.stem(forID: id),
            writing.withLockedValue({ writing in
                guard writing[id] == nil else { return false }
                writing[id] = Channel()
                return true
            })
        else {
            return nil
        }
        return directory.appendingPathComponent("\(stem).part")
    }

    /// Notes the whole length of the recording whose `.part` of `id` a reader writes.
    func notePartLength(_ length: Int64, id: String) {
        partLengths.withLockedValue { $0[id] = length }
    }

    /// The whole length of the recording whose `.part` of `id` was begun in this session, if its server said.
    func partLength(id: String) -> Int64? {
        partLengths.withLockedValue { $0[id] }
    }

    /// A `.part` of `id` is being written or committed.
    func isWriting(id: String) -> Bool {
        writing.withLockedValue { $0[id] != nil }
    }

    /// Returns once no `.part` of `id` is being written (committed, or given up); at once if none is.
    func writingEnded(id: String) async {
        let part = writing.withLockedValue { $0[id] }
        await part?.ended()
    }

    /// Returns once every write asked for so far is done, without holding a thread.
    func settle() async {
        let done = Channel(of: Never.self, failure: Never.self)
        writer.async { done.finish() }
        await done.ended()
    }

    func release(id: String) {
        writing.withLockedValue { $0.removeValue(forKey: id) }?.finish()
    }

    /// Notes what recording `id` is, so that `XC<id>.json` (the metadata `--offline` searches) is written
    /// beside its audio when the audio is complete in the cache, or at once when it already is. Nothing is
    /// written for a recording stopped before its end: metadata without its audio would only be skipped.
    public func remember(_ recording: Recording, fetched: Date) {
        guard let stem = FieldKitNaming.stem(forID: recording.id) else { return }
        // Decided under the index's lock, as the commit decides: a commit between the check and the note
        // would otherwise find no note, and the sidecar would never be written.
        let cached = index.withLockedValue { index in
            guard index.entries[recording.id] == nil else { return true }
            described.withLockedValue { list in
                list.removeAll { $0.recording.id == recording.id }
                list.append(Described(recording: recording, fetched: fetched))
                list.removeFirst(max(0, list.count - Self.describedLimit))
            }
            return false
        }
        guard cached else { return }
        writer.async { [self] in
            let sidecar = directory.appendingPathComponent("\(stem).json")
            guard !FileManager.default.fileExists(atPath: sidecar.path) else { return }
            writeSidecar(Described(recording: recording, fetched: fetched), to: sidecar)
        }
    }

    /// Writes a sidecar (on `writer`). Best effort: a cache that cannot be written costs the offline search
    /// this recording, never the playing.
    private func writeSidecar(_ described: Described, to url: URL) {
        dispatchPrecondition(condition: .onQueue(writer))
        let data = Sidecar.encode(described.recording, audioFile: "", fetched: described.fetched)
        do {
            try Self.replace(url, with: data)
        } catch {
            cannotWrite(error)
        }
    }

    /// Says once that the folder cannot be written.
    func cannotWrite(_ error: any Error) {
        cannotWrite(reason: Self.reason(error))
    }

    /// Says once that the folder cannot be written, for the system's `reason`.
    func cannotWrite(reason: String) {
        let first = toldUnwritable.withLockedValue { told -> Bool in
            defer { told = true }
            return !told
        }
        guard first else { return }
        report("cannot write in the cache folder \(directory.path) (\(reason)); playing goes on uncached")
    }

    /// Returns once every write asked for so far is done (at exit, and in tests).
    public func flush() {
        writer.sync {}
    }

    /// Writes `data` to a temporary file beside `url` and renames it over `url`: readers see the old file or
    /// the new one, never half of one. No `fsync`: a cache file lost in a power cut is fetched again.
    static func replace(_ url: URL, with data: Data) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        try data.write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    /// Bytes kept now (for tests and `--cache-size` checks).
    public var totalSize: Int64 { index.withLockedValue { $0.totalSize } }

    /// Commits a complete `.part` of `id`: checks its length, sniffs its extension, renames it, records it,
    /// evicts what no longer fits and writes the index. Anything wrong discards the part with one line.
    /// Runs on `writer`.
    func commit(id: String, part: URL, expectedLength: Int64?) {
        dispatchPrecondition(condition: .onQueue(writer))
        // Committed or discarded: no part of `id` is left to read from.
        partLengths.withLockedValue { $0[id] = nil }
        let fileManager = FileManager.default
        let size = FileIO.size(atPath: part.path) ?? -1
        let head = FileIO.head(ofPath: part.path, count: 12)
        guard let stem = FieldKitNaming.stem(forID: id), size > 0, expectedLength.map({ $0 == size }) ?? true,
            let ext = head.flatMap({ FieldKitNaming.sniffExtension(Array($0)) })
        else {
            try? fileManager.removeItem(at: part)
            return
        }
        let name = "\(stem).\(ext)"
        let final = directory.appendingPathComponent(name)
        // rename(2) replaces a stale file of the same name in one step: never a half-written final name.
        guard rename(part.path, final.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? fileManager.removeItem(at: part)
            report("cannot keep \(stem) in the cache folder \(directory.path) (\(reason)); playing goes on uncached")
            return
        }
        let time = now()
        let (evicted, kept, note) = index.withLockedValue { index in
            let evicted = index.insert(id, .init(file: name, size: size, lastUse: time), limit: limit)
            let note = described.withLockedValue { list in
                list.firstIndex { $0.recording.id == id }.map { list.remove(at: $0) }
            }
            return (evicted, index.entries[id] != nil, note)
        }
        for entry in evicted {
            try? fileManager.removeItem(at: directory.appendingPathComponent(entry.file))
            let sidecar = PathText.removingExtension(entry.file) + ".json"
            try? fileManager.removeItem(at: directory.appendingPathComponent(sidecar))
        }
        // An entry larger than the whole cache was removed at once: no metadata for it either.
        if kept, let note {
            writeSidecar(note, to: directory.appendingPathComponent("\(stem).json"))
        }
        save()
    }

    /// Writes the index (temporary file, then rename). Runs on `writer`.
    private func save() {
        let snapshot = index.withLockedValue { $0 }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let data = try JSONEncoder().encode(snapshot)
            try Self.replace(directory.appendingPathComponent("index.json"), with: data)
        } catch {
            report("cannot write the cache index in \(directory.path) (\(Self.reason(error))); playing goes on")
        }
    }

    static func reason(_ error: any Error) -> String {
        FileErrorText.reason(error)
    }

    /// The index on disk, or one rebuilt from the files present when it is missing or unreadable.
    static func load(directory: URL, report: (String) -> Void) -> CacheIndex {
        let fileManager = FileManager.default
        let indexFile = directory.appendingPathComponent("index.json")
        if let data = try? Data(contentsOf: indexFile) {
            if let index = try? JSONDecoder().decode(CacheIndex.self, from: data) { return index }
            report("the cache index in \(directory.path) was unreadable; rebuilt it from the files there")
        }
        var index = CacheIndex()
        let names = (try? fileManager.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names.sorted() where !name.hasSuffix(".json") {
            let url = directory.appendingPathComponent(name)
            if name.hasSuffix(".part") {
                try? fileManager.removeItem(at: url)
                continue
            }
            let parts = name.split(separator: ".")
            guard parts.count == 2, ["mp3", "wav"].contains(parts[1]) else { continue }
            let stem = String(parts[0])
            let id = stem.hasPrefix("XC") ? String(stem.dropFirst(2)) : stem
            guard FieldKitNaming.stem(forID: id) == stem, let status = FileIO.status(atPath: url.path) else { continue }
            index.entries[id] = .init(file: name, size: status.size, lastUse: status.modified)
        }
        return index
    }
}
