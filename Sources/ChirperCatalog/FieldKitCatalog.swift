import ChirperCore
import FoundationEssentials

extension OfflineCatalog {
    /// `--offline`: the saved and cached recordings as one catalogue, searched with the same matcher as the
    /// bundled one. Reads every `XC<id>.json` sidecar in `directories` (missing folders are skipped;
    /// unreadable or foreign sidecars are skipped and counted in `skippedSidecars`). The audio is the file
    /// named after the id beside the sidecar (`XC<id>.mp3` or `.wav`), never a name from the sidecar's text; a
    /// sidecar without one (a play stopped part-way, an evicted recording) is not listed. A recording in
    /// several folders is listed once, from the first folder.
    public init(sidecarsIn directories: [String], name: String = "the saved and cached recordings") {
        var found: [String: Recording] = [:]
        var order: [String] = []
        var skipped = 0
        for directory in directories {
            let root = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath()
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
            for file in names.sorted() where file.hasSuffix(".json") && file != "index.json" {
                let stem = String(file.dropLast(5))
                guard let data = try? Data(contentsOf: root.appendingPathComponent(file)),
                    var recording = Sidecar.decode(data)?.recording,
                    FieldKitNaming.stem(forID: recording.id) == stem
                else {
                    skipped += 1
                    continue
                }
                let audio = ["mp3", "wav"].lazy.map { "\(stem).\($0)" }.first {
                    FileManager.default.isReadableFile(atPath: root.appendingPathComponent($0).path)
                }
                // Metadata without its audio (a play stopped before the end, an evicted file) is not listed.
                guard let audio else { continue }
                recording.audio = Self.resolve(audio, in: root)
                guard found[recording.id] == nil else { continue }
                order.append(recording.id)
                found[recording.id] = recording
            }
        }
        self.init(
            directory: directories.first ?? "", name: name, recordings: order.compactMap { found[$0] },
            skippedSidecars: skipped)
    }
}
