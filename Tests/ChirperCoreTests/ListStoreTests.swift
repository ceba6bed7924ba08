import Testing

@testable import ChirperCore

private func recordings(_ ids: ClosedRange<Int>) -> [Recording] {
    ids.map { Recording(id: String($0), englishName: "Bird \($0)") }
}

private func page(_ number: Int, of pages: Int, ids: ClosedRange<Int>?, total: Int = 30) -> Page {
    Page(totalRecordings: total, totalSpecies: 3, page: number, numPages: pages, recordings: ids.map(recordings) ?? [])
}

private let wren = try! SearchQuery.parse("en:wren")
private let robin = try! SearchQuery.parse("en:robin")

/// A store whose first search, `query`, listed page 1 of `pages` with the recordings `ids`.
private func listed(_ query: SearchQuery, of pages: Int, ids: ClosedRange<Int>) -> ListStore {
    var store = ListStore()
    _ = store.handle(.searchSubmitted(query))
    _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 1), .success(page(1, of: pages, ids: ids))))
    return store
}

@Suite("The list store")
struct ListStoreTests {
    @Test("starts idle, with no rows")
    func startsIdle() {
        let store = ListStore()
        #expect(store.state == .idle)
        #expect(store.state.rows.isEmpty)
    }

    @Test("a search goes to loading and asks for page 1")
    func searchLoads() {
        var store = ListStore()
        let effects = store.handle(.searchSubmitted(wren))
        #expect(store.state == .loading(query: wren, previous: nil, retry: nil))
        #expect(effects == [.fetch(FetchID(generation: 1, page: 1), query: wren, page: 1)])
    }

    @Test("Ctrl-C while a new search loads: its fetch is cancelled, the list before stays, and a late page is dropped")
    func stopWhileLoading() {
        var store = listed(wren, of: 1, ids: 1...5)
        _ = store.handle(.searchSubmitted(robin))
        #expect(store.handle(.stopRequested) == [.cancel(FetchID(generation: 2, page: 1))])
        guard case .error(robin, let stopped, let previous?) = store.state else {
            Issue.record("expected the stopped search with the wren list kept, got \(store.state)")
            return
        }
        #expect(stopped.kind == .stopped)
        #expect(previous.rows.map(\.id) == ["1", "2", "3", "4", "5"])
        _ = store.handle(.pageLoaded(FetchID(generation: 2, page: 1), .success(page(1, of: 1, ids: 20...22))))
        #expect(store.state.rows.map(\.id) == ["1", "2", "3", "4", "5"], "the stopped search's reply comes too late")
        #expect(store.handle(.stopRequested) == [], "nothing loads: nothing to stop")
    }

    @Test("Ctrl-C while the next page loads: the rows stay, and next-page asks for the same page again")
    func stopWhilePaging() {
        var store = listed(wren, of: 3, ids: 1...10)
        _ = store.handle(.nextPageRequested)
        #expect(store.handle(.stopRequested) == [.cancel(FetchID(generation: 1, page: 2))])
        guard case .paging(let listing, .available(page: 2)) = store.state else {
            Issue.record("expected paging with page 2 available again, got \(store.state)")
            return
        }
        #expect(listing.rows.count == 10)
        #expect(store.handle(.nextPageRequested) == [.fetch(FetchID(generation: 1, page: 2), query: wren, page: 2)])
    }

    @Test("a first page that is the only page gives populated")
    func singlePagePopulated() {
        let store = listed(wren, of: 1, ids: 1...5)
        guard case .populated(let listing) = store.state else {
            Issue.record("expected populated, got \(store.state)")
            return
        }
        #expect(listing.rows.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(listing.pagesLoaded == 1)
        #expect(listing.totalRecordings == 30)
    }

    @Test("a first page with more pages gives paging with the next page available")
    func firstPageOfMany() {
        let store = listed(wren, of: 3, ids: 1...10)
        guard case .paging(let listing, .available(page: 2)) = store.state else {
            Issue.record("expected paging next 2, got \(store.state)")
            return
        }
        #expect(listing.rows.count == 10)
    }

