/// Text helpers in plain Swift for the paths every page and row goes through: Foundation's `String` methods
/// (`trimmingCharacters(in:)`, `replacingOccurrences(of:with:)`) bridge through `NSString` on Linux, which
/// made them 17 % of a search's CPU time (perf, 50 rows).
extension StringProtocol {
    /// Without the spaces and tabs at either end, as `trimmingCharacters(in: .whitespaces)` on Linux (Unicode's
    /// space separators, the tab and U+200B ZERO WIDTH SPACE, CoreFoundation's set; line breaks stay).
    public var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isSpaceOrTab }) else { return "" }
        guard let last = scalars.lastIndex(where: { !$0.isSpaceOrTab }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}

extension Unicode.Scalar {
    fileprivate var isSpaceOrTab: Bool {
        self == "\t" || self == "\u{200B}" || properties.generalCategory == .spaceSeparator
    }
}
