import ChirperCore

/// Where quiz decks come from: a query's pages from the catalogue (the API, paced as every request, or the
/// offline catalogue), or the recordings kept on disk, read offline.
public struct QuizDecks: Sendable {
    /// A deck is at most this many pages of `perPage` (the API's largest page: 500 recordings).
    public static let maxPages = 4
    let source: any RecordingSource
    let perPage: Int
    let savedDirectory: String
    let cacheDirectory: String

    public init(source: any RecordingSource, perPage: Int, savedDirectory: String, cacheDirectory: String) {
        self.source = source
        self.perPage = perPage
        self.savedDirectory = savedDirectory
        self.cacheDirectory = cacheDirectory
    }

    struct DeckError: UserFacingError {
        var userMessage: String
    }

    /// The recordings of `origin`; throws a `UserFacingError` (the page's error, one line) or
    /// `CancellationError`.
    public func recordings(for origin: QuizOrigin) async throws -> [Recording] {
        switch origin {
        case .saved:
            return OfflineCatalog(sidecarsIn: [savedDirectory], name: "the saved recordings").recordings
        case .cached:
            return OfflineCatalog(sidecarsIn: [cacheDirectory], name: "the cached recordings").recordings
        case .query(let query):
            var recordings: [Recording] = []
            var number = 1
            while number <= Self.maxPages {
                try Task.checkCancellation()
                let page: Page
                do {
                    page = try await source.page(query: query, page: number, perPage: perPage) { _ in }
                } catch {
                    throw DeckError(userMessage: "quiz deck: \(error.message)")
                }
                recordings += page.recordings
                guard !page.recordings.isEmpty, number < page.numPages else { break }
                number += 1
            }
            return recordings
        }
    }
}