    @Test("an empty first page gives empty")
    func emptyFirstPage() {
        var store = ListStore()
        _ = store.handle(.searchSubmitted(wren))
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 1), .success(page(1, of: 0, ids: nil, total: 0))))
        #expect(store.state == .empty(query: wren))
    }

    @Test("untagged words that find no English name are searched once as the binomial they look like")
    func binomialFallback() throws {
        var store = ListStore()
        let typed = try SearchQuery.parse("Prunella modularis cnt:spain")
        _ = store.handle(.searchSubmitted(typed))
        let effects = store.handle(
            .pageLoaded(FetchID(generation: 1, page: 1), .success(page(1, of: 0, ids: nil, total: 0))))
        let scientific = SearchQuery(
            terms: [.init(tag: "sp", value: "prunella modularis"), .init(tag: "cnt", value: "spain")],
            reading: .scientificName(words: "Prunella modularis"))
        #expect(effects == [.fetch(FetchID(generation: 2, page: 1), query: scientific, page: 1)])
        #expect(store.state == .loading(query: scientific, previous: nil, retry: nil))
        _ = store.handle(.pageLoaded(FetchID(generation: 2, page: 1), .success(page(1, of: 1, ids: 1...3))))
        guard case .populated(let listing) = store.state else {
            Issue.record("expected populated, got \(store.state)")
            return
        }
        #expect(listing.query == scientific, "the list says what was searched")
    }

    @Test("one word is tried as a genus; a second empty page is the end, with no third try")
    func genusFallbackThenEmpty() throws {
        var store = ListStore()
        _ = store.handle(.searchSubmitted(try SearchQuery.parse("prunella")))
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 1), .success(page(1, of: 0, ids: nil, total: 0))))
        let genus = SearchQuery(
            terms: [.init(tag: "gen", value: "prunella")], reading: .scientificName(words: "prunella"))
        #expect(store.state == .loading(query: genus, previous: nil, retry: nil))
        let late = store.handle(
            .pageLoaded(FetchID(generation: 1, page: 1), .success(page(1, of: 1, ids: 1...2))))
        #expect(
            late.isEmpty && store.state == .loading(query: genus, previous: nil, retry: nil), "a late reply is dropped")
        let effects = store.handle(
            .pageLoaded(FetchID(generation: 2, page: 1), .success(page(1, of: 0, ids: nil, total: 0))))
        #expect(effects.isEmpty)
        #expect(store.state == .empty(query: genus))
    }

    @Test("an English name typed with its tag, or words that are no name, are not read again")
    func noFallbackForTagsOrNonNames() throws {
        for typed in ["en:prunella", "grey heron 2", "common wood pigeon call", "o'brien"] {
            var store = ListStore()
            let query = try SearchQuery.parse(typed)
            _ = store.handle(.searchSubmitted(query))
            let effects = store.handle(
                .pageLoaded(FetchID(generation: 1, page: 1), .success(page(1, of: 0, ids: nil, total: 0))))
            #expect(effects.isEmpty, "\(typed)")
            #expect(store.state == .empty(query: query), "\(typed)")
        }
    }

    @Test("a failed first page gives error and keeps the previous list playable")
    func firstPageFailureKeepsPrevious() {
        var store = listed(wren, of: 1, ids: 1...4)
        _ = store.handle(.searchSubmitted(robin))
        #expect(store.state.rows.count == 4, "the old rows stay usable while the new search loads")
        let failure = ListError(.network, "down")
        _ = store.handle(.pageLoaded(FetchID(generation: 2, page: 1), .failure(failure)))
        guard case .error(let query, let error, let previous) = store.state else {
            Issue.record("expected error, got \(store.state)")
            return
        }
        #expect(query == robin)
        #expect(error == failure)
        #expect(previous?.rows.count == 4)
        #expect(store.state.rows.count == 4)
    }

    @Test("next-page appends the next page's rows after the ones shown")
    func nextPageAppends() {
        var store = listed(wren, of: 3, ids: 1...10)
        let effects = store.handle(.nextPageRequested)
        #expect(effects == [.fetch(FetchID(generation: 1, page: 2), query: wren, page: 2)])
        #expect(store.state.rows.count == 10, "rows stay while the next page loads")
        guard case .paging(_, .loading(page: 2, retry: nil)) = store.state else {
            Issue.record("expected paging loading 2, got \(store.state)")
            return
        }
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 2), .success(page(2, of: 3, ids: 11...20))))
        #expect(store.state.rows.map(\.id) == (1...20).map(String.init))
        guard case .paging(_, .available(page: 3)) = store.state else {
            Issue.record("expected paging next 3, got \(store.state)")
            return
        }
        _ = store.handle(.nextPageRequested)
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 3), .success(page(3, of: 3, ids: 21...30))))
        guard case .populated(let listing) = store.state else {
            Issue.record("expected populated after the last page, got \(store.state)")
            return
        }
        #expect(listing.rows.count == 30)
        #expect(listing.pagesLoaded == 3)
    }

    @Test("an empty page ends paging even when numPages says there are more")
    func emptyPageEndsPaging() {
        var store = listed(wren, of: 9, ids: 1...10)
        _ = store.handle(.nextPageRequested)
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 2), .success(page(2, of: 9, ids: nil))))
        guard case .populated(let listing) = store.state else {
            Issue.record("expected populated, got \(store.state)")
            return
        }
        #expect(listing.rows.count == 10)
        #expect(store.handle(.nextPageRequested).count == 1)
        if case .refuse(let line) = store.handle(.nextPageRequested).first {
            #expect(line.contains("no more pages"))
        } else {
            Issue.record("next-page on a complete list must be refused")
        }
    }

    @Test("a failed next page keeps every row, says what failed, and can be retried")
    func nextPageFailureRetry() {
        var store = listed(wren, of: 3, ids: 1...10)
        _ = store.handle(.nextPageRequested)
        let failure = ListError(.timeout, "xeno-canto did not answer")
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 2), .failure(failure)))
        #expect(store.state.rows.count == 10)
        guard case .paging(_, .failed(page: 2, let error)) = store.state else {
            Issue.record("expected paging failed 2, got \(store.state)")
            return
        }
        #expect(error == failure)
        let retry = store.handle(.nextPageRequested)
        #expect(retry == [.fetch(FetchID(generation: 1, page: 2), query: wren, page: 2)])
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 2), .success(page(2, of: 3, ids: 11...20))))
        #expect(store.state.rows.count == 20)
    }

    @Test("a new search supersedes the old one: its late pages are dropped and its fetch cancelled")
    func newSearchSupersedes() {
        var store = ListStore()
        _ = store.handle(.searchSubmitted(wren))
        let effects = store.handle(.searchSubmitted(robin))
        #expect(
            effects == [
                .cancel(FetchID(generation: 1, page: 1)),
                .fetch(FetchID(generation: 2, page: 1), query: robin, page: 1),
            ])
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 1), .success(page(1, of: 1, ids: 1...3))))
        #expect(store.state == .loading(query: robin, previous: nil, retry: nil), "the late wren page is dropped")
        _ = store.handle(.pageLoaded(FetchID(generation: 2, page: 1), .success(page(1, of: 1, ids: 7...8))))
        #expect(store.state.rows.map(\.id) == ["7", "8"])
    }

    @Test("a late next page of an old search does not touch the new list")
    func lateNextPageDropped() {
        var store = listed(wren, of: 3, ids: 1...10)
        _ = store.handle(.nextPageRequested)
        _ = store.handle(.searchSubmitted(robin))
        _ = store.handle(.pageLoaded(FetchID(generation: 2, page: 1), .success(page(1, of: 1, ids: 50...51))))
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 2), .success(page(2, of: 3, ids: 11...20))))
        #expect(store.state.rows.map(\.id) == ["50", "51"])
    }

    @Test("before any search, next-page says to search first with a search that finds something in the source")
    func nextPageBeforeSearchNamesTheSourcesExample() {
        var store = ListStore(exampleSearch: "cnt:demoland")
        #expect(
            store.handle(.nextPageRequested) == [.refuse("nothing to page yet: search first, e.g. search cnt:demoland")]
        )
        #expect(store.state == .idle)
    }

    @Test("next-page is refused, with a reason, where it makes no sense")
    func nextPageRefusals() {
        var store = ListStore()
        #expect(store.handle(.nextPageRequested) == [.refuse("nothing to page yet: search first, e.g. search en:wren")])
        _ = store.handle(.searchSubmitted(wren))
        guard case .refuse(let loading) = store.handle(.nextPageRequested).first else {
            Issue.record("expected a refusal while loading")
            return
        }
        #expect(loading.contains("still loading"))
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 1), .success(page(1, of: 3, ids: 1...10))))
        _ = store.handle(.nextPageRequested)
        guard case .refuse(let twice) = store.handle(.nextPageRequested).first else {
            Issue.record("expected a refusal for a page already loading")
            return
        }
        #expect(twice.contains("already loading"))
        #expect(store.state.rows.count == 10)
    }

    @Test("a retry notice shows on the loading state and on a loading next page")
    func retryNotices() {
        var store = ListStore()
        _ = store.handle(.searchSubmitted(wren))
        let notice = RetryNotice(attempt: 1, maxAttempts: 3, waitSeconds: 2, reason: "rate limited")
        _ = store.handle(.retryScheduled(FetchID(generation: 1, page: 1), notice))
        #expect(store.state == .loading(query: wren, previous: nil, retry: notice))
        _ = store.handle(.retryScheduled(FetchID(generation: 9, page: 1), notice))
        #expect(store.state == .loading(query: wren, previous: nil, retry: notice), "unknown fetches are ignored")
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 1), .success(page(1, of: 2, ids: 1...2))))
        _ = store.handle(.nextPageRequested)
        _ = store.handle(.retryScheduled(FetchID(generation: 1, page: 2), notice))
        guard case .paging(_, .loading(page: 2, retry: notice)) = store.state else {
            Issue.record("expected the notice on the next page, got \(store.state)")
            return
        }
    }

    @Test("rows already listed are not listed twice when pages shift")
    func duplicatesSkipped() {
        var store = listed(wren, of: 2, ids: 1...10)
        _ = store.handle(.nextPageRequested)
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 2), .success(page(2, of: 2, ids: 9...15))))
        #expect(store.state.rows.map(\.id) == (1...15).map(String.init))
    }

    @Test(
        "files of one's own are told apart by path: two cards' same names are both listed, a file listed again is not, and a file named as an archive id is not mistaken for it"
    )
    func ownFilesKeyedByPath() {
        let header = AudioFileFormats.mp3(frame: nil, at: 0, fileSize: 0)
        let file = { (path: String) in Recording(ownFile: path, header: header, modified: nil) }
        let first = [file("/cards/a/20250612_053000.WAV"), file("/cards/b/20250612_053000.WAV"), Recording(id: "3")]
        var store = ListStore()
        _ = store.handle(.searchSubmitted(wren))
        _ = store.handle(
            .pageLoaded(
                FetchID(generation: 1, page: 1),
                .success(Page(totalRecordings: 6, totalSpecies: 0, page: 1, numPages: 2, recordings: first))))
        _ = store.handle(.nextPageRequested)
        let second = [file("/cards/b/20250612_053000.WAV"), file("/cards/c/3"), Recording(id: "4")]
        _ = store.handle(
            .pageLoaded(
                FetchID(generation: 1, page: 2),
                .success(Page(totalRecordings: 6, totalSpecies: 0, page: 2, numPages: 2, recordings: second))))
        #expect(
            store.state.rows.map { $0.ownFile?.path ?? $0.id } == [
                "/cards/a/20250612_053000.WAV", "/cards/b/20250612_053000.WAV", "3", "/cards/c/3", "4",
            ])
    }

    @Test("a search while a search fails keeps the list from before both")
    func previousSurvivesChains() {
        var store = listed(wren, of: 1, ids: 1...3)
        _ = store.handle(.searchSubmitted(robin))
        _ = store.handle(.searchSubmitted(wren))
        #expect(store.state.rows.count == 3)
    }
}

