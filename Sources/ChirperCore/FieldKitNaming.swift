/// File names and formats for saved and cached recordings. Names come from the recording's id only (never the
/// API's `file-name`), and the extension from the bytes themselves.
public enum FieldKitNaming {
    /// `XC254462` for a xeno-canto number, the demo id (`DEMO-07`: capitals, a dash, digits) as it is; nil for
    /// anything else, so no API text can become a path.
    public static func stem(forID id: String) -> String? {
        if !id.isEmpty, id.count <= 12, id.allSatisfy(\.isASCIIDigit) { return "XC\(id)" }
        let parts = id.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...12).contains(parts[0].count), (1...6).contains(parts[1].count),
            parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }), parts[1].allSatisfy(\.isASCIIDigit)
        else { return nil }
        return id
    }

    /// `mp3` for an ID3 tag or an MPEG frame sync, `wav` for RIFF/WAVE, nil for anything else.
    public static func sniffExtension(_ prefix: [UInt8]) -> String? {
        if prefix.count >= 12, prefix[0..<4] == [0x52, 0x49, 0x46, 0x46], prefix[8..<12] == [0x57, 0x41, 0x56, 0x45] {
            return "wav"
        }
        if prefix.count >= 3, prefix[0..<3] == [0x49, 0x44, 0x33] { return "mp3" }
        if prefix.count >= 2, prefix[0] == 0xFF, prefix[1] & 0xE0 == 0xE0 { return "mp3" }
        return nil
    }

    /// The offset and total of a `Content-Range: bytes N-M/T` header (T may be `*`).
    public static func contentRange(_ header: String) -> (start: Int64, end: Int64, total: Int64?)? {
        let trimmed = header.split(separator: " ", maxSplits: 1)
        guard trimmed.count == 2, trimmed[0].lowercased() == "bytes" else { return nil }
        let rangeAndTotal = trimmed[1].split(separator: "/", omittingEmptySubsequences: false)
        guard rangeAndTotal.count == 2 else { return nil }
        let bounds = rangeAndTotal[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start <= end else {
            return nil
        }
        if rangeAndTotal[1] == "*" { return (start, end, nil) }
        guard let total = Int64(rangeAndTotal[1]), total > end else { return nil }
        return (start, end, total)
    }

    /// What `save` does when a file of the final name already exists: equal length and SHA-256 means the
    /// recording is already saved (skip, say so); anything else is refused, never overwritten.
    public enum Existing: Sendable, Equatable {
        case skipIdentical
        case refuse(String)
    }

    public static func existing(name: String, sameLength: Bool, sameDigest: Bool) -> Existing {
        if sameLength && sameDigest { return .skipIdentical }
        return .refuse(
            "\(name) already exists and differs from the download; move it away or save to another folder (save <n> DIR)"
        )
    }
}
