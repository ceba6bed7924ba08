import ChirperCatalog
import ChirperCore
import ChirperSystem

/// The archive a session without xeno-canto searches: the saved and cached recordings, a catalogue folder, or the
/// demo. Read beside the rest of the launch, since every launch without an API key waits for it.
extension ChirperPlay {
    /// The offline catalogue the session searches, being loaded on a thread of its own, with its banner line: the
    /// saved and cached recordings (`--offline`), `--catalog DIR`, else without an API key the demo; nil with a key
    /// (xeno-canto is searched).
    static func loadingOffline(
        key: String, catalog: String?, offline: Bool, sidecarsIn folders: [String]
    ) -> ChirperSystem.Channel<(any RecordingSource, String), ListError>? {
        guard offline || catalog != nil || key.isEmpty else { return nil }
        let loaded = ChirperSystem.Channel(of: (any RecordingSource, String).self, failure: ListError.self)
        startDetachedThread(name: "chirper-catalog") {
            do throws(ListError) {
                loaded.post(try offlineSource(catalog: catalog, offline: offline, sidecarsIn: folders), last: true)
            } catch {
                loaded.finish(throwing: error)
            }
        }
        return loaded
    }

    /// The offline catalogue and its banner line, read on the caller's thread; a catalogue that cannot be read is
    /// one `ListError`.
    static func offlineSource(
        catalog: String?, offline: Bool, sidecarsIn folders: [String]
    ) throws(ListError) -> (any RecordingSource, String) {
        if offline {
            let kit = OfflineCatalog(sidecarsIn: folders)
            let skipped = kit.skippedSidecars > 0 ? ", \(kit.skippedSidecars) unreadable sidecars skipped" : ""
            return (
                kit, "offline: \(kit.recordings.count) saved and cached recordings\(skipped)\(Self.searchHint(kit))"
            )
        }
        if let catalog {
            let offline = try OfflineCatalog(directory: catalog, name: "the catalog in \(catalog)")
            return (
                offline,
                "offline catalog \(catalog) (\(offline.recordings.count) recordings\(Self.searchHint(offline)))"
            )
        }
        guard let folder = OfflineCatalog.locateDemo() else {
            throw ListError(
                .catalog,
                "no API key and the demo catalog (assets/demo) was not found; set XENO_CANTO_API_KEY or pass --catalog DIR"
            )
        }
        let demo = try OfflineCatalog(directory: folder, name: "the demo catalog")
        return (
            demo,
            "offline demo catalog: \(demo.recordings.count) synthetic sounds\(Self.searchHint(demo))"
                + " (set XENO_CANTO_API_KEY for xeno-canto)"
        )
    }

    /// What the banner suggests searching in an offline catalogue, so that a first search finds something; nothing
    /// when it has no recordings.
    static func searchHint(_ catalog: OfflineCatalog) -> String {
        catalog.recordings.isEmpty ? "" : ", try search \(catalog.exampleSearch)"
    }
}