@Suite("Row lists")
struct RowListTests {
    @Test("rows are numbered across pages of any size, in order")
    func indexing() {
        var list = RowList()
        var expected: [String] = []
        var next = 0
        for size in [3, 1, 0, 7, 2, 5] {
            let page = (0..<size).map { _ in
                next += 1
                return Recording(id: String(next))
            }
            expected += page.map(\.id)
            list.append(page: page)
        }
        #expect(list.count == expected.count)
        #expect(list.map(\.id) == expected)
        #expect((0..<list.count).map { list[$0].id } == expected)
    }

    @Test(
        "every field of every row reads back as the page gave it: lists, each kind of audio, empty, non-ASCII and long texts"
    )
    func packedRowsKeepEverything() {
        let box = Annotation(fields: ["annotation_id": "7", "start_time": "1.5", "sound_type": "song"])
        let long = String(repeating: "très long remark ", count: 5_000)  // 85 KB: offsets past 16 bits
        let rows = [
            Recording(
                id: "254462", genus: "Passerina", species: "amoena", subspecies: "", group: "birds",
                englishName: "Lazuli Bunting", recordist: "Jürgen Müller", country: "United States",
                locality: "Mount Diablo, Contra Costa County, California", latitude: "37.88", longitude: "-121.91",
                altitude: "600", soundType: "song", sex: "male", stage: "adult", method: "field recording",
                pageURL: "https://xeno-canto.org/254462", fileName: "XC254462-Lazuli.mp3",
                licenceURL: "https://creativecommons.org/licenses/by-nc-sa/4.0/", quality: "A", length: "1:09",
                date: "2015-05-10", time: "06:30", uploaded: "2015-06-01", background: ["Turdus migratorius"],
                remarks: long, sampleRate: "44100", device: "Zoom H4n", microphone: "Telinga", animalSeen: "yes",
                playbackUsed: "no", audio: .playable(.remote("https://xeno-canto.org/254462/download")),
                annotations: [box]),
            Recording(id: "DEMO-07", englishName: "鳥 🐦", audio: .playable(.local(path: "/demo/DEMO-07.mp3"))),
            Recording(id: "3", audio: .restricted),
            Recording(id: "4", remarks: "Lazuli Bunting", audio: .refused("the audio address uses ftp:")),
            Recording(id: "254462", genus: "Passerina", annotations: [box, box]),
        ]
        var list = RowList()
        list.append(page: rows)
        #expect(Array(list) == rows)
    }

