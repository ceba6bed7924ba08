import ChirperCatalog
import ChirperCore

@testable import ChirperREPL

/// The query of the scenarios' `search wren`.
let wrenQuery: SearchQuery = {
    guard case .search(let query) = try? CommandParser.parse("search wren") else { fatalError("search wren parses") }
    return query
}()

/// The fixture catalog as one loaded page, the answer to `search wren`.
let listed = ListState.populated(
    Listing(
        query: wrenQuery,
        page: Page(totalRecordings: 3, totalSpecies: 3, page: 1, numPages: 1, recordings: Fixture.all)))

/// A session on `presenter` that searched and shows the fixture rows (the actions of getting there are dropped),
/// on a terminal that answered the graphics query with `terminal` (by default, no pixel protocol).
func listedSession(
    _ presenter: Presenter, terminal: TerminalGraphicsSupport = TerminalGraphicsSupport(answered: true)
) -> SessionMachine {
    var machine = SessionMachine(
        .init(
            interactive: presenter.style != .script, presenter: presenter, saveDirectory: "/saves",
            homeDirectory: "/home/birder", terminal: terminal))
    _ = machine.handle(.typed("search wren", columns: presenter.width))
    _ = machine.handle(.answered(.searched(.accepted)))
    _ = machine.handle(.list(listed))
    return machine
}
