import ChirperCore

/// Where search results come from: the xeno-canto API or an offline catalogue. The list store cannot tell
/// them apart.
public protocol RecordingSource: Sendable {
    /// For messages, e.g. "xeno-canto" or "the demo catalog".
    var name: String { get }
    /// The page size used when the user gives none.
    var defaultPerPage: Int { get }
    /// A search that finds recordings here, for the hints that say to search first (`search en:wren` on
    /// xeno-canto finds nothing in the demo catalog).
    var exampleSearch: String { get }
    /// Fetches one page of `query`. `onRetry` is called before each wait for a retry.
    func page(
        query: SearchQuery,
        page: Int,
        perPage: Int,
        onRetry: @escaping @Sendable (RetryNotice) -> Void
    ) async throws(ListError) -> Page
}
