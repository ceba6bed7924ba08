import ChirperCore

/// An image over the first rows of the status (the live strip's page in real pixels), as the escape sequences
/// that draw it and take it away. Made once a page by the effect runner; the terminal thread only writes them,
/// with the cursor at the image's top left cell.
public struct StatusPicture: Sendable, Hashable {
    /// The first id: kitty's image ids are shared by every program in a terminal window, so ours start far from
    /// the small numbers others use.
    public static let firstID: UInt32 = 0x4350_0001
    /// Changes when the picture does.
    public var id: UInt32
    /// Status rows it covers, from the first.
    public var lines: Int
    /// The screen column of its left edge.
    public var column: Int
    /// Draws it, the first time.
    public var draw: String
    /// Draws it again (the screen around it was redrawn).
    public var redraw: String
    /// Takes it off the screen; the terminal may keep its pixels for `redraw`.
    public var remove: String
    /// Takes it off the screen and frees what the terminal kept of it.
    public var forget: String

    /// From the escape sequence libchafa made. A kitty image is named `id`, so that it can be placed again
    /// without sending its pixels and deleted (kitty keeps an image over text that is erased); it is sent
    /// quietly (`q=2`: no reply comes back on the input, where it would read as typed keys) and leaves the
    /// cursor where it was (`C=1`). A sixel image is sent whole each time, and goes with the text erased over
    /// it, so it needs no taking away.
    public init(escape: String, protocol: PixelProtocol, id: UInt32, lines: Int, column: Int) {
        self.id = id
        self.lines = lines
        self.column = column
        switch `protocol` {
        case .sixel:
            (draw, redraw, remove, forget) = (escape, escape, "", "")
        case .kitty:
            let start = "\u{1B}_G"
            let end = "\u{1B}\\"
            guard escape.hasPrefix(start) else {
                (draw, redraw, remove, forget) = (escape, escape, "", "")
                return
            }
            // The first command's keys (chafa's: a=T, the format, the size in pixels and in cells).
            let keys = escape.dropFirst(start.count).prefix { $0 != ";" && $0 != "\u{1B}" }
            let cells = keys.split(separator: ",").filter { $0.hasPrefix("c=") || $0.hasPrefix("r=") }
            draw = start + "i=\(id),q=2,C=1," + escape.dropFirst(start.count)
            redraw = start + (["a=p", "i=\(id)", "q=2", "C=1"] + cells.map(String.init)).joined(separator: ",") + end
            remove = start + "a=d,d=i,i=\(id),q=2" + end
            forget = start + "a=d,d=I,i=\(id),q=2" + end
        }
    }
}
