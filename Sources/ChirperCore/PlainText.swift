@_spi(_Unicode) import Swift

/// Text helpers in plain Swift for the paths every page and row goes through: Foundation's `String` methods
/// (`trimmingCharacters(in:)`, `replacingOccurrences(of:with:)`) bridge through `NSString` on Linux, which
/// made them a large share of a search's CPU time.
///
/// They are written on `String` and `Substring`, not on `StringProtocol`: a generic extension called from
/// another module runs unspecialised, and building `Slice<Self.UnicodeScalarView>` there made the runtime
/// look up types by their mangled names and search the conformance records at every start.
extension String {
    /// Without the spaces and tabs at either end, as `trimmingCharacters(in: .whitespaces)` on Linux (Unicode's
    /// space separators, the tab and U+200B ZERO WIDTH SPACE, CoreFoundation's set; line breaks stay).
    public var trimmingSpaces: String { self[...].trimmingSpaces }
}

extension String {
    /// Lower case and without accents, for matching what was typed: "Pīpīwharauroa" and "pipiwharauroa",
    /// "Straße" and "strasse" are the same. As Foundation's `folding(options: [.caseInsensitive,
    /// .diacriticInsensitive])`, which FoundationEssentials does not have: the canonical
    /// decomposition (NFD, the standard library's own `_nfd`) without its combining marks ("é" is "e" and
    /// U+0301), then upper and lower case, which folds "ß" to "ss" and "ﬁ" to "fi" as case folding does.
    public var foldingCaseAndAccents: String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: _nfd.filter { $0.properties.canonicalCombiningClass == .notReordered })
        return String(scalars).uppercased().lowercased()
    }

    /// Exactly `length` characters: cut, or padded with spaces, as Foundation's `padding(toLength:withPad:
    /// startingAt:)` with a space.
    public func padded(toLength length: Int) -> String {
        count >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - count)
    }
}

extension Substring {
    /// Without the spaces and tabs at either end (see `String.trimmingSpaces`).
    public var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isSpaceOrTab }),
            let last = scalars.lastIndex(where: { !$0.isSpaceOrTab })
        else { return "" }
        return String(Substring(scalars[first...last]))
    }
}

extension Unicode.Scalar {
    /// The tab, U+200B and the space separators (general category Zs, Unicode 15), listed rather than looked
    /// up in the Unicode tables: the list is short and has not changed since Unicode 6.3 moved U+180E out.
    fileprivate var isSpaceOrTab: Bool {
        switch value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}