    @Test("a page larger than one pack is split, and its rows stay in order with every text")
    func packsSplit() {
        // Every text distinct, so that the packs' 16-bit indices are tried at their limit.
        let rows = (0..<(PackedRows.capacity + 501)).map { n in
            Recording(
                id: "\(n)", genus: "g\(n)", species: "s\(n)", subspecies: "u\(n)", group: "r\(n)",
                englishName: "e\(n)", recordist: "c\(n)", country: "k\(n)", locality: "l\(n)", latitude: "a\(n)",
                longitude: "o\(n)", altitude: "t\(n)", soundType: "y\(n)", sex: "x\(n)", stage: "z\(n)",
                method: "m\(n)", pageURL: "p\(n)", fileName: "f\(n)", licenceURL: "i\(n)", quality: "q\(n)",
                length: "n\(n)", date: "d\(n)", time: "h\(n)", uploaded: "v\(n)", remarks: "w\(n)",
                sampleRate: "b\(n)", device: "j\(n)", microphone: "M\(n)", animalSeen: "A\(n)",
                playbackUsed: "B\(n)", audio: .refused("R\(n)"))
        }
        var list = RowList()
        list.append(page: Array(rows.prefix(3)))
        list.append(page: Array(rows.dropFirst(3)))
        #expect(list.count == rows.count)
        #expect(Array(list) == rows)
    }

    @Test("a state kept by a renderer is not changed when the store appends the next page")
    func valueSemantics() {
        var store = listed(wren, of: 2, ids: 1...10)
        let shown = store.state
        let revision = store.revision
        _ = store.handle(.nextPageRequested)
        _ = store.handle(.pageLoaded(FetchID(generation: 1, page: 2), .success(page(2, of: 2, ids: 11...20))))
        #expect(shown.rows.count == 10)
        #expect(store.state.rows.count == 20)
        #expect(store.revision > revision)
    }
}
