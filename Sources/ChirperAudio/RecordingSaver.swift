import ChirperCore
import FoundationEssentials
import Glibc
import ChirperSystem

/// Downloads one recording's original audio into a folder: written to `XC<id>.part`, resumed with `Range`
/// after a drop (also in a later session), its length checked against the server's, then renamed to
/// `XC<id>.mp3` or `.wav` (the extension from the bytes), with `XC<id>.json` (``Sidecar``) beside it. Names
/// come from the id only. Every request waits for `pace` first (xeno-canto's one request a second).
public struct RecordingSaver: Sendable {
    private let sources: ByteSources
    private let pace: @Sendable () async -> Void
    private let now: @Sendable () -> Date
    private let attempts: Int

    /// - Parameters:
    ///   - sources: where the bytes come from (uncached: a save is a download, not a replay).
    ///   - pace: waits for this request's turn (the API client's gate).
    ///   - now: the fetch time written into the sidecar (injected).
    ///   - attempts: requests per recording before a drop is given up on (the `.part` stays for a later save).
    public init(
        sources: ByteSources, pace: @escaping @Sendable () async -> Void = {},
        now: @escaping @Sendable () -> Date = { Date() }, attempts: Int = 4
    ) {
        self.sources = sources
        self.pace = pace
        self.now = now
        self.attempts = max(1, attempts)
    }

    /// `$XDG_DATA_HOME/chirper-play/recordings`, or `~/.local/share/chirper-play/recordings`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let base = environment["XDG_DATA_HOME"], base.hasPrefix("/") { return base + "/chirper-play/recordings" }
        return (environment["HOME"] ?? PathText.homeDirectory) + "/.local/share/chirper-play/recordings"
    }

    public func save(
        _ recording: Recording, into directory: String, progress: @escaping @Sendable (SaveProgress) -> Void
    ) async -> SaveOutcome {
        let label = TerminalText.sanitize(recording.label)
        func fail(_ reason: String) -> SaveOutcome { .failed(label: label, reason: reason) }
        guard let stem = FieldKitNaming.stem(forID: recording.id) else {
            return fail("its id cannot name a file; nothing saved")
        }
        guard let location = recording.playItem?.location else {
            return fail(
                "\(recording.audio == .restricted ? "restricted: its audio is not offered" : "no audio to save")")
        }
        let folder = URL(fileURLWithPath: directory).standardizedFileURL.path
        let made = FileIO.makeFolders(atPath: folder)
        // The folder itself, or a folder above it, is a file: name the file.
        if made == ENOTDIR, let file = FileIO.fileInTheWay(of: folder) {
            return fail(
                file == folder
                    ? "\(folder) is a file, not a folder; save to a folder (save <n> DIR)"
                    : "cannot create the folder \(folder): \(file) is a file; save to another (save <n> DIR)")
        }
        if let number = made {
            return fail(
                "cannot create the folder \(folder) (\(String(cString: strerror(number)))); save to another (save <n> DIR)"
            )
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            return fail(
                "cannot write in \(folder) (\(String(cString: strerror(errno)))); save to another (save <n> DIR)")
        }
        for ext in ["mp3", "wav"] where FileManager.default.fileExists(atPath: "\(folder)/\(stem).\(ext)") {
            return .exists(label: label, file: "\(folder)/\(stem).\(ext)")
        }
        let partPath = "\(folder)/\(stem).part"
        let source: any ByteSource
        do {
            source = try sources.source(for: location)
        } catch {
            return fail(userMessage(for: error))
        }
        let total: Int64
        switch await download(source, to: partPath, label: label, progress: progress) {
        case .success(let length): total = length
        case .failure(let failure): return fail(failure.message)
        }
        return finish(recording, label: label, stem: stem, folder: folder, partPath: partPath, total: total)
    }

    private struct Failure: Error {
        var message: String
    }

    /// Appends to the part from where it ends until the server's length is reached; the length it reached.
    private func download(
        _ source: any ByteSource, to partPath: String, label: String,
        progress: @escaping @Sendable (SaveProgress) -> Void
    ) async -> Result<Int64, Failure> {
        let part: PartFile
        do {
            part = try PartFile(path: partPath)
        } catch {
            return .failure(Failure(message: error.message))
        }
        var lastError = ""
        for attempt in 1...attempts {
            if Task.isCancelled { return .failure(Failure(message: "stopped; save again to resume from the .part")) }
            await pace()
            progress(.fetching(label: label, offset: part.size, attempt: attempt))
            do {
                let reader = try await source.open(from: part.size)
                var quarter = reader.totalLength.map { Int(part.size * 4 / max(1, $0)) } ?? 4
                while let chunk = try await reader.read() {
                    try part.append(chunk)
                    // Every quarter passed gets its line, also when one chunk passes two.
                    while let total = reader.totalLength, total > 0, quarter < min(3, Int(part.size * 4 / total)) {
                        quarter += 1
                        progress(.received(label: label, percent: quarter * 25))
                    }
                }
                if let total = reader.totalLength, total != part.size {
                    // The body ended short without an error (or long): resume, or give up below.
                    lastError = "the server sent \(part.size) of \(total) bytes"
                    if part.size > total {
                        part.discard()
                        return .failure(Failure(message: "\(lastError); save again to start over"))
                    }
                    continue
                }
                return .success(part.size)
            } catch let error as PartFile.WriteError {
                // A full disk or a folder that vanished: nothing half-written stays behind.
                part.discard()
                return .failure(Failure(message: error.message))
            } catch is CancellationError {
                return .failure(Failure(message: "stopped at \(part.size) bytes; save again to resume"))
            } catch {
                lastError = userMessage(for: error)
            }
        }
        return .failure(
            Failure(
                message:
                    "the download dropped \(attempts) times (\(lastError)); save again to resume from \(part.size) bytes"
            ))
    }

    /// Checks the bytes, writes the sidecar, and renames both into place.
    private func finish(
        _ recording: Recording, label: String, stem: String, folder: String, partPath: String, total: Int64
    ) -> SaveOutcome {
        let head = FileIO.head(ofPath: partPath, count: 12) ?? []
        guard let ext = FieldKitNaming.sniffExtension(head) else {
            unlink(partPath)
            return .failed(label: label, reason: "the server did not send MP3 or WAV audio; nothing saved")
        }
        let final = "\(folder)/\(stem).\(ext)"
        let sidecar = "\(folder)/\(stem).json"
        let data = Sidecar.encode(recording, audioFile: "\(stem).\(ext)", fetched: now())
        do {
            try data.write(to: URL(fileURLWithPath: sidecar), options: .atomic)
        } catch {
            return .failed(
                label: label,
                reason: "cannot write \(sidecar) (\(RecordingCache.reason(error))); the download stays as \(stem).part")
        }
        // link(2) fails if the final name appeared meanwhile: never replace a file that is there.
        guard link(partPath, final) == 0 else {
            let reason = String(cString: strerror(errno))
            return .failed(
                label: label, reason: "cannot name it \(final) (\(reason)); the download stays as \(stem).part")
        }
        unlink(partPath)
        return .saved(label: label, file: final, bytes: total)
    }
}
