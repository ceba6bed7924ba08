import ChirperCore
import FoundationEssentials
import ChirperSystem

/// A catalogue on disk in xeno-canto's v3 shape: `catalog.json` (one recordings page holding every recording)
/// beside the audio files it names. It answers tagged queries the way xeno-canto does, so the list store cannot
/// tell it from the API. The bundled demo catalogue is one of these.
public struct OfflineCatalog: RecordingSource {
    public let directory: String
    public let name: String
    public var defaultPerPage: Int { 10 }
    public let exampleSearch: String
    /// Every recording, in catalogue order, with `file` resolved to files inside `directory`.
    public let recordings: [Recording]
    /// Sidecars that could not be read (``init(sidecarsIn:name:)``): the REPL says how many were skipped.
    public private(set) var skippedSidecars = 0

    init(directory: String, name: String, recordings: [Recording], skippedSidecars: Int) {
        self.directory = directory
        self.name = name
        self.recordings = recordings
        self.skippedSidecars = skippedSidecars
        self.exampleSearch = Self.exampleSearch(in: recordings)
    }

    /// Loads `directory/catalog.json`. A `file` value is only accepted as a plain relative path that stays
    /// inside the folder and names an existing file; anything else is listed but not playable.
    public init(directory: String, name: String = "the offline catalog") throws(ListError) {
        // Resolved as each file is (realpath), so that a folder reached through a link holds its own files.
        let root = URL(
            fileURLWithPath: FileTree.resolved(directory)
                ?? URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath().path)
        let catalogFile = root.appendingPathComponent("catalog.json")
        let data: Data
        do {
            data = try Data(contentsOf: catalogFile)
        } catch {
            throw ListError(.catalog, "cannot read \(catalogFile.path): \(Self.reason(error)); check --catalog")
        }
        let page: Page
        do {
            page = try PageDecoder.decode(data)
        } catch {
            throw ListError(.catalog, "\(catalogFile.path) is not a recordings page (\(error)); check --catalog")
        }
        let files = PageDecoder.files(data)
        self.directory = root.path
        self.name = name
        self.recordings = page.recordings.map { recording in
            var recording = recording
            recording.audio = Self.resolve(files[recording.id] ?? "", in: root)
            return recording
        }
        self.exampleSearch = Self.exampleSearch(in: recordings)
    }

