#if canImport(Glibc)
    import Glibc
#endif
import CEditLine

/// Where text lands on the screen: libedit's line wrapping, visible widths, clipping and tables.
enum TerminalLayout {
    /// The prompt as it takes room on the screen: what lies between a pair of \u{1} markers is invisible.
    static func visible(_ prompt: String) -> String {
        prompt.split(separator: "\u{1}", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 0 }.map(\.element).joined()
    }

    /// The prompt as written to the screen: the markers go, what they enclose stays.
    static func printable(_ prompt: String) -> String {
        prompt.filter { $0 != "\u{1}" }
    }

    /// The row (0 = the first) the cursor is on after writing `text` from the start of a row, wrapping as
    /// libedit does: a character that does not fit goes to the next row, and a full row moves the cursor down.
    static func row(after text: String, columns: Int) -> Int {
        guard columns > 0 else { return 0 }
        var row = 0
        var column = 0
        for scalar in text.unicodeScalars {
            let width = displayWidth(scalar)
            if width > 1 && column + width > columns {
                row += 1
                column = 0
            }
            column += width
            if column >= columns {
                row += 1
                column = 0
            }
        }
        return row
    }

    /// Columns libedit uses for a character: control characters as ^X, unprintable ones as \U+XXXX.
    static func displayWidth(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || value == 0x7F { return 2 }
        let width = Int(wcwidth(wchar_t(bitPattern: value)))
        if width >= 0 { return width }
        return value > 0xFFFF ? 8 : 7
    }

    /// Rows equal row for row, byte for byte: a `String` comparison of non-ASCII text also checks its
    /// normalisation, which costs most of the time when the live strip's long rows are compared ten times a
    /// second.
    static func same(_ a: [String], _ b: [String]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { same($0.utf8, $1.utf8) }
    }

    /// Equal byte for byte, with `memcmp` where both are contiguous (a native string always is); the same
    /// storage (a row kept and handed over again) is equal at once.
    static func same(_ a: Substring.UTF8View, _ b: Substring.UTF8View) -> Bool {
        guard a.count == b.count else { return false }
        let compared = a.withContiguousStorageIfAvailable { left in
            b.withContiguousStorageIfAvailable { right in
                left.count == 0 || left.baseAddress == right.baseAddress
                    || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
        return (compared ?? nil) ?? a.elementsEqual(b)
    }

    static func same(_ a: String.UTF8View, _ b: String.UTF8View) -> Bool {
        same(Substring(String(a)).utf8, Substring(String(b)).utf8)
    }

    /// `text` cut to `columns` visible columns; SGR and other CSI sequences are kept (they take no room), other
    /// control characters dropped.
    static func clip(_ text: String, columns: Int) -> String {
        // Most rows fit as they are (the status line, the strip's marker): found by a scan, without a copy.
        if fits(text, columns: columns) { return text }
        var output = String.UnicodeScalarView()
        var used = 0
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\u{1B}" {
                guard let next = scalars.next(), next == "[" else { continue }
                var sequence = String.UnicodeScalarView(["\u{1B}", "["])
                while let part = scalars.next() {
                    sequence.append(part)
                    if (0x40...0x7E).contains(part.value) { break }
                }
                output.append(contentsOf: sequence)
                continue
            }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { continue }
            let width = displayWidth(scalar)
            if used + width > columns { break }
            used += width
            output.append(scalar)
        }
        return String(output)
    }

    /// `text` is what `clip` would make of it: CSI sequences and printable scalars only, within `columns`.
    private static func fits(_ text: String, columns: Int) -> Bool {
        var used = 0
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\u{1B}" {
                guard scalars.next() == "[" else { return false }
                while let part = scalars.next(), !(0x40...0x7E).contains(part.value) {}
                continue
            }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return false }
            used += displayWidth(scalar)
            if used > columns { return false }
        }
        return true
    }

    /// `items` in columns down then across, like ls, within `columns`.
    static func table(_ items: [String], columns: Int) -> [String] {
        let widths = items.map { $0.unicodeScalars.reduce(0) { $0 + displayWidth($1) } }
        let cell = (widths.max() ?? 0) + 2
        let across = max(1, columns / max(1, cell))
        let rows = (items.count + across - 1) / across
        return (0..<rows).map { row in
            var line = ""
            for column in 0..<across {
                let index = row + column * rows
                guard index < items.count else { break }
                let isLast = index + rows >= items.count || column == across - 1
                line += items[index] + (isLast ? "" : String(repeating: " ", count: cell - widths[index]))
            }
            return line
        }
    }

    /// `line` broken at spaces into rows of at most `columns` visible columns; every row after the first starts
    /// with `indent` spaces (a hanging indent). A word longer than a row is cut where the row ends.
    static func wrap(_ line: String, columns: Int, indent: Int) -> [String] {
        func width(_ text: some StringProtocol) -> Int { text.unicodeScalars.reduce(0) { $0 + displayWidth($1) } }
        guard columns > indent + 8, width(line) > columns else { return [line] }
        let lead = String(line.prefix { $0 == " " })
        let pad = String(repeating: " ", count: indent)
        var rows: [String] = []
        var row = lead
        var rowIsEmpty = true
        for word in line.dropFirst(lead.count).split(separator: " ", omittingEmptySubsequences: false) {
            var word = Substring(word)
            if !rowIsEmpty && width(row) + 1 + width(word) > columns {
                rows.append(row)
                row = pad
                rowIsEmpty = true
            }
            // A word wider than a whole row is cut across rows.
            while width(row) + (rowIsEmpty ? 0 : 1) + width(word) > columns {
                let room = columns - width(row) - (rowIsEmpty ? 0 : 1)
                let head = clip(String(word), columns: room)
                rows.append(row + (rowIsEmpty ? "" : " ") + head)
                word = word.dropFirst(head.count)
                row = pad
                rowIsEmpty = true
            }
            row += (rowIsEmpty ? "" : " ") + word
            rowIsEmpty = false
        }
        rows.append(row)
        return rows
    }
}
