import Foundation
import Testing

@testable import ChirperCore

@Suite("Field kit: cite, also, rows, queue")
struct FieldKitTests {
    static let bunting = Recording(
        id: "254462", genus: "Passerina", species: "amoena", englishName: "Lazuli Bunting",
        recordist: "Jonathan Jongsma", pageURL: "https://xeno-canto.org/254462",
        licenceURL: "https://creativecommons.org/licenses/by-nc-sa/4.0/", background: ["Spinus tristis"])

    @Test("cite gives recordist, XC number, page and licence, and warns of NC")
    func citeNonCommercial() {
        let citation = Citation(Self.bunting)
        #expect(citation.line == "Jonathan Jongsma, XC254462, https://xeno-canto.org/254462, CC BY-NC-SA 4.0")
        #expect(citation.warning == "licence CC BY-NC-SA 4.0: no commercial use")
    }

    @Test("an ND licence warns of derivatives; CC0 and BY give no warning")
    func citeWarnings() {
        var recording = Self.bunting
        recording.licenceURL = "//creativecommons.org/licenses/by-nc-nd/2.5/"
        #expect(
            Citation(recording).warning
                == "licence CC BY-NC-ND 2.5: no commercial use, no derivatives (no edited or remixed versions)")
        recording.licenceURL = "https://creativecommons.org/publicdomain/zero/1.0/"
        #expect(Citation(recording).warning == nil)
        recording.licenceURL = "https://creativecommons.org/licenses/by/4.0/"
        #expect(Citation(recording).warning == nil)
        recording.licenceURL = ""
        #expect(Citation(recording).warning?.contains("check the recording's page") == true)
    }

    @Test("cite sanitises the recordist and builds the URL from the id, not the API's url")
    func citeSanitises() {
        var recording = Self.bunting
        recording.recordist = "Evil\u{1B}[2JName"
        recording.pageURL = "https://evil.example/\u{1B}]0;x"
        let line = Citation(recording).line
        #expect(!line.contains("\u{1B}"))
        #expect(line.contains("https://xeno-canto.org/254462"))
        #expect(!line.contains("evil.example"))
    }

    @Test("also searches the one background species by its binomial")
    func alsoOne() throws {
        let query = try BackgroundSearch.query(for: Self.bunting, row: 1).get()
        #expect(query.terms == [SearchQuery.Term(tag: "sp", value: "spinus tristis")])
        #expect(query.description.contains("sp:\"spinus tristis\""))
    }

    @Test("also asks which one when there are several, and refuses non-species")
    func alsoRefusals() {
        var recording = Self.bunting
        recording.background = ["Coereba flaveola", "Vireo altiloquus"]
        guard case .failure(let refusal) = BackgroundSearch.query(for: recording, row: 3) else {
            Issue.record("several species need a choice")
            return
        }
        #expect(
            refusal.description
                == "XC254462 has 2 background species (1 Coereba flaveola, 2 Vireo altiloquus); choose one: also 3 <k>, e.g. also 3 1"
        )
        #expect(
            (try? BackgroundSearch.query(for: recording, row: 3, choice: 2).get())?.terms.first?.value
                == "vireo altiloquus")
        #expect(
            BackgroundSearch.query(for: recording, row: 3, choice: 3)
                == .failure(.outOfRange(label: "XC254462", row: 3, choice: 3, count: 2)))
        recording.background = []
        #expect(
            BackgroundSearch.Refusal.outOfRange(label: "XC254462", row: 3, choice: 3, count: 2).description
                == "XC254462 has 2 background species, not 3; choose one of 1-2: also 3 <k>")
        #expect(
            BackgroundSearch.Refusal.outOfRange(label: "XC254462", row: 3, choice: 2, count: 1).description
                == "XC254462 has 1 background species, not 2; type also 3")
        #expect(BackgroundSearch.query(for: recording, row: 3) == .failure(.none(label: "XC254462")))
        recording.background = ["Identity unknown"]
        #expect(
            BackgroundSearch.query(for: recording, row: 3)
                == .failure(.notASpecies(label: "XC254462", name: "Identity unknown")))
    }

    @Test(
        "rows parse as single, range, list and all",
        arguments: [
            ("3", [3]), ("3-7", [3, 4, 5, 6, 7]), ("3,5,9", [3, 5, 9]), ("2-4,8,3", [2, 3, 4, 8]),
            ("all", Array(1...10)),
            ("#2", [2]), (" 1 - 2 ", [1, 2]),
        ])
    func rows(text: String, rows: [Int]) throws {
        #expect(try RowSelection.parse(text, count: 10) == rows)
    }

    @Test(
        "bad rows give one clear line",
        arguments: [
            ("", RowSelection.ParseError.empty), ("7-3", .reversed(7, 3)), ("11", .outOfRange(11, count: 10)),
            ("0", .outOfRange(0, count: 10)), ("x", .notARow("x")), ("3-", .notARow("3-")),
            ("1-2-3", .notARow("1-2-3")),
            ("3,,4", .notARow("")),
        ])
    func badRows(text: String, error: RowSelection.ParseError) {
        #expect(throws: error) { try RowSelection.parse(text, count: 10) }
    }

    static let three = [
        QueueItem(row: 3, recording: Recording(id: "1")), QueueItem(row: 4, recording: Recording(id: "2")),
        QueueItem(row: 5, recording: Recording(id: "3")),
    ]

    @Test("a queue of three plays in order with autoplay, then says finished")
    func queueInOrder() {
        var machine = PlayQueueMachine()
        #expect(machine.handle(.enqueue(Self.three)) == .play(Self.three[0], position: 1, count: 3, fresh: true))
        #expect(machine.handle(.started(PlaybackTicket(1))) == .nothing)
        #expect(machine.handle(.trackEnded(PlaybackTicket(1))) == .play(Self.three[1], position: 2, count: 3))
        #expect(machine.handle(.started(PlaybackTicket(2))) == .nothing)
        #expect(machine.handle(.trackEnded(PlaybackTicket(2))) == .play(Self.three[2], position: 3, count: 3))
        #expect(machine.handle(.started(PlaybackTicket(3))) == .nothing)
        #expect(machine.handle(.trackEnded(PlaybackTicket(3))) == .finished)
        #expect(machine.handle(.trackEnded(PlaybackTicket(3))) == .nothing)
        #expect(machine.handle(.prev) == .play(Self.three[2], position: 3, count: 3))
    }

    @Test("autoplay off holds after a track; next and prev move and refuse at the ends")
    func queueManual() {
        var machine = PlayQueueMachine()
        #expect(machine.handle(.next) == .refuse("the queue is empty; queue rows with play 3-7 or play all"))
        #expect(machine.handle(.autoplay(false)) == .autoplayChanged(false))
        _ = machine.handle(.enqueue(Self.three))
        _ = machine.handle(.started(PlaybackTicket(1)))
        #expect(machine.handle(.trackEnded(PlaybackTicket(1))) == .nothing)
        #expect(machine.handle(.prev) == .refuse("XC1 is the first in the queue; next goes on"))
        #expect(machine.handle(.next) == .play(Self.three[1], position: 2, count: 3))
        #expect(machine.handle(.next) == .play(Self.three[2], position: 3, count: 3))
        #expect(machine.handle(.next) == .refuse("XC3 is the last in the queue; prev goes back"))
    }

    @Test(
        "only the end of the request the queue started moves it: an older request's late end, or one before the start is known, does not"
    )
    func queueFollowsItsTicket() {
        var machine = PlayQueueMachine()
        _ = machine.handle(.enqueue(Self.three))
        #expect(machine.handle(.trackEnded(PlaybackTicket(7))) == .nothing, "not yet started: not the queue's")
        _ = machine.handle(.started(PlaybackTicket(8)))
        #expect(machine.handle(.trackEnded(PlaybackTicket(7))) == .nothing, "a late end of the request before it")
        #expect(machine.handle(.trackEnded(PlaybackTicket(8))) == .play(Self.three[1], position: 2, count: 3))
        #expect(machine.state.ticket == nil, "the next item's request is not known yet")
    }

    @Test("stop holds the queue; a new list clears it")
    func queueStopAndClear() {
        var machine = PlayQueueMachine()
        _ = machine.handle(.enqueue(Self.three))
        _ = machine.handle(.started(PlaybackTicket(1)))
        #expect(machine.handle(.stop) == .nothing)
        #expect(machine.handle(.trackEnded(PlaybackTicket(1))) == .nothing)
        #expect(machine.handle(.next) == .play(Self.three[1], position: 2, count: 3))
        #expect(machine.handle(.listReplaced) == .cleared)
        #expect(machine.state.phase == .empty)
        #expect(machine.handle(.listReplaced) == .nothing)
        #expect(machine.handle(.enqueue([])) == .refuse("nothing to queue: the selection has no playable rows"))
    }
}

