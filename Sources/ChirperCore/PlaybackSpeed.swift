/// How fast a recording plays, and whether its pitch moves with the speed.
public struct PlaybackSpeed: Sendable, Hashable, CustomStringConvertible {
    /// `tape` (the default, as birders and bat workers slow recordings): pitch moves with speed, 0.5 is an
    /// octave lower. `keep`: pitch kept (time-stretch).
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        case tape, keep
    }

    /// The slowest and fastest factors (0.1 is bat "time expansion").
    public static let range: ClosedRange<Double> = 0.1...2.0
    public static let normal = PlaybackSpeed(factor: 1, mode: .tape)

    /// Recording seconds per second of playback.
    public var factor: Double
    public var mode: Mode

    public init(factor: Double, mode: Mode) {
        self.factor = factor
        self.mode = mode
    }

    /// Whether the audio passes unchanged.
    public var isNormal: Bool { factor == 1 }

    /// `speed=0.5` or `speed=0.5 keep`, as the status line shows it.
    public var description: String {
        let shown = (factor * 1000).rounded() / 1000
        let text = shown == shown.rounded() ? String(Int(shown)) : String(shown)
        return mode == .keep ? "\(text) keep" : text
    }

    /// Parses the arguments of `speed <factor> [tape|keep]`.
    public static func parse(_ arguments: [String]) -> Result<PlaybackSpeed, PlaybackSpeedError> {
        guard let first = arguments.first else { return .failure(.missing) }
        guard arguments.count <= 2 else { return .failure(.tooMany) }
        var mode = Mode.tape
        if arguments.count == 2 {
            guard let parsed = Mode(rawValue: arguments[1].lowercased()) else {
                return .failure(.unknownMode(arguments[1]))
            }
            mode = parsed
        }
        let digits = first.allSatisfy { ("0"..."9").contains($0) || $0 == "." }
        guard digits, first.count <= 8, let factor = Double(first), factor.isFinite else {
            return .failure(.unreadable(first))
        }
        guard range.contains(factor) else { return .failure(.outOfRange(factor)) }
        return .success(PlaybackSpeed(factor: factor, mode: mode))
    }
}

/// Why `speed` arguments cannot be used: one line each, saying what to type.
public enum PlaybackSpeedError: Error, Sendable, Hashable {
    case missing, tooMany
    case unreadable(String)
    case outOfRange(Double)
    case unknownMode(String)

    public var message: String {
        switch self {
        case .missing: "speed needs a factor from 0.1 to 2.0, e.g. 'speed 0.5' or 'speed 0.5 keep'"
        case .tooMany: "speed takes a factor and optionally tape or keep, e.g. 'speed 0.25 tape'"
        case .unreadable(let text): "'\(text.prefix(20))' is not a speed: give a number from 0.1 to 2.0"
        case .outOfRange(let factor): "speed \(factor) is out of range: give a number from 0.1 to 2.0"
        case .unknownMode(let text): "'\(text.prefix(20))' is not a speed mode: use tape (pitch moves) or keep"
        }
    }
}
