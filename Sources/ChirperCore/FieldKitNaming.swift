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

    /// The xeno-canto number of an audio URL of the form `…/<digits>/download` (v3's `file`), the key the play
    /// cache files a remote recording under; nil for any other location (those are not cached).
    public static func id(of location: AudioLocation) -> String? {
        guard case .remote(let url) = location else { return nil }
        let path = url.split(separator: "?", maxSplits: 1)[0].split(separator: "/")
        guard path.count >= 3, path[path.count - 1] == "download" else { return nil }
        let number = String(path[path.count - 2])
        guard stem(forID: number) == "XC\(number)" else { return nil }
        return number
    }
}