@Suite("Field kit: names, sniffing, cache index")
struct FieldKitNamingTests {
    @Test(
        "file names come from the id only",
        arguments: [
            ("254462", "XC254462"), ("DEMO-07", "DEMO-07"), ("../etc", nil), ("1/2", nil), ("", nil),
            ("demo-07", nil), ("DEMO-07/..", nil), ("12345678901234", nil),
        ] as [(String, String?)])
    func stems(id: String, stem: String?) {
        #expect(FieldKitNaming.stem(forID: id) == stem)
    }

    @Test("the extension comes from the bytes: ID3 or frame sync is mp3, RIFF/WAVE is wav")
    func sniff() {
        #expect(FieldKitNaming.sniffExtension(Array("ID3\u{4}".utf8)) == "mp3")
        #expect(FieldKitNaming.sniffExtension([0xFF, 0xFB, 0x90, 0x00]) == "mp3")
        #expect(FieldKitNaming.sniffExtension(Array("RIFF\0\0\0\0WAVEfmt ".utf8)) == "wav")
        #expect(FieldKitNaming.sniffExtension(Array("<html>".utf8)) == nil)
    }

    @Test("the cache key is the number of a …/<digits>/download URL; other locations are not cached")
    func cacheKey() {
        #expect(FieldKitNaming.id(of: .remote("https://xeno-canto.org/254462/download")) == "254462")
        #expect(FieldKitNaming.id(of: .remote("http://127.0.0.1:8080/7/download?x=1")) == "7")
        #expect(FieldKitNaming.id(of: .remote("https://xeno-canto.org/../download")) == nil)
        #expect(FieldKitNaming.id(of: .remote("https://example.org/sounds/a.mp3")) == nil)
        #expect(FieldKitNaming.id(of: .local(path: "/tmp/7/download")) == nil)
    }