    /// A search that finds some of `recordings`: the country most of them share (`cnt:` matches the start of the
    /// country, so its first word does), else an English name's first word (`en:` matches any part), else a
    /// genus; each tried against the catalogue's own matcher, so the hint never names a search that finds nothing
    /// (a country written "(Spain)" does not start with "spain"). Letters and digits only, lowercased and at most
    /// 24 of them: nothing a catalogue or a sidecar says reaches a hint as more than a word. "en:wren" when
    /// nothing is found (an empty catalogue).
    static func exampleSearch(in recordings: [Recording]) -> String {
        func firstWord(_ text: String) -> String? {
            // Escape sequences go whole first, so that no parameter of one (`2J`) is taken for a word.
            TerminalText.sanitize(text).split(whereSeparator: { !($0.isLetter || $0.isNumber) }).first.map {
                String($0.lowercased().prefix(24))
            }
        }
        var countries: [String: Int] = [:]
        for recording in recordings {
            if let word = firstWord(recording.country) { countries[word, default: 0] += 1 }
        }
        // The most shared first; of equals, the first in alphabetical order, so the hint is the same at every start.
        let byCount = countries.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "cnt:\($0.key)" }
        let names = recordings.lazy.compactMap { firstWord($0.englishName) }.map { "en:\($0)" }
        let genera = recordings.lazy.compactMap { firstWord($0.genus) }.map { "gen:\($0)" }
        var tried: Set<String> = []
        // A few tries at most: each reads every recording.
        for candidate in byCount.prefix(3) + names.prefix(3) + genera.prefix(2) where tried.insert(candidate).inserted {
            guard let query = try? SearchQuery.parse(candidate),
                let matcher = try? CatalogMatcher(query: query)
            else { continue }
            if recordings.contains(where: matcher.matches) { return candidate }
        }
        return "en:wren"
    }

    /// The bundled demo catalogue, looked for beside the executable's package (assets/demo) or its install prefix
    /// (share/chirper-play/demo), then in the current directory.
    public static func locateDemo(executablePath: String = runningExecutable()) -> String? {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["CHIRPER_DEMO_CATALOG"], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override))
        }
        var folder = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(folder.appendingPathComponent("assets/demo"))
            candidates.append(folder.appendingPathComponent("share/chirper-play/demo"))
            folder.deleteLastPathComponent()
        }
        candidates.append(
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("assets/demo"))
        return candidates.first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("catalog.json").path)
        }?.path
    }

    /// The file the kernel ran, whatever it was typed as: argv[0] is only a name when the program was found on
    /// `PATH`, and a path relative to a folder the user may have left.
    public static func runningExecutable() -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), path.hasPrefix("/")
        {
            return path
        }
        return CommandLine.arguments.first ?? ""
    }

    /// What a catalogue's file names may hold: a plain relative path, nothing a shell or terminal reads.
    private static let allowedInFileNames = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/".unicodeScalars)

    /// `root` is the catalogue folder with its own links resolved.
    static func resolve(_ file: String, in root: URL) -> AudioAvailability {
        if file.isEmpty { return .restricted }
        let parts = file.split(separator: "/", omittingEmptySubsequences: false)
        guard !file.hasPrefix("/"), file.unicodeScalars.allSatisfy(allowedInFileNames.contains),
            parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
        else {
            return .refused("the catalogue's file name is not a plain path inside the catalogue folder")
        }
        // One realpath(3) per file: Foundation's link resolution stats each part of the path, which made loading
        // the demo catalogue the slowest step of a launch.
        guard let path = FileTree.readableTarget(of: root.path + "/" + file) else {
            return .refused("the audio file \(file) is missing from the catalogue")
        }
        // A link inside the folder may still point out of it.
        guard path.hasPrefix(root.path + "/") else {
            return .refused("the catalogue's file points outside the catalogue folder")
        }
        return .playable(.local(path: path))
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? CocoaError, error.code == .fileReadNoSuchFile { return "no such file" }
        return FileErrorText.reason(error)
    }

    public func page(
        query: SearchQuery,
        page: Int,
        perPage: Int,
        onRetry: @escaping @Sendable (RetryNotice) -> Void
    ) async throws(ListError) -> Page {
        let matcher = try CatalogMatcher(query: query)
        let matches = recordings.filter(matcher.matches)
        let size = max(1, perPage)
        let pages = max(1, (matches.count + size - 1) / size)
        let start = (page - 1) * size
        let slice = start >= 0 && start < matches.count ? Array(matches[start..<min(start + size, matches.count)]) : []
        let species = Set(matches.map { $0.scientificName.lowercased() }).count
        return Page(
            totalRecordings: matches.count, totalSpecies: species, page: page, numPages: pages, recordings: slice)
    }
}

/// Applies xeno-canto's tag semantics to local recordings.
struct CatalogMatcher: Sendable {
    static let supported = [
        "en", "gen", "sp", "ssp", "grp", "rec", "cnt", "loc", "type", "sex", "stage", "method",
        "rmk", "also", "q", "len", "nr", "smp", "dvc", "mic", "lic", "year", "month",
    ]

    let terms: [SearchQuery.Term]

    init(query: SearchQuery) throws(ListError) {
        for term in query.terms where !Self.supported.contains(term.tag) {
            throw ListError(
                .badRequest,
                "the offline catalog cannot search by '\(term.tag):'; it knows \(Self.supported.joined(separator: " "))"
            )
        }
        terms = query.terms
    }

    func matches(_ recording: Recording) -> Bool {
        terms.allSatisfy { matches($0, recording) }
    }

