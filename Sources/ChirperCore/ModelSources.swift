/// `SOURCES.json`, which `make model` writes beside the model: where each file came from, and its SHA-256.
public enum ModelSources {
    /// The `sha256` recorded for the file `name` (`"files": {name: {"sha256": …}}`), lower case; nil when the
    /// text is not such a record.
    public static func sha256(of name: String, in text: String) -> String? {
        guard let top = try? JSONValue.parse(Array(text.utf8)),
            case .string(let digest)? = top["files"]?[name]?["sha256"]
        else { return nil }
        return digest.lowercased()
    }
}
