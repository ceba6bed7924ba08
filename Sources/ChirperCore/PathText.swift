import FoundationEssentials

/// Path text as `NSString`'s path methods read it, which FoundationEssentials (what the program is built on
/// instead of Foundation) does not have.
public enum PathText {
    /// The folder holding `path`: "/a/b/c" and "/a//b/c/" give "/a/b", "/a" gives "/", "c" gives "" (where
    /// swift-corelibs-foundation's `deletingLastPathComponent` stops the program).
    public static func folder(of path: String) -> String {
        let absolute = path.hasPrefix("/")
        let components = path.split(separator: "/").dropLast()
        return (absolute ? "/" : "") + components.joined(separator: "/")
    }

    /// The last part of `path`: "/a/b/c" and "/a/b/c/" give "c", "c" gives "c", "/" gives "/" (as
    /// `path.split(separator: "/").last ?? path` does, without splitting every part).
    public static func lastComponent(_ path: String) -> String {
        guard let last = path.utf8.lastIndex(where: { $0 != UInt8(ascii: "/") }) else { return path }
        let trimmed = path[...last]
        guard let slash = trimmed.utf8.lastIndex(of: UInt8(ascii: "/")) else { return String(trimmed) }
        return String(trimmed[trimmed.utf8.index(after: slash)...])
    }

    /// `name` without its extension: "XC1.mp3" gives "XC1", ".hidden" and "plain" stay as they are.
    public static func removingExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex,
            !name[..<dot].hasSuffix("/"), !name[dot...].contains("/")
        else { return name }
        return String(name[..<dot])
    }

    /// The user's home folder (`$HOME` is read first by the callers that take an environment).
    public static var homeDirectory: String { FileManager.default.homeDirectoryForCurrentUser.path }

    /// The folder for temporary files (`$TMPDIR`, or /tmp).
    public static var temporaryDirectory: String { FileManager.default.temporaryDirectory.path }
}
