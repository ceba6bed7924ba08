/// The cache's bookkeeping, pure: which recordings are kept, their sizes and when each was last used, bounded
/// by `limit` bytes with the least recently used evicted first. The file-system side stores it as JSON and
/// deletes the files `insert` evicts.
public struct CacheIndex: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        /// The cache file's name (``FieldKitNaming/stem(forID:)`` plus the sniffed extension).
        public var file: String
        public var size: Int64
        /// Seconds since the Unix epoch, from the injected clock.
        public var lastUse: Double

        public init(file: String, size: Int64, lastUse: Double) {
            self.file = file
            self.size = size
            self.lastUse = lastUse
        }
    }

    public var version: Int = 1
    /// Keyed by recording id.
    public var entries: [String: Entry] = [:]

    public init(entries: [String: Entry] = [:]) {
        self.entries = entries
    }

    public var totalSize: Int64 { entries.values.reduce(0) { $0 + $1.size } }

    /// Marks an entry used now; false when it is not cached.
    public mutating func touch(_ id: String, now: Double) -> Bool {
        guard entries[id] != nil else { return false }
        entries[id]?.lastUse = now
        return true
    }

    /// Adds (or replaces) an entry and evicts least recently used others until the total fits `limit`. An
    /// entry larger than the whole limit is not kept (it is returned among the evicted). Returns the evicted
    /// entries, whose files the caller deletes.
    public mutating func insert(_ id: String, _ entry: Entry, limit: Int64) -> [Entry] {
        var evicted: [Entry] = []
        if let old = entries.removeValue(forKey: id), old.file != entry.file { evicted.append(old) }
        guard entry.size <= limit else { return evicted + [entry] }
        entries[id] = entry
        evicted += evict(toFit: limit, keeping: id)
        return evicted
    }

    /// Evicts least recently used entries (never `keeping`) until the total fits `limit`.
    public mutating func evict(toFit limit: Int64, keeping: String? = nil) -> [Entry] {
        var evicted: [Entry] = []
        var total = totalSize
        let order = entries.filter { $0.key != keeping }.sorted {
            ($0.value.lastUse, $0.key) < ($1.value.lastUse, $1.key)
        }
        for (id, entry) in order where total > limit {
            entries[id] = nil
            total -= entry.size
            evicted.append(entry)
        }
        return evicted
    }

    /// Parses the cache's size flag: `500MB`, `2G`, `800k`, `0` (no cache), a plain number of bytes.
    public static func parseSize(_ text: String) -> Int64? {
        var lower = Substring(text.lowercased())
        if lower.hasSuffix("b") { lower = lower.dropLast() }
        if lower.hasSuffix("i") { lower = lower.dropLast() }
        let units: [(String, Int64)] = [("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30)]
        for (suffix, factor) in units where lower.hasSuffix(suffix) {
            guard let value = Int64(lower.dropLast()), value >= 0, value <= Int64.max / factor else { return nil }
            return value * factor
        }
        return Int64(lower).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The default bound: 500 MB.
    public static let defaultLimit: Int64 = 500 << 20
}
