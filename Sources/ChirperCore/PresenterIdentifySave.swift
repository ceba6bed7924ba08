/// `identify save`: where the selection table went.
extension Presenter {
    public func selectionsWritten(_ path: String, selections: Int) -> String {
        isScript
            ? "identify: saved=\(quote(path)) selections=\(selections)"
            : dim("BirdNET selection table (\(selections) selections) written to \(clean(path)) for Raven")
    }
}
