/// A labels file that is not BirdNET's: which line, and what is wrong with it.
public struct BirdNETLabelsError: UserFacingError, Hashable {
    /// The line (from 1), or nil for the file as a whole.
    public var line: Int?
    public var problem: String

    public init(line: Int?, problem: String) {
        self.line = line
        self.problem = problem
    }

    public var userMessage: String {
        "the labels file is damaged (" + (line.map { "line \($0): " } ?? "") + problem
            + "); run `make model` to fetch it again"
    }
}

extension BirdNET {
    /// BirdNET's labels file: one class a line, `Scientific name_Common name`, in the model's output order.
    /// - Parameter classes: the model's output width, which the file must match (6,522 for BirdNET 2.4).
    public static func labels(_ text: String, classes: Int? = nil) throws(BirdNETLabelsError) -> [Species] {
        // "\r\n" is one Character to Swift: a file written on Windows splits as well.
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        if lines.last?.isEmpty == true { lines.removeLast() }
        var result: [Species] = []
        result.reserveCapacity(lines.count)
        for (index, line) in lines.enumerated() {
            guard let separator = line.firstIndex(of: "_") else {
                throw BirdNETLabelsError(line: index + 1, problem: "no `_` between the scientific and common names")
            }
            let scientific = line[..<separator].trimmedOfBlanks
            let common = line[line.index(after: separator)...].trimmedOfBlanks
            guard !scientific.isEmpty, !common.isEmpty else {
                throw BirdNETLabelsError(line: index + 1, problem: "an empty name")
            }
            guard !line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw BirdNETLabelsError(line: index + 1, problem: "a control character")
            }
            result.append(Species(scientific: scientific, english: common))
        }
        if let classes, result.count != classes {
            throw BirdNETLabelsError(line: nil, problem: "\(result.count) labels for the model's \(classes) classes")
        }
        return result
    }
}

extension Substring {
    fileprivate var trimmedOfBlanks: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
