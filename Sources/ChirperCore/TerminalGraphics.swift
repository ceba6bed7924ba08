import FoundationEssentials

/// How `sono` draws: real pixels with a terminal graphics protocol, or text half-blocks.
public enum GraphicsMode: String, Sendable, Hashable, CaseIterable {
    /// Ask the terminal at start-up and use the best it has.
    case auto
    /// The kitty graphics protocol (kitty, WezTerm, Ghostty, Konsole).
    case kitty
    /// DEC sixel (foot, xterm -ti vt340, mlterm, WezTerm, Windows Terminal).
    case sixel
    /// Half-block characters (every terminal).
    case blocks
}

/// A pixel protocol a terminal speaks.
public enum PixelProtocol: String, Sendable, Hashable {
    case kitty
    case sixel
}

/// Where pictures are drawn in real pixels: the protocol, and the size of a character cell in pixels.
public struct PixelCanvas: Sendable, Hashable {
    public var pixelProtocol: PixelProtocol
    public var cellWidth: Int
    public var cellHeight: Int

    public init(_ pixelProtocol: PixelProtocol, cellWidth: Int, cellHeight: Int) {
        self.pixelProtocol = pixelProtocol
        self.cellWidth = max(1, cellWidth)
        self.cellHeight = max(1, cellHeight)
    }
}

/// What the terminal said it can draw, and the size of its character cells in pixels.
public struct TerminalGraphicsSupport: Sendable, Hashable {
    public var kitty: Bool
    public var sixel: Bool
    /// Pixels of one character cell, when the terminal told them.
    public var cellWidth: Int?
    public var cellHeight: Int?
    /// The terminal answered the query at all (a device attributes reply came back in time).
    public var answered: Bool

    public init(
        kitty: Bool = false, sixel: Bool = false, cellWidth: Int? = nil, cellHeight: Int? = nil, answered: Bool = false
    ) {
        self.kitty = kitty
        self.sixel = sixel
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.answered = answered
    }

    /// A terminal that was not asked (or a pipe): half-blocks only.
    public static let none = TerminalGraphicsSupport()

    /// The queries, in one write: kitty's graphics query (a 1×1 image it answers OK or an error for), the cell
    /// size report (`CSI 16 t`), then primary device attributes, which every terminal answers last, so its
    /// reply ends the wait.
    public static let query = "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[16t\u{1B}[c"

    /// Reads the replies to `query` from what the terminal sent back (possibly with typed keys mixed in).
    /// `complete` once the device attributes reply arrived.
    public static func parse(_ bytes: [UInt8]) -> (support: TerminalGraphicsSupport, complete: Bool) {
        var support = TerminalGraphicsSupport()
        let text = String(decoding: bytes, as: UTF8.self)
        // Kitty: ESC _ G i=31 ; OK ESC \
        if let range = text.firstRange(of: "\u{1B}_Gi=31;") {
            support.kitty = text[range.upperBound...].hasPrefix("OK")
        }
        // Cell size: ESC [ 6 ; height ; width t
        if let range = text.firstRange(of: "\u{1B}[6;") {
            let rest = text[range.upperBound...]
            if let end = rest.firstIndex(of: "t") {
                let numbers = rest[..<end].split(separator: ";").compactMap { Int($0) }
                if numbers.count == 2, (4...200).contains(numbers[0]), (2...100).contains(numbers[1]) {
                    support.cellHeight = numbers[0]
                    support.cellWidth = numbers[1]
                }
            }
        }
        // Primary device attributes: ESC [ ? 6x ; 1 ; 4 ; … c; 4 means sixel graphics.
        guard let range = text.firstRange(of: "\u{1B}[?") else { return (support, false) }
        let rest = text[range.upperBound...]
        guard let end = rest.firstIndex(of: "c") else { return (support, false) }
        let attributes = rest[..<end].split(separator: ";").compactMap { Int($0) }
        support.sixel = attributes.dropFirst().contains(4)
        support.answered = true
        return (support, true)
    }

    /// The protocol `mode` means on this terminal (nil: half-blocks), and a line to say once when the mode
    /// asked for cannot be had.
    public func resolve(_ mode: GraphicsMode) -> (PixelProtocol?, notice: String?) {
        switch mode {
        case .blocks:
            return (nil, nil)
        case .kitty:
            return (
                .kitty,
                kitty || !answered
                    ? nil : "the terminal did not answer the kitty graphics query; drawing kitty graphics anyway"
            )
        case .sixel:
            return (
                .sixel, sixel || !answered ? nil : "the terminal does not report sixel graphics; drawing sixels anyway"
            )
        case .auto:
            if kitty { return (.kitty, nil) }
            if sixel { return (.sixel, nil) }
            return (
                nil,
                answered
                    ? nil
                    : "the terminal did not answer the graphics query within 100 ms; sono draws half-blocks (graphics kitty|sixel to force)"
            )
        }
    }
}
