import ChirperCatalog
import ChirperCore
import Testing

@testable import ChirperREPL

private let script = Presenter(style: .script, width: 100, sourceName: "the test catalog")

private let wrenSpecies = Species(scientific: "Troglodytes troglodytes", english: "Eurasian Wren")
private let robinSpecies = Species(scientific: "Erithacus rubecula", english: "European Robin")

/// Two segments: the wren in both, a robin in the second.
private let heard = Identification(
    model: "BirdNET 2.4",
    segments: [
        SegmentDetections(start: 0, end: 3, detections: [Detection(species: wrenSpecies, confidence: 0.91)]),
        SegmentDetections(
            start: 3, end: 6,
            detections: [
                Detection(species: wrenSpecies, confidence: 0.97), Detection(species: robinSpecies, confidence: 0.42),
            ]),
    ])

private func identifyActions(_ actions: [SessionMachine.Action]) -> [SessionMachine.Action] {
    actions.filter {
        switch $0 {
        case .identify, .cancelIdentify: true
        default: false
        }
    }
}

@Suite("identify in the session: who is singing, off the event loop")
struct IdentifySessionTests {
    @Test(
        "identify 1 asks for the whole recording, holds the script, and prints each segment, each species and the end")
    func identifiesARow() throws {
        var machine = listedSession(script)
        let asked = machine.handle(.typed("identify 1 --min-confidence 0.3", columns: 100))
        let task = SessionMachine.IdentifyTask(
            recording: Fixture.wren, item: Fixture.wren.playItem!, span: nil,
            options: IdentifyOptions(minConfidence: 0.3))
        #expect(identifyActions(asked) == [.identify(id: 1, task)])
        #expect(machine.handle(.typed("list", columns: 100)) == [], "the next line waits for the answer")
        let shown = machine.handle(.identified(id: 1, .success(heard)))
        let lines: [String] = shown.flatMap { action -> [String] in
            if case .print(let lines) = action { lines } else { [] }
        }
        #expect(
            Array(lines.prefix(6)) == [
                #"identify: XC254462 start=0.0 end=3.0 sci="Troglodytes troglodytes" en="Eurasian Wren" confidence=0.910"#,
                #"identify: XC254462 start=3.0 end=6.0 sci="Troglodytes troglodytes" en="Eurasian Wren" confidence=0.970"#,
                #"identify: XC254462 start=3.0 end=6.0 sci="Erithacus rubecula" en="European Robin" confidence=0.420"#,
                #"identify: species XC254462 sci="Troglodytes troglodytes" en="Eurasian Wren" best=0.970 segments=2 first=0.0 last=3.0"#,
                #"identify: species XC254462 sci="Erithacus rubecula" en="European Robin" best=0.420 segments=1 first=3.0 last=3.0"#,
                #"identify: listed XC254462 own="Troglodytes troglodytes" own_heard=yes also_heard=0 also_not_heard=0 unlisted=1"#,
            ])
        #expect(
            lines.contains(
                #"identify: done XC254462 segments=2 detections=3 unexpected=0 model="BirdNET 2.4" credit="\#(Presenter.birdNETCredit)""#
            ))
        #expect(lines.contains { $0.hasPrefix("list: ") || $0.hasPrefix("row: ") }, "the held line ran after it")
    }

    @Test("a failure is one line and the session goes on")
    func failure() {
        var machine = listedSession(script)
        _ = machine.handle(.typed("identify 2 0:01-0:07", columns: 100))
        let failed = machine.handle(
            .identified(id: 1, .failure(.failed("no BirdNET model: run make model (CC BY-NC-SA 4.0)"))))
        #expect(failed.contains(.print([script.refusal("no BirdNET model: run make model (CC BY-NC-SA 4.0)")])))
    }

    @Test("a newer identify replaces a running one: the older result is dropped, the newer shown")
    func replaced() {
        var child = SessionMachine.Identify(presenter: script, interactive: true)
        var ids = SessionMachine.WorkIDs()
        let task = SessionMachine.IdentifyTask(
            recording: Fixture.wren, item: Fixture.wren.playItem!, span: nil, options: IdentifyOptions())
        _ = child.handle(.identify(task), ids: &ids)
        _ = child.handle(.identify(task), ids: &ids)
        #expect(child.handle(.identified(id: 1, .success(heard)), ids: &ids) == [])
        #expect(child.handle(.identified(id: 2, .success(heard)), ids: &ids).last == .done)
    }

    @Test("Ctrl-C during identify cancels it and says so; nothing else stops")
    func interrupted() {
        var machine = listedSession(script)
        _ = machine.handle(.typed("identify 1", columns: 100))
        let interrupted = machine.handle(.interrupt)
        #expect(identifyActions(interrupted) == [.cancelIdentify])
        #expect(!interrupted.contains { if case .request(.stop) = $0 { true } else { false } })
        let stopped = machine.handle(.identified(id: 1, .failure(.stopped)))
        #expect(stopped.contains(.print([script.refusal("identify stopped")])))
    }

    @Test("identify with nothing playing, a restricted row and a missing selection each say why in one line")
    func refusals() {
        var machine = listedSession(script)
        #expect(
            machine.handle(.typed("identify", columns: 100)) == [
                .print([
                    script.refusal(
                        "nothing plays: identify which row? e.g. identify 1 (or identify s1 for a selection)")
                ])
            ])
        let restricted = machine.handle(.typed("identify 3", columns: 100))
        #expect(identifyActions(restricted).isEmpty && restricted.count == 1)
        #expect(
            machine.handle(.typed("identify s2", columns: 100)) == [
                .print([script.refusal("there is no selection s2: the table has 0 (measure list shows them)")])
            ])
    }
}
