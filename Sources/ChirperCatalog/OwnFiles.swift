import ChirperCore
import ChirperSystem
import FoundationEssentials

/// The files of the user's own that `open` lists and `filter` narrows: the runner's side of them. A folder is
/// walked once per `open` (its names only); each page reads the headers of its own files, so a folder of
/// thousands lists its first page at once, and a file that cannot be read is passed over with its reason.
///
/// A page's headers are read on every core (`OwnFileReading.rows`) while the actor waits; nothing it holds
/// changes across that wait (the results are kept only if no other `open` came meanwhile), so a page is made
/// from one opening, as if it were read file by file.
public actor OwnFiles {
    /// Every file of the last `open`, with the paths it was opened from.
    private var opened: (paths: [String], files: [String], problems: [SkippedFile]) = ([], [], [])
    /// Where each page of the last `open` starts in `opened.files` (a page holds `perPage` readable files).
    private var pageStarts: [Int] = [0]
    /// Headers read so far, by index in `opened.files` (nil: not read yet). Kept by index, not in a dictionary by
    /// path: hashing each long path, and moving rows as a dictionary grows, cost more than reading the headers.
    private var read: [Result<Recording, SkippedFile>?] = []
    /// Counts the `open`s: headers read for one are not kept after another.
    private var openings = 0
    /// The headers of the page after the last one listed, read while that one is shown, so that `next-page`
    /// finds them read; the page it is for, and the `open` it belongs to.
    private var ahead: (page: Int, opening: Int, reading: Task<Void, Never>)?
    private let directory: String

    /// `directory`: where relative paths start (the working directory).
    public init(directory: String = FileManager.default.currentDirectoryPath) {
        self.directory = directory
    }

    /// File names a folder's walk lists: the formats read, and the audio formats that are named with how to
    /// convert them. Other files (a recorder's `CONFIG.TXT`, pictures) are left out without a word.
    static let audioExtensions: Set<String> = [
        "wav", "wave", "bwf", "rf64", "flac", "mp3", "ogg", "oga", "opus", "m4a", "aac", "aif", "aiff", "aifc",
        "wma", "w64", "caf", "wv", "ape", "amr", "au", "snd", "mp2",
    ]

    public static func isAudioName(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return audioExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    func page(query: SearchQuery, page: Int, perPage: Int) async throws(ListError) -> Page {
        let size = max(1, perPage)
        switch query.scope {
        case .archive:
            throw ListError(.catalog, "not a search of one's own files")
        case .open(let paths):
            guard page == 1 || opened.paths != paths else {
                if let ahead, ahead.page == page, ahead.opening == openings { await ahead.reading.value }
                await readHeaders(page: page, size: size)
                try Self.checkStopped()
                return readingAhead(try openedPage(page, size: size), size: size)
            }
            let found = FileTree.walk(paths, from: directory, keep: Self.isAudioName)
            // The first page's headers, read before anything open is replaced.
            let first = Array(found.files.prefix(size))
            let rows = await OwnFileReading.rows(first)
            // Stopped (Ctrl-C): what was open before stays, and the headers left are not read here one by one.
            try Self.checkStopped()
            // An `open` that finds nothing playable leaves the files opened before (still listed) to `filter`.
            let before = (opened, pageStarts, read)
            open(paths, found: found, firstRows: rows)
            do {
                return readingAhead(try openedPage(page, size: size), size: size)
            } catch {
                (opened, pageStarts, read) = before
                throw error
            }
        case .files:
            if !opened.paths.isEmpty { await readHeaders(opened.files.indices) }
            try Self.checkStopped()
            return try filtered(query, page: page, size: size)
        }
    }

    /// Makes `found` what is open, the headers of its first files read (`firstRows`).
    private func open(_ paths: [String], found: FileTree.Found, firstRows: [Result<Recording, SkippedFile>]) {
        opened = (paths, found.files, found.problems.map { SkippedFile(path: $0.path, reason: $0.reason) })
        pageStarts = [0]
        read = Array(repeating: nil, count: max(found.files.count, firstRows.count))
        for (index, row) in firstRows.enumerated() { read[index] = row }
        openings += 1
    }

    /// Starts reading the headers of the page after `page` (when there is one) while `page` is shown.
    private func readingAhead(_ page: Page, size: Int) -> Page {
        ahead?.reading.cancel()
        ahead = nil
        guard page.page < page.numPages else { return page }
        let next = page.page + 1
        ahead = (next, openings, Task { await self.readHeaders(page: next, size: size) })
        return page
    }

    /// Reads the headers page `page` starts with, all at once, where it is known where it starts (the pages before
    /// it were listed); what the page needs beyond them (in place of files that cannot be read) is read as it goes.
    private func readHeaders(page: Int, size: Int) async {
        guard page <= pageStarts.count else { return }
        let start = pageStarts[page - 1]
        await readHeaders(start..<min(opened.files.count, start + size))
    }

    /// Reads the headers of the files at `indices` not read yet, all at once, and keeps them unless another
    /// `open` came meanwhile.
    private func readHeaders(_ indices: Range<Int>) async {
        let unread = indices.filter { read[$0] == nil }
        guard !unread.isEmpty else { return }
        let opening = openings
        let rows = await OwnFileReading.rows(unread.map { opened.files[$0] })
        guard opening == openings, rows.count == unread.count else { return }
        for (index, row) in zip(unread, rows) where read[index] == nil { read[index] = row }
    }

    /// Page `number` of what is open: the next `size` readable files after the previous page's.
    private func openedPage(_ number: Int, size: Int) throws(ListError) -> Page {
        // Pages are asked for in order; one asked again is read again from where it started.
        while pageStarts.count < number {
            let (_, _, next) = rows(from: pageStarts[pageStarts.count - 1], size: size)
            pageStarts.append(next)
        }
        let start = pageStarts[number - 1]
        let (recordings, skipped, next) = rows(from: start, size: size)
        if pageStarts.count == number { pageStarts.append(next) }
        let all = (number == 1 ? opened.problems : []) + skipped
        if number == 1, recordings.isEmpty {
            throw ListError(.catalog, Self.nothingReadable(opened.paths, all))
        }
        let remaining = opened.files.count - next
        let pages = number + (remaining + size - 1) / size
        let readable = next - start - skipped.count
        return Page(
            totalRecordings: readableSoFar(before: start) + readable + remaining, totalSpecies: 0, page: number,
            numPages: pages, recordings: recordings, skipped: all)
    }

    private func readableSoFar(before index: Int) -> Int {
        read[..<index].reduce(0) { count, row in
            if case .success = row { count + 1 } else { count }
        }
    }

    /// From file `start`, up to `size` readable rows and what was passed over; and where the next page starts.
    private func rows(from start: Int, size: Int) -> ([Recording], [SkippedFile], Int) {
        var recordings: [Recording] = []
        var skipped: [SkippedFile] = []
        var index = start
        while index < opened.files.count, recordings.count < size {
            switch row(at: index) {
            case .success(let recording): recordings.append(recording)
            case .failure(let problem): skipped.append(problem)
            }
            index += 1
        }
        return (recordings, skipped, index)
    }

    private func row(at index: Int) -> Result<Recording, SkippedFile> {
        if let known = read[index] { return known }
        let result = OwnFileReading.row(opened.files[index])
        read[index] = result
        return result
    }

    /// `filter`: the files opened last that match `query` (every header is read, once).
    private func filtered(_ query: SearchQuery, page: Int, size: Int) throws(ListError) -> Page {
        guard !opened.paths.isEmpty else {
            throw ListError(.catalog, "no files are open to filter: open a file or a folder first (open PATH)")
        }
        let matcher = try OwnFileMatcher(query: query)
        let matches = opened.files.indices.compactMap { index -> Recording? in
            guard case .success(let recording) = row(at: index), matcher.matches(recording) else { return nil }
            return recording
        }
        let pages = max(1, (matches.count + size - 1) / size)
        let start = (page - 1) * size
        let slice = start >= 0 && start < matches.count ? Array(matches[start..<min(start + size, matches.count)]) : []
        return Page(totalRecordings: matches.count, totalSpecies: 0, page: page, numPages: pages, recordings: slice)
    }

    /// A page whose fetch was cancelled (Ctrl-C) ends here, instead of reading the headers its wait left unread.
    private static func checkStopped() throws(ListError) {
        if Task.isCancelled { throw .stopped }
    }

    /// The one line when nothing opened can be played.
    static func nothingReadable(_ paths: [String], _ skipped: [SkippedFile]) -> String {
        guard let first = skipped.first else {
            return "no audio files in \(paths.joined(separator: " ")) (WAV, FLAC and MP3 are read)"
        }
        let more = skipped.count > 1 ? " (and \(skipped.count - 1) more that cannot be read)" : ""
        return "\(first.path): \(first.reason)\(more)"
    }
}

/// The query syntax on one's own files: the tags whose fields a file can say (`year:`, `month:`, `len:`,
/// `smp:`, `dvc:`, `rec:`, `rmk:`, `loc:`, `sp:`…) as the offline catalog reads them; bare words (`en:`) match
/// the path.
struct OwnFileMatcher: Sendable {
    static let supported = ["en", "rec", "loc", "rmk", "len", "nr", "smp", "dvc", "year", "month"]

    let path: String?
    let rest: CatalogMatcher

    init(query: SearchQuery) throws(ListError) {
        for term in query.terms where !Self.supported.contains(term.tag) {
            throw ListError(
                .badRequest,
                "one's own files cannot be filtered by '\(term.tag):'; filter knows words (the path) and "
                    + Self.supported.dropFirst().map { "\($0):" }.joined(separator: " "))
        }
        path = query.terms.first { $0.tag == "en" }?.value.foldingCaseAndAccents
        var others = query
        others.terms.removeAll { $0.tag == "en" }
        others.scope = .archive
        rest = try CatalogMatcher(query: others)
    }

    func matches(_ recording: Recording) -> Bool {
        if let path, let file = recording.ownFile?.path.foldingCaseAndAccents {
            let words = path.split(separator: " ")
            guard words.allSatisfy({ file.contains($0) }) else { return false }
        }
        return rest.matches(recording)
    }
}

/// The session's source: searches go to the catalogue, `open` and `filter` to the files of one's own.
public struct SessionSource: RecordingSource {
    public let archive: any RecordingSource
    public let files: OwnFiles

    public init(archive: any RecordingSource, files: OwnFiles = OwnFiles()) {
        self.archive = archive
        self.files = files
    }

    public var name: String { archive.name }
    public var defaultPerPage: Int { archive.defaultPerPage }
    public var exampleSearch: String { archive.exampleSearch }

    public func page(
        query: SearchQuery, page: Int, perPage: Int, onRetry: @escaping @Sendable (RetryNotice) -> Void
    ) async throws(ListError) -> Page {
        if query.scope == .archive {
            return try await archive.page(query: query, page: page, perPage: perPage, onRetry: onRetry)
        }
        return try await files.page(query: query, page: page, perPage: perPage)
    }
}
