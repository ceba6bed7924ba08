import ChirperCore
import ChirperSystem

/// Runs the list store: feeds it events, performs the effects it returns (fetching pages from a source,
/// cancelling superseded fetches) and publishes each state change once. The store decides; this only acts.
public actor ListController {
    private var store: ListStore
    private let source: any RecordingSource
    private let perPage: Int
    private var tasks: [FetchID: Task<Void, Never>] = [:]
    /// Every state change, once and in order. One consumer (a receiver, or a channel it is routed into).
    public nonisolated let updates = Channel(of: ListState.self, failure: Never.self)

    public init(source: any RecordingSource, perPage: Int? = nil) {
        self.source = source
        self.store = ListStore(exampleSearch: source.exampleSearch)
        self.perPage = perPage ?? source.defaultPerPage
    }

    deinit {
        updates.finish()
        for task in tasks.values { task.cancel() }
    }

    public var state: ListState { store.state }

    /// Starts a search; returns why not, when the list refuses it.
    @discardableResult
    public func search(_ query: SearchQuery) -> String? {
        send(.searchSubmitted(query)).first
    }

    /// Asks for the next page; returns why not, when it makes no sense now.
    @discardableResult
    public func nextPage() -> String? {
        send(.nextPageRequested).first
    }

    /// Stops the page being fetched (Ctrl-C); the rows listed before it stay.
    public func stop() {
        expectNoRefusal(send(.stopRequested))
    }

    /// Waits until no fetch is running (for scripts that read the list after a search).
    public func settled() async {
        while let task = tasks.values.first {
            await task.value
        }
    }

    /// Feeds an event to the store, publishes the new state if it changed, runs the effects, and returns the
    /// refusals (they answer the caller, not the list).
    private func send(_ event: ListEvent) -> [String] {
        // Compared by revision, not by value: holding the old state here would make the store's in-place
        // append copy every row.
        let before = store.revision
        let effects = store.handle(event)
        if store.revision != before { updates.post(store.state) }
        var refusals: [String] = []
        for effect in effects {
            if case .refuse(let line) = effect { refusals.append(line) } else { run(effect) }
        }
        return refusals
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
        case .refuse:
            break  // returned to the caller by `send`
        }
    }

    private func retryScheduled(_ id: FetchID, _ notice: RetryNotice) {
        expectNoRefusal(send(.retryScheduled(id, notice)))
    }

    private func finished(_ id: FetchID, _ result: Result<Page, ListError>) {
        tasks.removeValue(forKey: id)
        expectNoRefusal(send(.pageLoaded(id, result)))
    }

    /// What the list's own fetches report, and a stop, are never refused: a stale report or a stop with nothing
    /// loading is ignored by the store. A refusal here would have no one to answer, so it is a defect of the store.
    private func expectNoRefusal(_ refusals: [String]) {
        assert(refusals.isEmpty, "the list store refused its own fetch's report or a stop: \(refusals)")
    }
}
