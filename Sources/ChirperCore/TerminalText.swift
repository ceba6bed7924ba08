/// Makes outside text safe to print on a terminal.
public enum TerminalText {
    /// Removes terminal control: escape sequences (CSI, OSC, DCS and the like, whole, so no stray `[31m` is
    /// left), C0 and C1 control characters and DEL, and bidirectional overrides that can reorder a line.
    /// Tabs and line breaks become single spaces, so one value stays on one line.
    public static func sanitize(_ text: String) -> String {
        // Printable ASCII alone (most names, paths and numbers) is kept as it is, without a scalar walk.
        if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return text }
        var output = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending {
                pending = nil
                return scalar
            }
            return scalars.next()
        }
        while let scalar = next() {
            switch scalar.value {
            case 0x1B:
                skipEscape(after: &scalars, pending: &pending)
            case 0x9B:  // C1 CSI
                skipControlSequence(&scalars)
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F:  // C1 OSC, DCS, SOS, PM, APC
                skipString(&scalars)
            case 0x09, 0x0A, 0x0D:
                if output.last != " " { output.append(" ") }
            case 0x00...0x1F, 0x7F, 0x80...0x9F:
                break
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                break
            default:
                output.append(scalar)
            }
        }
        return String(output)
    }

    private static func skipEscape(
        after scalars: inout String.UnicodeScalarView.Iterator,
        pending: inout Unicode.Scalar?
    ) {
        guard let introducer = scalars.next() else { return }
        switch introducer {
        case "[":
            skipControlSequence(&scalars)
        case "]", "P", "X", "^", "_":
            skipString(&scalars)
        case " "..."/":
            // nF escape: intermediates, then one final byte.
            while let scalar = scalars.next() {
                if !(" "..."/").contains(scalar) { break }
            }
        default:
            // A two-character escape (ESC c, ESC 7 …): both dropped, unless the second is not printable
            // ASCII, in which case it is kept for the caller to judge.
            if introducer.value < 0x30 || introducer.value > 0x7E { pending = introducer }
        }
    }

    /// CSI: parameters and intermediates up to a final byte in 0x40–0x7E.
    private static func skipControlSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next() {
            if (0x40...0x7E).contains(scalar.value) { return }
            if !(0x20...0x3F).contains(scalar.value) { return }
        }
    }

    /// OSC/DCS/…: up to BEL or ST (ESC \ or 0x9C).
    private static func skipString(_ scalars: inout String.UnicodeScalarView.Iterator) {
        var sawEscape = false
        while let scalar = scalars.next() {
            if scalar.value == 0x07 || scalar.value == 0x9C { return }
            if sawEscape && scalar == "\\" { return }
            sawEscape = scalar.value == 0x1B
        }
    }
}