    private func matches(_ term: SearchQuery.Term, _ r: Recording) -> Bool {
        let value = term.value
        switch term.tag {
        case "en": return text(r.englishName, value, mode: .contains)
        case "gen": return text(r.genus, value, mode: .prefix)
        case "sp":
            // A binomial ("larus fuscus") names genus and species; one word is the species epithet.
            let words = value.split(separator: " ")
            if words.count >= 2 {
                return text(r.genus, String(words[0]), mode: .exact) && text(r.species, String(words[1]), mode: .prefix)
            }
            return text(r.species, value, mode: .prefix)
        case "ssp":
            let words = value.split(separator: " ")
            return text(r.subspecies, words.last.map(String.init) ?? value, mode: .prefix)
        case "grp": return group(r.group, value)
        case "rec": return text(r.recordist, value, mode: .contains)
        case "cnt": return text(r.country, value, mode: .prefix)
        case "loc": return text(r.locality, value, mode: .contains)
        case "type":
            return r.soundType.split(separator: ",").contains { text(String($0), value, mode: .exact) }
        case "sex", "stage":
            let field = term.tag == "sex" ? r.sex : r.stage
            return field.split(separator: ",").contains { text(String($0), value, mode: .exact) }
        case "method": return text(r.method, value, mode: .contains)
        case "rmk": return text(r.remarks, value, mode: .contains)
        case "also": return r.background.contains { text($0, value, mode: .contains) }
        case "q": return quality(r.quality, value)
        case "len": return number(r.lengthSeconds, value, tolerance: 0.01)
        case "nr": return text(r.id, value, mode: .exact) || text(r.label, value, mode: .exact)
        case "smp": return number(Double(r.sampleRate), value, tolerance: 0)
        case "dvc": return text(r.device, value, mode: .contains)
        case "mic": return text(r.microphone, value, mode: .contains)
        case "lic": return licence(r.licenceURL, value)
        case "year": return number(Double(r.date.prefix(4)), value, tolerance: 0)
        case "month": return number(Double(r.date.dropFirst(5).prefix(2)), value, tolerance: 0)
        default: return false
        }
    }

    enum Mode { case exact, prefix, contains }

    private func fold(_ text: String) -> String {
        text.foldingCaseAndAccents.trimmingSpaces
    }

    /// `=value` always asks for an exact match.
    private func text(_ field: String, _ value: String, mode: Mode) -> Bool {
        var wanted = value
        var mode = mode
        if wanted.hasPrefix("=") {
            wanted.removeFirst()
            mode = .exact
        }
        let field = fold(field)
        let key = fold(wanted)
        guard !key.isEmpty else { return true }
        switch mode {
        case .exact: return field == key
        case .prefix: return field.hasPrefix(key)
        case .contains: return field.contains(key)
        }
    }

    private func group(_ field: String, _ value: String) -> Bool {
        let ids = ["0": "soundscape", "1": "birds", "2": "grasshoppers", "3": "bats"]
        let wanted = ids[value] ?? fold(value)
        if wanted == "soundscape" { return field.isEmpty || fold(field) == "soundscape" }
        return fold(field) == wanted
    }

    /// `q:A`, `q:"<C"` (worse than C), `q:">C"` (better than C). Unrated recordings never match.
    private func quality(_ field: String, _ value: String) -> Bool {
        let order = ["A", "B", "C", "D", "E"]
        guard let rank = order.firstIndex(of: field.uppercased()) else { return false }
        var wanted = value.uppercased()
        let op = wanted.first.flatMap { "<>=".contains($0) ? $0 : nil }
        if op != nil { wanted.removeFirst() }
        guard let target = order.firstIndex(of: wanted) else { return false }
        switch op {
        case "<": return rank > target
        case ">": return rank < target
        default: return rank == target
        }
    }

    /// `N` (within the tolerance), `<N`, `>N`, `=N`, `A-B`.
    private func number(_ field: Double?, _ value: String, tolerance: Double) -> Bool {
        guard let field else { return false }
        let trimmed = value.trimmingSpaces
        if let first = trimmed.first, "<>=".contains(first), let number = Double(trimmed.dropFirst()) {
            switch first {
            case "<": return field < number
            case ">": return field > number
            default: return abs(field - number) < 0.05
            }
        }
        let bounds = trimmed.split(separator: "-")
        if bounds.count == 2, let low = Double(bounds[0]), let high = Double(bounds[1]) {
            return field >= low && field <= high
        }
        guard let number = Double(trimmed) else { return false }
        return abs(field - number) <= max(0.5, number * tolerance)
    }

    /// `lic:BY-NC-SA` matches licences with those conditions; `lic:PD` public domain and CC0.
    private func licence(_ url: String, _ value: String) -> Bool {
        let name = Licence.name(for: url).uppercased()
        if value.uppercased() == "PD" { return name.hasPrefix("CC0") || name.contains("PUBLIC DOMAIN") }
        return name.split(separator: " ").dropFirst().first.map { String($0) == value.uppercased() } ?? false
    }
}
