import ChirperCore
import ChirperSystem
import ChirperTestSupport
import NIOConcurrencyHelpers
import Testing

@testable import ChirperCatalog

@Suite("The list controller runs the store against a real source")
struct ListControllerTests {
    @Test("search then next-page appends pages from the demo catalog until the end")
    func pagesThroughDemo() async throws {
        let controller = ListController(source: try Demo.catalog(), perPage: 10)
        let updates = controller.updates
        await controller.search(try SearchQuery.parse("en:synthetic"))
        #expect(
            await updates.next()
                == .loading(query: try SearchQuery.parse("en:synthetic"), previous: nil, retry: nil))
        guard case .paging(let first, .available(page: 2)) = await updates.next() else {
            Issue.record("expected page 1 with more to come")
            return
        }
        #expect(first.rows.count == 10)
        await controller.nextPage()
        _ = await updates.next()  // paging, loading page 2
        guard case .paging(let second, .available(page: 3)) = await updates.next() else {
            Issue.record("expected page 2 with more to come")
            return
        }
        #expect(second.rows.count == 20)
        await controller.nextPage()
        _ = await updates.next()
        guard case .populated(let all) = await updates.next() else {
            Issue.record("expected the whole list")
            return
        }
        #expect(all.rows.count == 30)
        let refusal = await controller.nextPage()
        #expect(refusal?.contains("no more pages") == true)
    }

    @Test("a failing next page against the loopback server keeps the rows, and a retry succeeds")
    func failedNextPageRetried() async throws {
        let attempts = NIOLockedValueBox(0)
        try await withClient(handler: { request in
            let page = Int(request.query["page"] ?? "") ?? 1
            if page == 2,
                attempts.withLockedValue({
                    $0 += 1; return $0
                }) == 1
            {
                return .text("oops", status: 500)
            }
            return .json(pageJSON(page: page, numPages: 2, first: page * 100, count: 50))
        }) { client, _, _ in
            let controller = ListController(source: client)
            await controller.search(try SearchQuery.parse("wren"))
            await controller.settled()
            await controller.nextPage()
            await controller.settled()
            guard case .paging(let listing, .failed(page: 2, let error)) = await controller.state else {
                Issue.record("expected a failed page 2, got \(await controller.state)")
                return
            }
            #expect(listing.rows.count == 50)
            #expect(error.message.contains("HTTP 500"))
            await controller.nextPage()
            await controller.settled()
            #expect(await controller.state.rows.count == 100)
        }
    }
}
