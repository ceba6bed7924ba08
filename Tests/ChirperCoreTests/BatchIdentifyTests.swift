import ChirperCore
import Testing

/// A field season on disk: two sites, each with its own `a.wav`, and a file at the top.
private let season = [
    "/data/season/site2/a.wav", "/data/season/site1/b.wav", "/data/season/site1/a.wav", "/data/season/top.flac",
]

private func plan(
    _ files: [String] = season, named: [(path: String, isFolder: Bool)] = [("/data/season", true)],
    shard: BatchIdentifyOptions.Shard = .init(index: 1, count: 1), times: [String: Double] = [:]
) -> BatchIdentifyPlan {
    BatchIdentifyPlan(
        files: files, named: named, out: "/out", shard: shard,
        modified: { times[$0] ?? (season.contains($0) ? 100 : nil) })
}

private func sources(_ plan: BatchIdentifyPlan) -> [String] {
    plan.steps.map {
        switch $0 {
        case .identify(let item): item.source
        case .skip(let item): item.source
        }
    }
}

@Suite("batch identify: the command line, the plan (which files, which shard, which skipped) and the run")
struct BatchIdentifyTests {
    @Test("identify PATH… --out DIR with its options is a batch run; a bad one says why in one line")
    func parses() throws {
        let request = try LaunchOptions.parse([
            "identify", "a.wav", "season", "--out", "tables", "--min-confidence=0.3", "--overlap", "1.5", "--shard",
            "2/8", "--model-dir", "/m", "--jobs", "2",
        ])
        guard case .identify(let options) = request else {
            Issue.record("not a batch run: \(request)")
            return
        }
        #expect(options.paths == ["a.wav", "season"])
        #expect(options.out == "tables")
        #expect(options.identify == IdentifyOptions(minConfidence: 0.3, overlap: 1.5))
        #expect(options.shard == .init(index: 2, count: 8))
        #expect(options.modelDirectory == "/m" && options.jobs == 2)
        for (arguments, said) in [
            (["identify", "a.wav"], "--out DIR"),
            (["identify", "--out", "t"], "name the files"),
            (["identify", "a.wav", "--out", "t", "--shard", "3/2"], "--shard takes K/N"),
            (["identify", "a.wav", "--out", "t", "--shard", "0/2"], "--shard takes K/N"),
            (["identify", "a.wav", "--out", "t", "--min-confidence", "2"], "from 0 to 1"),
            (["identify", "a.wav", "--out", "t", "--overlap", "3"], "under 3"),
            (["identify", "a.wav", "--out", "t", "--loud"], "unknown option '--loud'"),
            (
                ["--model-dir", "/m", "identify", "a.wav", "--out", "t"],
                "--out is batch identify's: it starts with identify"
            ),
        ] {
            #expect(throws: LaunchError.self, "\(arguments)") { try LaunchOptions.parse(arguments) }
            do {
                _ = try LaunchOptions.parse(arguments)
            } catch {
                #expect(error.message.contains(said), "\(arguments): \(error.message)")
                #expect(!error.message.contains("\n"))
            }
        }
    }

