/// "Did you mean …": the command nearest to a word that is none.
extension CommandParser {
    /// The closest command name, if one is within two edits.
    static func suggestion(for word: String) -> String? {
        let scored = commands.map { ($0.name, distance(word, $0.name)) }.min { $0.1 < $1.1 }
        guard let (name, score) = scored, score <= 2, word.count > 1 else { return nil }
        return name
    }

    static func distance(_ a: some StringProtocol, _ b: some StringProtocol) -> Int {
        let a = Array(a.prefix(40))
        let b = Array(b)
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, cb) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
