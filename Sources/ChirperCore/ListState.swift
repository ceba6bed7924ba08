/// What went wrong loading a page, as one line the user can act on.
public struct ListError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// 401/403: the key is missing or wrong.
        case unauthorized
        /// 400: the server rejected the query.
        case badRequest
        /// 429/503 after the retries ran out.
        case rateLimited
        /// Any other non-200 status.
        case server
        /// Could not connect, the connection dropped, or a redirect went wrong.
        case network
        /// No complete reply in time.
        case timeout
        /// The reply was not a recordings page.
        case badReply
        /// The local catalogue could not be read.
        case catalog
        /// The user stopped it (Ctrl-C) before it came.
        case stopped
    }

    public var kind: Kind
    /// What happened and what to do, one line, no secrets.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// A page the user stopped (Ctrl-C) before it came.
    public static let stopped = ListError(.stopped, "stopped before it came; search again to list it")
}

/// Shown while a request waits to be retried (after a 429 or 503).
public struct RetryNotice: Sendable, Hashable {
    /// The retry about to be made, from 1.
    public var attempt: Int
    public var maxAttempts: Int
    /// Whole seconds until it is made.
    public var waitSeconds: Int
    /// Why, e.g. "xeno-canto is rate limiting (HTTP 429)".
    public var reason: String

    public init(attempt: Int, maxAttempts: Int, waitSeconds: Int, reason: String) {
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.waitSeconds = waitSeconds
        self.reason = reason
    }
}

/// The rows of a listing, numbered across pages. Stored page by page, so that appending a page never copies
/// the rows before it, even while an older state (held by whoever rendered it) still shares them; each page
/// packed (`PackedRows`), so that a long list holds its texts once, not a `Recording` per row.
public struct RowList: RandomAccessCollection, Sendable, Hashable {
    private var pages: [PackedRows] = []
    /// Index of each page's first row.
    private var starts: [Int] = []
    public private(set) var count = 0

    public init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> Recording {
        precondition(position >= 0 && position < count, "row index out of range")
        // The last page whose first row is at or before `position`.
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return pages[low][position - starts[low]]
    }

    mutating func append(page rows: [Recording]) {
        var from = 0
        while from < rows.count {
            let part = PackedRows(rows[from..<Swift.min(rows.count, from + PackedRows.capacity)])
            starts.append(count)
            pages.append(part)
            count += part.count
            from += part.count
        }
    }
}

/// The rows of one search, gathered over the pages loaded so far.
public struct Listing: Sendable, Hashable {
    public var query: SearchQuery
    public private(set) var rows = RowList()
    /// The last page loaded.
    public var pagesLoaded: Int
    /// `numPages` as the server last said it.
    public var numPages: Int
    public var totalRecordings: Int
    /// The files of one's own the last page passed over (unreadable, not audio chirper-play reads).
    public private(set) var skipped: [SkippedFile] = []
    /// The keys of the last page's rows, to skip rows that moved across a page boundary.
    private var lastPageIDs: Set<RowKey> = []

    public init(query: SearchQuery, page: Page) {
        self.query = query
        self.pagesLoaded = 0
        self.numPages = 0
        self.totalRecordings = 0
        append(page)
    }

    /// What tells rows apart: the catalogue's id, or for files of one's own the path (recorders give every card
    /// the same names).
    enum RowKey: Hashable, Sendable {
        case id(String)
        case file(path: String)
    }

    static func key(_ recording: Recording) -> RowKey {
        recording.ownFile.map { .file(path: $0.path) } ?? .id(recording.id)
    }

    /// A page with no rows passed over these files.
    mutating func passedOver(_ files: [SkippedFile]) {
        skipped = files
    }

    /// Adds a page's recordings after the rows already shown, skipping any the previous page listed (pages
    /// shift by a row or two while recordings are uploaded). Costs the size of the page, not of the list.
    mutating func append(_ page: Page) {
        let keys = page.recordings.map(Self.key)
        var seen = lastPageIDs
        seen.reserveCapacity(lastPageIDs.count + keys.count)
        // Most pages repeat no row: then the page's own array is kept, not copied row by row.
        let repeated = keys.indices.filter { !seen.insert(keys[$0]).inserted }
        if repeated.isEmpty {
            rows.append(page: page.recordings)
        } else {
            let dropped = Set(repeated)
            rows.append(page: page.recordings.indices.compactMap { dropped.contains($0) ? nil : page.recordings[$0] })
        }
        skipped = page.skipped
        lastPageIDs = Set(keys)
        pagesLoaded = page.page
        numPages = max(page.numPages, page.page)
        totalRecordings = page.totalRecordings
    }
}

