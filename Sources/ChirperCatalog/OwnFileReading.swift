import ChirperCore
import ChirperSystem
import FoundationEssentials

/// The rows of files of one's own, read from their headers: one file on the caller's thread, or a page of
/// them on every core, in pieces of consecutive files, each piece on a thread of its own.
public enum OwnFileReading {
    /// Bytes read at least at a time: a page of memory, which holds most files' header (`fmt `, and `LIST` or
    /// `guan` chunks before the audio), or the chunks after the audio, in one read.
    static let readBytes = 4096
    /// The fewest files a thread is started for: below that, starting it costs more than it saves.
    static let filesPerThread = 32

    /// The rows of `paths`, in their order: each file's row, or why it cannot be listed.
    static func rows(_ paths: [String]) async -> [Result<Recording, SkippedFile>] {
        let threads = min(ProcessInfo.processInfo.activeProcessorCount, paths.count / filesPerThread)
        guard threads > 1 else { return paths.map(row) }
        let pieces = Channel(of: (Int, [Result<Recording, SkippedFile>]).self, failure: Never.self)
        for piece in 0..<threads {
            let part = Array(paths[paths.count * piece / threads..<paths.count * (piece + 1) / threads])
            startDetachedThread(name: "chirper-headers") { pieces.post((piece, part.map(row))) }
        }
        var parts = [[Result<Recording, SkippedFile>]](repeating: [], count: threads)
        for _ in 0..<threads {
            // A cancelled wait ends the channel: the rows not read here are read as the page needs them.
            guard let (piece, rows) = await pieces.next() else { break }
            parts[piece] = rows
        }
        guard parts.allSatisfy({ !$0.isEmpty }) else { return [] }
        // The first piece's array is taken whole, not copied row by row: a row is dozens of strings to retain.
        var all = parts.removeFirst()
        for part in parts { all += part }
        return all
    }

    /// The row of the file at `path`, from its header, or why it cannot be listed.
    public static func row(_ path: String) -> Result<Recording, SkippedFile> {
        let file: ReadableFile
        switch ReadableFile.open(path) {
        case .success(let opened): file = opened
        case .failure(let problem): return .failure(SkippedFile(path: path, reason: problem.reason))
        }
        var failure: FileTree.Problem?
        let step = AudioFileHeaderReader.read(fileSize: file.size) { offset, count in
            switch file.bytes(at: offset, count: max(count, readBytes)) {
            case .success(let bytes): return bytes
            case .failure(let problem):
                failure = problem
                return []
            }
        }
        if let failure { return .failure(SkippedFile(path: path, reason: failure.reason)) }
        switch step {
        case .header(let header):
            return .success(Recording(ownFile: path, header: header, modified: file.modified))
        case .problem(let problem):
            return .failure(SkippedFile(path: path, reason: problem.userMessage))
        case .need:
            return .failure(SkippedFile(path: path, reason: "its header could not be read to the end"))
        }
    }
}
