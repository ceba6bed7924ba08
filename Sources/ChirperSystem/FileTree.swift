import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The files under paths a user named: a file as it is, a folder searched recursively. A folder reached twice
/// (a symbolic link back up the tree, a bind mount) is entered once: folders are told apart by device and
/// inode, not by name, so a loop ends at once.
public enum FileTree {
    /// A path that could not be read, and why (the C library's words).
    public struct Problem: Error, Sendable, Hashable {
        public var path: String
        public var reason: String
    }

    public struct Found: Sendable, Hashable {
        /// Absolute paths of the files, each folder's in name order, named files first in the order given.
        public var files: [String] = []
        public var problems: [Problem] = []
        /// Files inside folders left out because `keep` refused their names (not audio).
        public var leftOut = 0
    }

    /// Walks `paths` (relative ones from `directory`). Files named directly are always listed; a file found inside
    /// a folder is listed when `keep` accepts its name. Hidden files and folders (`.name`) inside folders are
    /// skipped, as recorders' and systems' own files are.
    public static func walk(_ paths: [String], from directory: String, keep: (String) -> Bool) -> Found {
        var found = Found()
        var visited: Set<FolderID> = []
        for path in paths {
            let absolute = path.hasPrefix("/") ? path : (directory.hasSuffix("/") ? directory : directory + "/") + path
            var info = stat()
            guard stat(absolute, &info) == 0 else {
                found.problems.append(Problem(path: path, reason: FileIO.lastError()))
                continue
            }
            if info.st_mode & S_IFMT == S_IFDIR {
                var pending = [(absolute, FolderID(info))]
                while let (folder, id) = pending.popLast() {
                    guard visited.insert(id).inserted else { continue }
                    var below: [(String, FolderID)] = []
                    readFolder(folder, into: &found, keep: keep, folders: &below)
                    // Depth first, in name order: the first folder's files come before the second's.
                    pending += below.reversed()
                }
            } else {
                found.files.append(normalized(absolute))
            }
        }
        return found
    }

    private static func readFolder(
        _ folder: String, into found: inout Found, keep: (String) -> Bool, folders: inout [(String, FolderID)]
    ) {
        guard let stream = opendir(folder) else {
            found.problems.append(Problem(path: folder, reason: FileIO.lastError()))
            return
        }
        defer { closedir(stream) }
        var entries: [(name: String, type: UInt8)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            entries.append((name, entry.pointee.d_type))
        }
        // The folder's path once normalised; its entries' names are single parts, so a file's path is this and
        // its name (what `normalized` would make of the two, without splitting every path).
        let base = normalized(folder)
        let prefix = base.hasSuffix("/") ? base : base + "/"
        var files: [String] = []
        for (name, type) in entries.sorted(by: { $0.name < $1.name }) {
            let path = prefix + name
            // A regular file is told by the folder's entry, without a stat: its name decides whether it is listed.
            if type == UInt8(DT_REG) {
                if keep(name) { files.append(path) } else { found.leftOut += 1 }
                continue
            }
            // A folder is told apart by its device and inode; a link or an entry of unknown type is followed by stat.
            guard [UInt8(DT_DIR), UInt8(DT_LNK), UInt8(DT_UNKNOWN)].contains(type) else {
                found.leftOut += 1
                continue
            }
            var info = stat()
            // A link is followed (a folder of links to recordings is common); a loop ends at a folder seen before.
            guard stat(path, &info) == 0 else {
                if keep(name) { found.problems.append(Problem(path: path, reason: FileIO.lastError())) }
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: folders.append((path, FolderID(info)))
            case S_IFREG:
                if keep(name) { files.append(path) } else { found.leftOut += 1 }
            default: found.leftOut += 1
            }
        }
        found.files += files
    }

    /// The absolute path of the readable file at `path`, every symbolic link and `..` resolved (the C
    /// library's `realpath`, one call); nil when it does not exist or cannot be read.
    public static func readableTarget(of path: String) -> String? {
        guard let resolved = resolved(path), access(resolved, R_OK) == 0 else { return nil }
        return resolved
    }

    /// The absolute path of what `path` names, every symbolic link and `..` resolved; nil when it does not exist.
    public static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The path without `//` or `/./`.
    static func normalized(_ path: String) -> String {
        let parts = path.split(separator: "/").filter { $0 != "." }
        return "/" + parts.joined(separator: "/")
    }

    private struct FolderID: Hashable {
        var device: UInt64
        var inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }
}

extension FileIO {
    static func lastError() -> String { String(cString: strerror(errno)).lowercased() }
}
