/// The command line's words as chirper-play reads them, for the session's launch and for batch identify alike:
/// paths, and options `--name` whose value is joined to them (`--out=tables`) or is the next word; everything
/// after `--` is a path, even a word that starts with dashes.
struct ArgumentWords {
    enum Word: Equatable {
        case path(String)
        /// `--name`, and its value when joined with `=`.
        case option(name: String, joined: String?)
    }

    private let arguments: [String]
    private var index = 0
    private var pathsOnly = false
    /// Put before each error's text: `identify: ` for batch mode.
    private let context: String
    /// Whether `-` alone is a path (standard input's name, or a file called so).
    private let dashIsPath: Bool
    /// Said after a missing value: how the command is used.
    private let usage: String?

    init(_ arguments: [String], context: String = "", dashIsPath: Bool = false, usage: String? = nil) {
        self.arguments = arguments
        self.context = context
        self.dashIsPath = dashIsPath
        self.usage = usage
    }

    /// The next word; nil after the last.
    mutating func next() throws(LaunchError) -> Word? {
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if pathsOnly { return .path(argument) }
            if argument == "--" {
                pathsOnly = true
                continue
            }
            if !argument.hasPrefix("-") || (dashIsPath && argument == "-") { return .path(argument) }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw LaunchError(
                    "\(context)\(context.isEmpty ? "U" : "u")nexpected argument '\(argument)'; a path that starts"
                        + " with - goes after --")
            }
            let name = argument.dropFirst(2)
            guard let equals = name.firstIndex(of: "=") else { return .option(name: String(name), joined: nil) }
            return .option(name: String(name[..<equals]), joined: String(name[name.index(after: equals)...]))
        }
        return nil
    }

    /// The value of the option just read: `joined`, else the next word, which must not be another option.
    mutating func value(joined: String?, for label: String) throws(LaunchError) -> String {
        if let joined { return joined }
        guard index < arguments.count, !arguments[index].hasPrefix("--") else {
            throw LaunchError(
                context.isEmpty
                    ? "Missing value for '\(label)'"
                    : "\(context)\(label) needs a value" + (usage.map { "; usage: \($0)" } ?? ""))
        }
        index += 1
        return arguments[index - 1]
    }
}
