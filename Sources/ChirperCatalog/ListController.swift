import ChirperCore

/// What the list controller reports: every state change once, and the lines for refused commands.
public enum ListUpdate: Sendable, Hashable {
    case state(ListState)
    case refused(String)
}

/// Runs the list store: feeds it events, performs the effects it returns (fetching pages from a source,
/// cancelling superseded fetches) and publishes each state change once. The store decides; this only acts.
public actor ListController {
    private var store = ListStore()
    private let source: any RecordingSource
    private let perPage: Int
    private var tasks: [FetchID: Task<Void, Never>] = [:]
    private let continuation: AsyncStream<ListUpdate>.Continuation
    /// Every state change and refusal, in order. One consumer.
    public nonisolated let updates: AsyncStream<ListUpdate>

    public init(source: any RecordingSource, perPage: Int? = nil) {
        self.source = source
        self.perPage = perPage ?? source.defaultPerPage
        (updates, continuation) = AsyncStream.makeStream(of: ListUpdate.self)
    }

    deinit {
        continuation.finish()
        for task in tasks.values { task.cancel() }
    }

    public var state: ListState { store.state }

    public func search(_ query: SearchQuery) {
        send(.searchSubmitted(query))
    }

    public func nextPage() {
        send(.nextPageRequested)
    }

    /// Waits until no fetch is running (for scripts that read the list after a search).
    public func settled() async {
        while let task = tasks.values.first {
            await task.value
        }
    }

    private func send(_ event: ListEvent) {
        let before = store.state
        let effects = store.handle(event)
        if store.state != before { continuation.yield(.state(store.state)) }
        for effect in effects { run(effect) }
    }

    private func run(_ effect: ListEffect) {
        switch effect {
        case .fetch(let id, let query, let page):
            let source = self.source
            let perPage = self.perPage
            tasks[id] = Task {
                let result: Result<Page, ListError>
                do throws(ListError) {
                    result = .success(
                        try await source.page(query: query, page: page, perPage: perPage) { notice in
                            Task { await self.retryScheduled(id, notice) }
                        })
                } catch {
                    result = .failure(error)
                }
                self.finished(id, result)
            }
        case .cancel(let id):
            tasks.removeValue(forKey: id)?.cancel()
        case .refuse(let line):
            continuation.yield(.refused(line))
        }
    }

    private func retryScheduled(_ id: FetchID, _ notice: RetryNotice) {
        send(.retryScheduled(id, notice))
    }

    private func finished(_ id: FetchID, _ result: Result<Page, ListError>) {
        tasks.removeValue(forKey: id)
        send(.pageLoaded(id, result))
    }
}
