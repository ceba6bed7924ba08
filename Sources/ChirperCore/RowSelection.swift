/// Rows named by the user: `3`, `3-7`, `3,5,9`, `2-4,8`, `all`. Parsed against the number of rows loaded, in
/// the order written, duplicates dropped.
public enum RowSelection {
    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case notARow(String)
        case reversed(Int, Int)
        case outOfRange(Int, count: Int)
        case noRows

        public var description: String {
            switch self {
            case .empty:
                return "name rows, e.g. 3, 3-7, 3,5,9 or all"
            case .notARow(let text):
                return "'\(TerminalText.sanitize(text))' is not a row; name rows as 3, 3-7, 3,5,9 or all"
            case .reversed(let a, let b):
                return "the range \(a)-\(b) runs backwards; write \(b)-\(a)"
            case .outOfRange(let row, let count):
                return "there is no row \(row); the list has rows 1-\(count)"
            case .noRows:
                return "the list is empty; search first"
            }
        }
    }

    /// The rows (1-based) named by `text` in a list of `count` rows.
    public static func parse(_ text: String, count: Int) throws(ParseError) -> [Int] {
        let trimmed = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined()
        guard !trimmed.isEmpty else { throw .empty }
        guard count > 0 else { throw .noRows }
        if trimmed.lowercased() == "all" { return Array(1...count) }
        var rows: [Int] = []
        var seen: Set<Int> = []
        for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count) else { throw .notARow(String(part)) }
            var numbers: [Int] = []
            for bound in bounds {
                let digits = bound.hasPrefix("#") ? bound.dropFirst() : bound
                guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy(\.isASCIIDigit), let value = Int(digits)
                else { throw .notARow(String(part)) }
                guard (1...count).contains(value) else { throw .outOfRange(value, count: count) }
                numbers.append(value)
            }
            let low = numbers[0]
            let high = numbers.last ?? low
            guard low <= high else { throw .reversed(low, high) }
            for row in low...high where seen.insert(row).inserted { rows.append(row) }
        }
        return rows
    }
}