    @Test("tables mirror the folders, so two a.wav in different folders get two tables; files come sorted")
    func mirrors() {
        let items = plan().toIdentify
        #expect(items.map(\.relative) == ["site1/a.wav", "site1/b.wav", "site2/a.wav", "top.flac"])
        #expect(
            items.map(\.table) == [
                "/out/site1/a.BirdNET.selection.table.txt", "/out/site1/b.BirdNET.selection.table.txt",
                "/out/site2/a.BirdNET.selection.table.txt", "/out/top.BirdNET.selection.table.txt",
            ])
        #expect(plan().total == 4)
    }

    @Test("a file named alone gets its table by its own name; two folders named keep their own names below --out")
    func namedPaths() {
        let one = plan(["/data/season/top.flac"], named: [("/data/season/top.flac", false)]).toIdentify
        #expect(one.map(\.table) == ["/out/top.BirdNET.selection.table.txt"])
        let two = plan(
            ["/data/season/site1/a.wav", "/data/season/site2/a.wav"],
            named: [("/data/season/site1", true), ("/data/season/site2/", true)]
        ).toIdentify
        #expect(two.map(\.relative) == ["site1/a.wav", "site2/a.wav"])
        let twice = plan(["/data/season/top.flac", "/data/season/./top.flac"], named: [("/data/season", true)])
        #expect(twice.total == 1, "a file named twice is identified once")
    }

    @Test("a file whose table is newer is skipped; an older table, or none, is identified again")
    func resumes() {
        let times = [
            "/out/site1/a.BirdNET.selection.table.txt": 200.0,  // after the file: done
            "/out/site1/b.BirdNET.selection.table.txt": 50.0,  // before the file changed: again
        ]
        let steps = plan(times: times).steps
        #expect(steps.count == 4)
        guard case .skip(let skipped) = steps[0] else {
            Issue.record("site1/a.wav is not skipped: \(steps)")
            return
        }
        #expect(skipped.relative == "site1/a.wav")
        #expect(plan(times: times).toIdentify.map(\.relative) == ["site1/b.wav", "site2/a.wav", "top.flac"])
    }

    @Test("--shard K/N takes every N-th sorted file from the K-th: the shards share none and cover all")
    func shards() {
        let files = (1...23).map { "/data/season/f\($0).wav" }
        var taken: [String] = []
        for count in [1, 2, 3, 7, 30] {
            taken = []
            for index in 1...count {
                let shard = sources(plan(files, shard: .init(index: index, count: count)))
                #expect(Set(shard).isDisjoint(with: taken), "shard \(index)/\(count) repeats a file")
                taken += shard
            }
            #expect(Set(taken) == Set(files), "shards of \(count) miss a file")
            #expect(taken.count == files.count)
        }
        let sorted = sources(plan(files)).map { String($0.dropFirst("/data/season/".count)) }
        #expect(sorted == sorted.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(
            Array(sources(plan(files, shard: .init(index: 2, count: 3))).prefix(2))
                == [sorted[1], sorted[4]].map { "/data/season/" + $0 })
    }

    @Test("the run: the credit once, skipped files said, two at a time, a failure said and the run goes on, status 1")
    func runs() {
        let times = ["/out/site1/a.BirdNET.selection.table.txt": 200.0]
        var machine = BatchIdentifyMachine(
            plan: plan(times: times), jobs: 2, shard: .init(index: 1, count: 1), model: "BirdNET 2.4")
        let items = plan(times: times).toIdentify
        let started = machine.handle(.start)
        #expect(
            started.first.map { if case .print(let line) = $0 { line.contains("CC BY-NC-SA 4.0") } else { false } }
                == true)
        #expect(
            started.contains(
                .print(
                    #"identify: skipped file="/data/season/site1/a.wav" table="/out/site1/a.BirdNET.selection.table.txt" reason="table is newer""#
                )))
        #expect(
            started.filter { if case .identify = $0 { true } else { false } } == [
                .identify(items[0]), .identify(items[1]),
            ])
        #expect(
            machine.handle(.failed(items[0], reason: "b.wav: it holds no audio")) == [
                .print(#"identify: failed file="/data/season/site1/b.wav" reason="b.wav: it holds no audio""#),
                .identify(items[2]),
            ])
        #expect(
            machine.handle(.identified(items[1], segments: 4, detections: 2)) == [
                .print(
                    #"identify: file="/data/season/site2/a.wav" segments=4 detections=2 table="/out/site2/a.BirdNET.selection.table.txt""#
                )
            ])
        let ended = machine.handle(.identified(items[2], segments: 1, detections: 0))
        #expect(ended.suffix(2) == [.print("identify: done identified=2 skipped=1 failed=1"), .exit(1)])
    }

    @Test("Ctrl-C: the files under way stop, no other starts, the summary says stopped, status 130")
    func interrupted() {
        var machine = BatchIdentifyMachine(
            plan: plan(), jobs: 1, shard: .init(index: 2, count: 5), model: "BirdNET 2.4")
        let items = plan().toIdentify
        _ = machine.handle(.start)
        #expect(machine.handle(.interrupt) == [.cancel])
        #expect(machine.handle(.interrupt) == [], "a second Ctrl-C changes nothing")
        #expect(
            machine.handle(.stopped(items[0])) == [
                .print("identify: stopped identified=0 skipped=0 failed=0 shard=2/5 of=4"), .exit(130),
            ])
    }
}
