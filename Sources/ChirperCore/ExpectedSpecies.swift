/// The species expected where and when a recording was made: those BirdNET's meta-model gives at least its
/// threshold for the place and week, or those on a species list the user gave. A detection of any other species
/// is kept and marked, never dropped.
public struct ExpectedSpecies: Sendable, Hashable {
    /// BirdNET-Analyzer's default `--sf_thresh`: a species the meta-model gives less at a place and week is not
    /// expected there.
    public static let threshold = 0.03

    public enum Source: Sendable, Hashable {
        /// The meta-model at this place and week.
        case place(RecordingPlace)
        /// The species list `--species-list` named (its path as the user typed it), and the names in it that are
        /// not among BirdNET's classes.
        case list(path: String, unknown: [String])
    }

    public var source: Source
    /// Scientific names, in lower case.
    public var names: Set<String>

    public init(source: Source, scientificNames: some Sequence<String>) {
        self.source = source
        self.names = Set(scientificNames.map { $0.lowercased() })
    }

    public func expects(_ species: Species) -> Bool { names.contains(species.scientific.lowercased()) }
}

/// Whether an identification's species were checked against where and when the recording was made.
public enum PlaceCheck: Sendable, Hashable {
    /// Nothing says where the recording was made, and no species list was given: every species is shown as heard.
    case noPlace
    /// There was a place, but the meta-model could not be run: why, in one line.
    case unavailable(String)
    case judged(ExpectedSpecies)

    /// Whether `species` is shown as expected: yes unless judged and not on the list.
    public func expects(_ species: Species) -> Bool {
        if case .judged(let expected) = self { expected.expects(species) } else { true }
    }
}

/// A species list that cannot be read as BirdNET's: which line, and what is wrong with it.
public struct SpeciesListError: UserFacingError, Hashable {
    public var path: String
    public var line: Int?
    public var problem: String

    public init(path: String, line: Int?, problem: String, isAboutTheText: Bool = true) {
        self.path = path
        self.line = line
        self.problem = problem
        self.isAboutTheText = isAboutTheText
    }

    /// Whether the file was read and its text is what is wrong: then the line says what the format is.
    public var isAboutTheText: Bool

    public var userMessage: String {
        "cannot use the species list \(TerminalText.sanitize(path))" + (line.map { " (line \($0))" } ?? "")
            + ": \(problem)"
            + (isAboutTheText
                ? "; it takes one species a line, as BirdNET's labels write them (Prunella modularis_Dunnock)" : "")
    }
}

extension BirdNET {
    /// A species list in BirdNET-Analyzer's format: one `Scientific name_Common name` a line (the common name
    /// may be left out), blank lines skipped. Names that are not among `classes` are returned apart, so that they
    /// are said rather than silently matching nothing.
    public static func speciesList(_ text: String, path: String, classes: [Species]) throws(SpeciesListError) -> (
        names: [String], unknown: [String]
    ) {
        let known = Set(classes.map { $0.scientific.lowercased() })
        var names: [String] = []
        var unknown: [String] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            guard !line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" })
            else {
                throw SpeciesListError(path: path, line: index + 1, problem: "a control character")
            }
            let scientific = (line.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if scientific.isEmpty {
                guard line.allSatisfy(\.isWhitespace) else {
                    throw SpeciesListError(path: path, line: index + 1, problem: "no scientific name before the `_`")
                }
                continue
            }
            if known.contains(scientific.lowercased()) { names.append(scientific) } else { unknown.append(scientific) }
        }
        guard !names.isEmpty else {
            throw SpeciesListError(
                path: path, line: nil,
                problem: unknown.isEmpty ? "it names no species" : "none of its \(unknown.count) names is BirdNET's")
        }
        return (names, unknown)
    }
}
