import ChirperCatalog
import ChirperCore
import Testing

@testable import ChirperREPL

private let script = Presenter(style: .script, width: 100, sourceName: "the test catalog")

private let wren = Species(scientific: "Troglodytes troglodytes", english: "Eurasian Wren")
private let robin = Species(scientific: "Erithacus rubecula", english: "European Robin")

private let first = Identification(
    model: "BirdNET 2.4",
    segments: [
        SegmentDetections(start: 0, end: 3, detections: [Detection(species: wren, confidence: 0.91)]),
        SegmentDetections(
            start: 3, end: 6,
            detections: [Detection(species: wren, confidence: 0.97), Detection(species: robin, confidence: 0.42)]),
    ])

private let second = Identification(
    model: "BirdNET 2.4",
    segments: [SegmentDetections(start: 0, end: 3, detections: [Detection(species: robin, confidence: 0.8)])])

private func typed(_ line: String) -> SessionMachine.Event { .typed(line, columns: 100) }

@Suite("identify save: the last identification shown, as BirdNET-Analyzer's selection table")
struct IdentifySaveSessionTests {
    @Test("before any identification, identify save says what to do first, in one line")
    func nothingYet() {
        var machine = listedSession(script)
        #expect(
            machine.handle(typed("identify save wren.txt")) == [
                .print([
                    script.refusal(
                        "nothing identified yet to save: identify a row first (identify 1), then identify save FILE")
                ])
            ])
        #expect(
            machine.handle(typed("identify save")) == [
                .print([
                    script.refusal(
                        "identify save needs one file name, e.g. identify save dawn.BirdNET.selection.table.txt")
                ])
            ])
    }

    @Test(
        "identify 1, then identify save ~/wren.txt: the table asked written to a new file, and where it went said")
    func saves() {
        var machine = listedSession(script)
        _ = machine.handle(typed("identify 1"))
        _ = machine.handle(.identified(id: 1, .success(first)))
        let table = BirdNETSelectionTable.text(first, path: "XC254462", sampleRate: nil)
        #expect(
            machine.handle(typed("identify save ~/wren.txt")) == [
                .request(.writeSelections(table, path: "/home/birder/wren.txt", selections: 3))
            ])
        #expect(
            machine.handle(.answered(.selectionsWritten(path: "/home/birder/wren.txt", .success(3))))
                == [
                    .print([#"identify: saved="/home/birder/wren.txt" selections=3"#])
                ])
        let exists = "/home/birder/wren.txt already exists; left as it is (delete it, or save under another name)"
        _ = machine.handle(typed("identify save ~/wren.txt"))
        #expect(
            machine.handle(.answered(.selectionsWritten(path: "/home/birder/wren.txt", .failure(.init(exists)))))
                == [
                    .print([script.refusal(exists)])
                ])
    }

    @Test("while a newer identify runs, and after it fails, the last one shown is what is saved; then the newer")
    func lastShown() {
        var machine = listedSession(script)
        _ = machine.handle(typed("identify 1"))
        _ = machine.handle(.identified(id: 1, .success(first)))
        let firstTable = BirdNETSelectionTable.text(first, path: "XC254462", sampleRate: nil)
        var child = machine.identification
        var ids = SessionMachine.WorkIDs()
        let task = SessionMachine.IdentifyTask(
            recording: Fixture.robin, item: Fixture.robin.playItem!, span: nil, options: IdentifyOptions())
        _ = child.handle(.identify(task), ids: &ids)
        #expect(
            child.handle(.save(path: "/t.txt"), ids: &ids) == [
                .request(.writeSelections(firstTable, path: "/t.txt", selections: 3))
            ])
        _ = child.handle(.identified(id: 1, .failure(.failed("no audio"))), ids: &ids)
        #expect(
            child.handle(.save(path: "/t.txt"), ids: &ids) == [
                .request(.writeSelections(firstTable, path: "/t.txt", selections: 3))
            ])
        _ = child.handle(.identify(task), ids: &ids)
        _ = child.handle(.identified(id: 2, .success(second)), ids: &ids)
        #expect(
            child.handle(.save(path: "/t.txt"), ids: &ids) == [
                .request(
                    .writeSelections(
                        BirdNETSelectionTable.text(second, path: "XC5168", sampleRate: nil), path: "/t.txt",
                        selections: 1))
            ])
    }
}