    @Test("the cache never exceeds its bound under many inserts, evicting the least recently used")
    func cacheBound() {
        var index = CacheIndex()
        let limit: Int64 = 1000
        var seed: UInt64 = 42
        for step in 0..<2000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let id = String(seed % 50)
            let size = Int64((seed >> 33) % 400) + 1
            if step % 3 == 0, index.touch(id, now: Double(step)) { continue }
            _ = index.insert(id, .init(file: "XC\(id).mp3", size: size, lastUse: Double(step)), limit: limit)
            #expect(index.totalSize <= limit)
        }
    }

    @Test("eviction takes the least recently used first, and an oversize entry is not kept")
    func cacheLRU() {
        var index = CacheIndex()
        _ = index.insert("1", .init(file: "XC1.mp3", size: 400, lastUse: 1), limit: 1000)
        _ = index.insert("2", .init(file: "XC2.mp3", size: 400, lastUse: 2), limit: 1000)
        let touched = index.touch("1", now: 3)
        #expect(touched)
        let evicted = index.insert("3", .init(file: "XC3.mp3", size: 400, lastUse: 4), limit: 1000)
        #expect(evicted.map(\.file) == ["XC2.mp3"])
        #expect(Set(index.entries.keys) == ["1", "3"])
        let oversize = index.insert("4", .init(file: "XC4.mp3", size: 2000, lastUse: 5), limit: 1000)
        #expect(oversize.map(\.file) == ["XC4.mp3"])
        #expect(index.entries["4"] == nil)
    }

    @Test(
        "cache sizes parse",
        arguments: [("500MB", Int64(500 << 20)), ("2G", 2 << 30), ("800k", 800 << 10), ("0", 0), ("123", 123)]
            as [(String, Int64)])
    func sizes(text: String, bytes: Int64) {
        #expect(CacheIndex.parseSize(text) == bytes)
    }

    @Test("save saves one item at a time, goes on past a failure, counts, and ignores a stopped batch's outcome")
    func saveBatch() {
        var machine = SaveBatchMachine()
        let items = [
            QueueItem(row: 1, recording: Recording(id: "1")), QueueItem(row: 2, recording: Recording(id: "2")),
        ]
        #expect(
            machine.handle(.start(items, directory: "/d"))
                == .save(items[0], directory: "/d", position: 1, count: 2, batch: 1))
        if case .refuse(let line) = machine.handle(.start(items, directory: "/e")) {
            #expect(line.hasPrefix("a save is running (1 of 2)"))
        } else {
            Issue.record("a second save while one runs is refused")
        }
        #expect(
            machine.handle(.ended(batch: 1, .failed(label: "XC1", reason: "x")))
                == .save(items[1], directory: "/d", position: 2, count: 2, batch: 1))
        #expect(
            machine.handle(.ended(batch: 1, .saved(label: "XC2", file: "/d/XC2.mp3", bytes: 1)))
                == .done(saved: 1, existing: 0, failed: 1, directory: "/d", stopped: false))
        #expect(!machine.state.isBusy)
        _ = machine.handle(.start(items, directory: "/d"))
        #expect(machine.handle(.stop) == .done(saved: 0, existing: 0, failed: 0, directory: "/d", stopped: true))
        #expect(machine.handle(.ended(batch: 2, .saved(label: "XC1", file: "f", bytes: 1))) == .nothing)
    }

    @Test("the field kit's commands parse, and bad ones say what to type")
    func commands() throws {
        #expect(try CommandParser.parse("play 3-7") == .playRows("3-7"))
        #expect(try CommandParser.parse("play all") == .playRows("all"))
        #expect(try CommandParser.parse("play 3") == .play(row: 3))
        #expect(try CommandParser.parse("save 2,4 ~/birds") == .save(rows: "2,4", directory: "~/birds"))
        #expect(try CommandParser.parse("save all") == .save(rows: "all", directory: nil))
        #expect(try CommandParser.parse("cite 2") == .cite(row: 2))
        #expect(try CommandParser.parse("also 2 3") == .also(row: 2, choice: 3))
        #expect(try CommandParser.parse("next") == .next)
        #expect(try CommandParser.parse("prev") == .prev)
        #expect(try CommandParser.parse("autoplay off") == .autoplay(false))
        #expect(throws: CommandError.self) { try CommandParser.parse("autoplay maybe") }
        #expect(throws: CommandError.self) { try CommandParser.parse("save") }
        #expect(throws: CommandError.self) { try CommandParser.parse("play 7-3") }
        #expect(Completion.candidates(lineBeforeCursor: "autoplay o").sorted() == ["off", "on"])
        #expect(Completion.candidates(lineBeforeCursor: "ci") == ["cite"])
    }

    @Test("info lists v3 annotation-set boxes (time, frequency, species, type), sanitised; an empty set adds nothing")
    func annotations() throws {
        let page = try PageDecoder.decode(
            Data(
                #"""
                {"numRecordings": "2", "numSpecies": "1", "page": 1, "numPages": 1, "recordings": [
                 {"id": "1", "en": "Wren", "annotation-set": [
                   {"start": 1.2, "end": "2.5", "freq_low": 2000, "freq_high": 5400, "species": "Turdus merula",
                    "type": "song"},
                   {"label": "\u001b[31mOdd", "box": {"nested": true}, "confidence": 0.9},
                   "not an object"]},
                 {"id": "2", "en": "Robin", "annotation-set": []}]}
                """#.utf8))
        let presenter = Presenter(style: .script, sourceName: "xeno-canto")
        let boxes = presenter.info(page.recordings[0], row: 1).filter { $0.hasPrefix("info: annotation") }
        #expect(
            boxes == [
                #"info: annotation-1="1.2-2.5 s · 2000-5400 Hz · Turdus merula · song""#,
                #"info: annotation-2="Odd · confidence=0.9""#,
            ])
        #expect(!presenter.info(page.recordings[1], row: 2).contains { $0.hasPrefix("info: annotation") })
    }

    @Test("on a terminal the field kit speaks in sentences, sanitised, without escapes when colour is off")
    func terminalLines() {
        let presenter = Presenter(style: .terminal(color: false), sourceName: "xeno-canto")
        #expect(
            presenter.save(.fetching(label: "XC1", offset: 2 << 20, attempt: 2), position: 1, count: 3)
                == "↓ 1/3 XC1 resuming at 2.0 MB (attempt 2) …")
        #expect(
            presenter.save(.saved(label: "XC1", file: "/tmp/\u{1B}[2JXC1.mp3", bytes: 3 << 20), position: 1, count: 3)
                == "✓ 1/3 XC1 saved: /tmp/XC1.mp3 (3.0 MB)")
        #expect(
            presenter.saveDone(saved: 2, existing: 1, failed: 0, directory: "/tmp", stopped: false)
                == "Save done: 2 saved, 1 already there in /tmp")
        let queued = [
            QueueItem(row: 1, recording: Recording(id: "1")), QueueItem(row: 2, recording: Recording(id: "2")),
        ]
        #expect(
            presenter.queue(.play(queued[0], position: 1, count: 2, fresh: true), queued: queued) == [
                "Queued 2: XC1, XC2 · next, prev, autoplay on|off", "▷ 1/2 XC1",
            ])
        #expect(presenter.queue(.nothing, queued: queued).isEmpty)
        let script = Presenter(style: .script, sourceName: "xeno-canto")
        // prev back to the first item is not a new queue: nothing says it was queued again.
        #expect(script.queue(.play(queued[0], position: 1, count: 2), queued: queued) == ["queue: 1/2 XC1"])
        #expect(
            script.queue(.play(queued[0], position: 1, count: 2, fresh: true), queued: queued) == [
                "queue: queued XC1,XC2", "queue: 1/2 XC1",
            ])
        #expect(script.cacheNotice("index \"x\" rebuilt") == #"cache: message="index \"x\" rebuilt""#)
    }
}
