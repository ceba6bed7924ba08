import ChirperCore
import Testing

@testable import ChirperREPL

private let item = PlayItem(label: "XC1", location: .remote("https://example.org/1"))

private func ended(_ ticket: UInt64) -> PlaybackState {
    .idle(PlaybackEnding(item: item, ticket: PlaybackTicket(ticket), position: 1, reason: .finished))
}

private func playing(_ ticket: UInt64) -> PlaybackState {
    .playing(PlaybackProgress(item: item, ticket: PlaybackTicket(ticket), position: 0, duration: 10))
}

/// Runs every line the gate lets through, as the REPL does; returns them and the last action.
private func runnable(_ gate: inout LineGateMachine) -> (lines: [String], then: LineGateMachine.Action) {
    var lines: [String] = []
    while true {
        let action = gate.next()
        guard case .run(let line) = action else { return (lines, action) }
        lines.append(line)
    }
}

@Suite("Which typed line runs when")
struct LineGateTests {
    @Test("lines run in order; end of input quits once they ran")
    func inOrder() {
        var gate = LineGateMachine()
        gate.handle(.typed("search wren"))
        gate.handle(.typed("list"))
        #expect(runnable(&gate) == (["search wren", "list"], .nothing))
        gate.handle(.inputEnded)
        #expect(gate.next() == .quit)
    }

    @Test("a script's wait holds the lines until the awaited request ends, not an older one's late end")
    func waitForTheAwaitedRequest() {
        var gate = LineGateMachine()
        gate.handle(.typed("wait"))
        gate.handle(.typed("info 1"))
        gate.handle(.inputEnded)
        #expect(gate.next() == .run("wait"))
        gate.handle(.hold(.playbackEnds(PlaybackTicket(2))))
        #expect(gate.next() == .nothing, "held")
        gate.handle(.playbackChanged(ended(1), queuePlaying: false))
        #expect(gate.next() == .nothing, "the end of the request before it")
        gate.handle(.playbackChanged(playing(2), queuePlaying: false))
        #expect(gate.next() == .nothing)
        gate.handle(.playbackChanged(ended(2), queuePlaying: false))
        #expect(runnable(&gate) == (["info 1"], .quit))
    }

    @Test("a search holds a script until the list settles; a queue's wait until the queue stops playing")
    func listAndQueue() {
        var gate = LineGateMachine()
        gate.handle(.typed("next"))
        gate.handle(.hold(.listSettles))
        gate.handle(.listChanged(busy: true))
        #expect(gate.next() == .nothing)
        gate.handle(.listChanged(busy: false))
        #expect(gate.next() == .run("next"))
        gate.handle(.hold(.queueEnds))
        gate.handle(.playbackChanged(ended(3), queuePlaying: true))
        #expect(gate.blocker == .queueEnds, "the queue goes on to its next item")
        gate.handle(.playbackChanged(ended(4), queuePlaying: false))
        #expect(gate.blocker == nil)
    }

    @Test("sono and save hold a script until they are done; each release only its own hold; Ctrl-C ends a wait")
    func ownReleases() {
        var gate = LineGateMachine()
        gate.handle(.hold(.sonogram))
        gate.handle(.savingDone)
        #expect(gate.blocker == .sonogram)
        gate.handle(.sonogramDone)
        #expect(gate.blocker == nil)
        gate.handle(.hold(.saving))
        gate.handle(.sonogramDone)
        #expect(gate.blocker == .saving)
        gate.handle(.savingDone)
        gate.handle(.hold(.playbackEnds(PlaybackTicket(9))))
        gate.handle(.playbackStopped)
        #expect(gate.blocker == nil)
    }
}