/// The next page of a listing that has more.
public enum NextPage: Sendable, Hashable {
    /// Page `page` can be asked for with `next-page`.
    case available(page: Int)
    /// Page `page` is being fetched; `retry` is set while it waits to retry.
    case loading(page: Int, retry: RetryNotice?)
    /// Fetching page `page` failed; `next-page` tries it again. The rows are kept.
    case failed(page: Int, ListError)

    public var page: Int {
        switch self {
        case .available(let page), .loading(let page, _), .failed(let page, _): return page
        }
    }
}

/// The list store: the one source of truth for what the list shows.
public enum ListState: Sendable, Hashable {
    /// Nothing searched yet. Goes to `loading` on a search.
    case idle
    /// The first page of `query` is being fetched; `previous` is the list shown before (still playable), and
    /// `retry` is set while a request waits to be retried. Goes to `populated`, `paging`, `empty` or `error`.
    case loading(query: SearchQuery, previous: Listing?, retry: RetryNotice?)
    /// Every page of the search is loaded. A new search goes to `loading`.
    case populated(Listing)
    /// No recordings match `query`. A new search goes to `loading`.
    case empty(query: SearchQuery)
    /// The first page of `query` failed; `previous` is the list shown before, kept and still playable.
    /// A new search goes to `loading`.
    case error(query: SearchQuery, ListError, previous: Listing?)
    /// Some pages are loaded and more exist: `next` says whether the next one is available, loading or failed.
    /// Goes to `populated` when a page comes back empty or was the last.
    case paging(Listing, next: NextPage)

    /// The rows the user can refer to by number: the current listing, or the previous one while a new search
    /// is loading or after it failed.
    public var rows: RowList {
        listing?.rows ?? RowList()
    }

    /// The listing whose rows are shown.
    public var listing: Listing? {
        switch self {
        case .idle, .empty: return nil
        case .loading(_, let previous, _), .error(_, _, let previous): return previous
        case .populated(let listing), .paging(let listing, _): return listing
        }
    }
}

/// Inputs to the list store.
public enum ListEvent: Sendable {
    case searchSubmitted(SearchQuery)
    case nextPageRequested
    /// A fetch is waiting to retry.
    case retryScheduled(FetchID, RetryNotice)
    case pageLoaded(FetchID, Result<Page, ListError>)
    /// Ctrl-C while a page loads: its fetch is cancelled, and the rows listed before stay.
    case stopRequested
}

/// Identifies one fetch, so late replies of a superseded search can be recognised and dropped.
public struct FetchID: Sendable, Hashable, CustomStringConvertible {
    public var generation: Int
    public var page: Int

    public init(generation: Int, page: Int) {
        self.generation = generation
        self.page = page
    }

    public var description: String { "search \(generation) page \(page)" }
}

/// Effects the list store's owner must run.
public enum ListEffect: Sendable, Hashable {
    /// Fetch `page` of `query`.
    case fetch(FetchID, query: SearchQuery, page: Int)
    /// Cancel a fetch that is no longer wanted (a new search superseded it).
    case cancel(FetchID)
    /// Tell the user why a command did nothing, in one line; the state is unchanged.
    case refuse(String)
}

/// The pure reducer behind the list: events in, a new state and effects out. No I/O.
public struct ListStore: Sendable {
    public private(set) var state: ListState = .idle {
        didSet { revision &+= 1 }
    }
    /// Changes whenever `state` is set, so an owner can tell a change without keeping the old state.
    public private(set) var revision = 0
    /// Bumped by every search, so replies to older searches are dropped.
    private var generation = 0
    private var inFlight: FetchID?
    /// A search that finds something in the store's source, for the hint that says to search first.
    private let exampleSearch: String

    public init(exampleSearch: String = "en:wren") {
        self.exampleSearch = exampleSearch
    }

    public mutating func handle(_ event: ListEvent) -> [ListEffect] {
        switch event {
        case .searchSubmitted(let query):
            return searchSubmitted(query)
        case .nextPageRequested:
            return nextPageRequested()
        case .retryScheduled(let id, let notice):
            retryScheduled(id, notice)
            return []
        case .pageLoaded(let id, let result):
            return pageLoaded(id, result)
        case .stopRequested:
            return stopRequested()
        }
    }

