import ChirperCore
import ChirperSystem
import FoundationEssentials
import Glibc

/// The check that a model file is the one `make model` wrote: its SHA-256 against the one its `SOURCES.json`
/// records, so that a damaged or replaced file is said in one line instead of giving wrong answers.
enum ModelFileCheck {
    /// The SHA-256 `sources` records for the file `name`.
    static func expected(_ name: String, sources: String) throws -> String {
        guard let text = try? String(contentsOfFile: sources, encoding: .utf8),
            let expected = ModelSources.sha256(of: name, in: text)
        else {
            throw IdentifyUnavailable(
                reason: "\(sources) does not say what \(name) should be: run `make model` again")
        }
        return expected
    }

    /// Throws the one line for a damaged file unless `digest` is `expected`.
    static func check(_ path: String, digest: String?, expected: String) throws {
        guard digest == expected else {
            throw IdentifyUnavailable(
                reason: "the BirdNET model \(path) is damaged (its SHA-256 is not the one make model recorded): "
                    + "run `make model` to fetch it again")
        }
    }

    /// The file's SHA-256, read in pieces of 1 MiB; nil when it cannot be read.
    static func digest(ofFile path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { break }
            hash.update(buffer[0..<count])
        }
        return hash.hexDigest()
    }
}
