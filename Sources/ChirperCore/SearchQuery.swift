import FoundationEssentials

/// A search in xeno-canto's tagged syntax (API v3 accepts tagged queries only).
///
/// Typed text is turned into tagged terms: bare words before any tag become one `en:"…"` term, bare words
/// after a tag continue that tag's value (`cnt:united kingdom` is `cnt:"united kingdom"`), and values with
/// spaces or operators are quoted when the query is sent.
public struct SearchQuery: Sendable, Hashable, CustomStringConvertible {
    /// One `tag:value` term.
    public struct Term: Sendable, Hashable {
        /// Lowercased tag name, e.g. `en`, `cnt`.
        public var tag: String
        /// The value without surrounding quotes.
        public var value: String

        public init(tag: String, value: String) {
            self.tag = tag
            self.value = value
        }

        /// The term as xeno-canto expects it, quoting the value where needed.
        public var text: String {
            let needsQuotes = value.isEmpty || value.contains { " \t=<>\"".contains($0) }
            guard needsQuotes else { return "\(tag):\(value)" }
            return "\(tag):\"\(value.replacing("\"", with: ""))\""
        }
    }

    /// The hint to a user with nothing listed yet, naming `example`, a search the source answers.
    public static func searchFirst(example: String) -> String {
        "search first, e.g. search \(example)"
    }

    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case unknownTag(String)
        case emptyValue(String)
        case unbalancedQuote

        public var description: String {
            switch self {
            case .empty:
                return "search needs words or tags, e.g. search en:wren  or  search gen:turdus cnt:spain"
            case .unknownTag(let tag):
                return "unknown search tag '\(tag):'; known tags: \(SearchQuery.knownTags.joined(separator: " "))"
            case .emptyValue(let tag):
                return "the tag '\(tag):' needs a value, e.g. \(tag):\(SearchQuery.example(for: tag))"
            case .unbalancedQuote:
                return "a quote is not closed; write values with spaces as tag:\"two words\""
            }
        }
    }

    /// How the query reads what was typed: birders type scientific names as often as English ones, and untagged
    /// words are read as an English name first.
    public enum Reading: Sendable, Hashable {
        /// As typed: the tags say what each value is.
        case tagged
        /// Untagged `words` read as an English name (`en:`); read as a scientific name if that finds nothing.
        case englishName(words: String)
        /// Untagged `words` that found nothing as an English name, read as a genus (`gen:`) or a binomial (`sp:`).
        case scientificName(words: String)
    }

    /// What a query looks through: the session's catalogue (xeno-canto, or the offline one), or the files of the
    /// user's own.
    public enum Scope: Sendable, Hashable {
        /// `search`: the catalogue.
        case archive
        /// `open PATH…`: these files, and the audio files in these folders and every folder below them.
        case open(paths: [String])
        /// `filter <query>`: the files opened last, narrowed by the terms (bare words match the path).
        case files
    }

    public var terms: [Term]
    public var reading: Reading
    public var scope: Scope

    public init(terms: [Term], reading: Reading = .tagged, scope: Scope = .archive) {
        self.terms = terms
        self.reading = reading
        self.scope = scope
    }

    /// `open` of `paths`.
    public static func open(_ paths: [String]) -> SearchQuery {
        SearchQuery(terms: [], scope: .open(paths: paths))
    }

    /// The same search with its untagged words read as a scientific name, when they look like one: one word is
    /// a genus, two a binomial, letters and hyphens only. Nil once tried, or for tags.
    public var scientificReading: SearchQuery? {
        guard scope == .archive, case .englishName(let words) = reading, let first = terms.first, first.tag == "en"
        else { return nil }
        let parts = words.split(separator: " ")
        guard (1...2).contains(parts.count),
            parts.allSatisfy({ word in word.count >= 2 && word.allSatisfy { $0.isLetter || $0 == "-" } })
        else { return nil }
        let name = parts.joined(separator: " ").lowercased()
        let tag = parts.count == 1 ? "gen" : "sp"
        var terms = self.terms
        terms[0] = Term(tag: tag, value: name)
        return SearchQuery(terms: terms, reading: .scientificName(words: words))
    }

    /// The search tags xeno-canto documents for API v3.
    public static let knownTags: [String] = [
        "en", "gen", "sp", "ssp", "fam", "grp", "rec", "cnt", "loc", "area", "lat", "lon", "box", "also", "type",
        "othertype", "sex", "stage", "method", "seen", "playback", "rmk", "nr", "lic", "q", "len", "since", "year",
        "month", "colyear", "colmonth", "temp", "regnr", "auto", "dvc", "mic", "smp",
    ]

    static func example(for tag: String) -> String {
        switch tag {
        case "en": return "wren"
        case "gen": return "turdus"
        case "sp": return "\"larus fuscus\""
        case "cnt": return "spain"
        case "q": return "A"
        case "type": return "song"
        case "grp": return "birds"
        case "len": return "\"<30\""
        default: return "…"
        }
    }

    /// Parses what the user typed after `search`.
    public static func parse(_ input: String) throws(ParseError) -> SearchQuery {
        let tokens = try tokenize(input)
        guard !tokens.isEmpty else { throw .empty }
        var terms: [Term] = []
        var bare: [String] = []
        // Index into `terms` of the tag that unquoted bare words continue.
        var open: Int?
        for token in tokens {
            if let tag = token.tag {
                let lower = tag.lowercased()
                guard knownTags.contains(lower) else { throw .unknownTag(tag) }
                terms.append(Term(tag: lower, value: token.value))
                open = token.quoted ? nil : terms.count - 1
            } else if let index = open {
                let value = terms[index].value
                terms[index].value = value.isEmpty ? token.value : value + " " + token.value
                if token.quoted { open = nil }
            } else {
                bare.append(token.value)
            }
        }
        if let empty = terms.first(where: { $0.value.isEmpty }) { throw .emptyValue(empty.tag) }
        guard !bare.isEmpty else { return SearchQuery(terms: terms) }
        let words = bare.joined(separator: " ")
        terms.insert(Term(tag: "en", value: words), at: 0)
        return SearchQuery(terms: terms, reading: .englishName(words: words))
    }

    /// The query string sent as `query=`; for one's own files, the command that lists them (`open PATH…`,
    /// `filter …`).
    public var text: String {
        let tagged = terms.map(\.text).joined(separator: " ")
        switch scope {
        case .archive: return tagged
        case .open(let paths):
            let shown = paths.map { $0.contains(where: { $0 == " " || $0 == "\"" }) ? "\"\($0)\"" : $0 }
            return (["open"] + shown).joined(separator: " ")
        case .files:
            // Bare words match the path here, not an English name: shown as typed, without the `en:` they are
            // kept under.
            guard case .englishName(let words) = reading, let first = terms.first, first.tag == "en" else {
                return "filter " + tagged
            }
            return (["filter", words] + terms.dropFirst().map(\.text)).joined(separator: " ")
        }
    }

    public var description: String { text }

    /// The first value given for `tag`, if any.
    public func value(of tag: String) -> String? {
        terms.first { $0.tag == tag }?.value
    }

    private struct Token {
        var tag: String?
        var value: String
        var quoted: Bool
    }

    private static func tokenize(_ input: String) throws(ParseError) -> [Token] {
        var tokens: [Token] = []
        var index = input.startIndex
        func skipSpaces() {
            while index < input.endIndex, input[index].isWhitespace { index = input.index(after: index) }
        }
        skipSpaces()
        while index < input.endIndex {
            var tag: String?
            var value = ""
            var quoted = false
            // A tag is letters followed by a colon.
            var probe = index
            while probe < input.endIndex, input[probe].isLetter { probe = input.index(after: probe) }
            if probe > index, probe < input.endIndex, input[probe] == ":" {
                tag = String(input[index..<probe])
                index = input.index(after: probe)
            }
            if index < input.endIndex, input[index] == "\"" {
                quoted = true
                index = input.index(after: index)
                guard let close = input[index...].firstIndex(of: "\"") else { throw .unbalancedQuote }
                value = String(input[index..<close])
                index = input.index(after: close)
            }
            while index < input.endIndex, !input[index].isWhitespace {
                if input[index] == "\"" { throw .unbalancedQuote }
                value.append(input[index])
                index = input.index(after: index)
            }
            tokens.append(Token(tag: tag, value: value, quoted: quoted))
            skipSpaces()
        }
        return tokens
    }
}