    private mutating func stopRequested() -> [ListEffect] {
        guard let fetch = inFlight else { return [] }
        switch state {
        case .loading(let query, let previous, _):
            state = .error(query: query, .stopped, previous: previous)
        case .paging(let listing, .loading(let page, _)):
            state = .paging(listing, next: .available(page: page))
        default:
            return []
        }
        inFlight = nil
        return [.cancel(fetch)]
    }

    private mutating func searchSubmitted(_ query: SearchQuery) -> [ListEffect] {
        var effects: [ListEffect] = []
        if let old = inFlight { effects.append(.cancel(old)) }
        generation += 1
        let id = FetchID(generation: generation, page: 1)
        inFlight = id
        // The list on screen stays usable while the new one loads.
        let previous: Listing?
        if case .loading(_, let earlier, _) = state { previous = earlier } else { previous = state.listing }
        state = .loading(query: query, previous: previous, retry: nil)
        effects.append(.fetch(id, query: query, page: 1))
        return effects
    }

    private mutating func nextPageRequested() -> [ListEffect] {
        switch state {
        case .idle:
            return [.refuse("nothing to page yet: \(SearchQuery.searchFirst(example: exampleSearch))")]
        case .loading(let query, _, _):
            return [.refuse("the first page of \(query.text) is still loading")]
        case .empty(let query):
            return [.refuse("no recordings match \(query.text), so there is no next page; try another search")]
        case .error(let query, _, _):
            return [.refuse("the search \(query.text) failed; search again to retry")]
        case .populated(let listing):
            return [.refuse("no more pages: all \(listing.rows.count) recordings of \(listing.query.text) are listed")]
        case .paging(let listing, .loading(let page, _)):
            return [.refuse("page \(page) of \(listing.query.text) is already loading")]
        case .paging(let listing, .available(let page)), .paging(let listing, .failed(let page, _)):
            let id = FetchID(generation: generation, page: page)
            inFlight = id
            state = .paging(listing, next: .loading(page: page, retry: nil))
            return [.fetch(id, query: listing.query, page: page)]
        }
    }

    private mutating func retryScheduled(_ id: FetchID, _ notice: RetryNotice) {
        guard id == inFlight else { return }
        switch state {
        case .loading(let query, let previous, _):
            state = .loading(query: query, previous: previous, retry: notice)
        case .paging(let listing, .loading(let page, _)):
            state = .paging(listing, next: .loading(page: page, retry: notice))
        default:
            break
        }
    }

    private mutating func pageLoaded(_ id: FetchID, _ result: Result<Page, ListError>) -> [ListEffect] {
        // A reply to anything but the request we are waiting for is late: a superseded search, or a duplicate.
        guard id == inFlight else { return [] }
        inFlight = nil
        switch (state, result) {
        case (.loading(let query, let previous, _), .success(let page)):
            if page.recordings.isEmpty, let scientific = query.scientificReading {
                // Words that are no English name are tried once as the genus or binomial they look like.
                generation += 1
                let next = FetchID(generation: generation, page: 1)
                inFlight = next
                state = .loading(query: scientific, previous: previous, retry: nil)
                return [.fetch(next, query: scientific, page: 1)]
            } else if page.recordings.isEmpty {
                state = .empty(query: query)
            } else {
                state = Self.settle(Listing(query: query, page: page), lastPage: page)
            }
        case (.loading(let query, let previous, _), .failure(let error)):
            state = .error(query: query, error, previous: previous)
        case (.paging(var listing, .loading), .success(let page)):
            // Release the enum's reference first so the rows are appended in place, not copied.
            state = .idle
            guard !page.recordings.isEmpty else {
                // numPages is not trusted: an empty page ends the list (what it passed over is still said).
                listing.passedOver(page.skipped)
                state = .populated(listing)
                return []
            }
            listing.append(page)
            state = Self.settle(listing, lastPage: page)
        case (.paging(let listing, .loading(let page, _)), .failure(let error)):
            state = .paging(listing, next: .failed(page: page, error))
        default:
            break
        }
        return []
    }

    private static func settle(_ listing: Listing, lastPage page: Page) -> ListState {
        page.page < page.numPages ? .paging(listing, next: .available(page: page.page + 1)) : .populated(listing)
    }
}
