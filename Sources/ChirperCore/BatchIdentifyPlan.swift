/// Which files a batch `identify` run takes, where each one's table goes, and which it skips: decided from the
/// files found and their times alone, so that it is tested without the model or the disk.
///
/// The tables mirror the folders: each file's path relative to the folder the named paths share (a folder
/// named alone is that folder; a file named alone, its own folder), so that two `a.wav` in different folders
/// get two tables. Files are taken in that relative path's order, so that `--shard K/N` (every N-th from the
/// K-th) gives runs that share no file and together take every one, whatever machine each runs on.
public struct BatchIdentifyPlan: Sendable, Hashable {
    public struct Item: Sendable, Hashable {
        /// The audio file, absolute, as found.
        public var source: String
        /// Its path below the shared folder (what the table's path mirrors).
        public var relative: String
        /// The table's path, absolute.
        public var table: String
    }

    public enum Step: Sendable, Hashable {
        case identify(Item)
        /// Its table is newer than the file: done by an earlier run.
        case skip(Item)
    }

    /// This run's files in order, each to identify or to skip.
    public var steps: [Step]
    /// Files of every shard.
    public var total: Int

    /// The plan for `files` (absolute paths, found under `named`, the absolute paths the user named; a folder
    /// among them marked by `isFolder`), its tables under `out` (absolute). `modified` is a file's last change
    /// (seconds), nil for one that does not exist.
    public init(
        files: [String], named: [(path: String, isFolder: Bool)], out: String, shard: BatchIdentifyOptions.Shard,
        modified: (String) -> Double?
    ) {
        let base = Self.sharedFolder(named.map { $0.isFolder ? Self.lexical($0.path) : Self.parent($0.path) })
        var seen: Set<String> = []
        var items: [Item] = []
        for file in files {
            let absolute = Self.lexical(file)
            guard seen.insert(absolute).inserted else { continue }
            let relative = Self.relative(absolute, to: base)
            let folder = out.hasSuffix("/") ? out : out + "/"
            items.append(
                Item(source: file, relative: relative, table: folder + BirdNETSelectionTable.fileName(for: relative)))
        }
        items.sort { Array($0.relative.utf8).lexicographicallyPrecedes(Array($1.relative.utf8)) }
        total = items.count
        steps = items.enumerated().compactMap { offset, item -> Step? in
            guard offset % shard.count == shard.index - 1 else { return nil }
            if let table = modified(item.table), let audio = modified(item.source), table > audio {
                return .skip(item)
            }
            return .identify(item)
        }
    }

    public var toIdentify: [Item] {
        steps.compactMap { if case .identify(let item) = $0 { item } else { nil } }
    }

    /// `path` without `.` and `..` parts and doubled slashes (read as written, links not followed).
    public static func lexical(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." {
                _ = parts.popLast()
            } else {
                parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    static func parent(_ path: String) -> String {
        let parts = lexical(path).split(separator: "/").dropLast()
        return "/" + parts.joined(separator: "/")
    }

    /// The deepest folder holding every one of `folders`.
    static func sharedFolder(_ folders: [String]) -> String {
        guard var shared = folders.first.map({ $0.split(separator: "/") }) else { return "/" }
        for folder in folders.dropFirst() {
            let parts = folder.split(separator: "/")
            var common = 0
            while common < min(shared.count, parts.count), shared[common] == parts[common] { common += 1 }
            shared = Array(shared.prefix(common))
        }
        return "/" + shared.joined(separator: "/")
    }

    static func relative(_ path: String, to folder: String) -> String {
        let prefix = folder == "/" ? "/" : folder + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : String(path.dropFirst())
    }
}
