import ChirperTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh folder, removed by the caller.
private func scratchFolder() throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-batch-\(UUID())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}

/// `seconds` of a warbling tone over noise, made by sox at `path` (its format from the name).
private func makeRecording(_ path: String, seconds: Int = 8, rate: Int = 44_100) async throws {
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let result = try await Tool.run(
        "/usr/bin/env",
        [
            "sox", "-n", "-r", String(rate), "-c", "1", path, "synth", String(seconds), "sine", "3000-5000", "synth",
            String(seconds), "pinknoise", "mix", "vol", "0.3",
        ])
    guard result.status == 0 else { throw CocoaError(.fileWriteUnknown) }
}

/// The tables under `folder`, by path relative to it, with their text.
private func tables(in folder: String) -> [String: String] {
    var found: [String: String] = [:]
    let all = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []
    for relative in all {
        guard relative.hasSuffix(".BirdNET.selection.table.txt") else { continue }
        found[relative] = try? String(contentsOfFile: folder + "/" + relative, encoding: .utf8)
    }
    return found
}

/// Hidden files a write in progress leaves (`.name.part-PID`).
private func hiddenParts(in folder: String) -> [String] {
    (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { $0.contains(".part-") }
}

/// A table as a whole: BirdNET-Analyzer's header, then rows of its 12 columns, each line ended.
private func isWhole(_ text: String) -> Bool {
    guard text.hasSuffix("\n"), text.hasPrefix("Selection\tView\tChannel\tBegin Time (s)") else { return false }
    return text.dropLast().split(separator: "\n").allSatisfy {
        $0.split(separator: "\t", omittingEmptySubsequences: false).count == 12
    }
}

@Suite("chirper-play identify PATH… --out DIR: bad usage and no model, without the model")
struct BatchIdentifyUsageTests {
    @Test("bad usage is one line and status 2; no model is one line naming make model and the licence, status 1")
    func badUsage() async throws {
        let noOut = try await runChirper(["identify", "a.wav"], input: [])
        #expect(noOut.status == 2, "\(noOut.stderr)")
        #expect(noOut.stderr.hasPrefix("Error: identify: --out DIR says where the selection tables go"))
        let badShard = try await runChirper(["identify", "a.wav", "--out", "/tmp/x", "--shard", "3/2"], input: [])
        #expect(badShard.status == 2 && badShard.stderr.contains("--shard takes K/N"), "\(badShard.stderr)")
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let noModel = try await runChirper(
            ["identify", folder, "--out", folder + "/out", "--model-dir", folder + "/nothing"], input: [])
        #expect(noModel.status == 1)
        #expect(noModel.lines("identify: failed ").count == 1, "\(noModel.stdout)")
        #expect(noModel.stdout.contains("run `make model`") && noModel.stdout.contains("CC BY-NC-SA 4.0"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out"), "nothing written")
    }
}

@Suite(
    "chirper-play identify PATH… --out DIR, on the binary by name, with the real BirdNET model", .serialized,
    .enabled(if: modelScenariosOnTheirOwn, "skipped here: make test runs these on their own (CHIRPER_MODEL_TESTS=1)"),
    .enabled(if: Installed.present, Installed.absent))
struct BatchIdentifyEndToEndTests {
    @Test(
        "a folder of recordings: a table per file mirroring its folders, the second run skips them all, a changed file is done again"
    )
    func resumes() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let season = folder + "/season"
        for name in ["site1/a.wav", "site2/a.wav", "site1/b.flac"] { try await makeRecording(season + "/" + name) }
        try "not audio".write(toFile: season + "/notes.txt", atomically: true, encoding: .utf8)
        let out = folder + "/tables"
        let arguments = ["identify", season, "--out", out, "--model-dir", Installed.model]
        let first = try await runChirper(
            arguments, input: [], environment: Installed.environment, timeout: .seconds(300))
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.lines("identify: model=").count == 1 && first.stdout.contains("CC BY-NC-SA 4.0"))
        #expect(
            first.lines("identify: file=").count == 3
                && first.lines("identify: file=").allSatisfy { $0.contains(" segments=3 ") }, "\(first.stdout)")
        #expect(
            first.lines("identify: done ") == ["identify: done identified=3 skipped=0 failed=0"],
            "8 s: segments at 0, 3 and 6 s")
        let written = tables(in: out)
        #expect(
            Set(written.keys) == [
                "site1/a.BirdNET.selection.table.txt", "site2/a.BirdNET.selection.table.txt",
                "site1/b.BirdNET.selection.table.txt",
            ])
        #expect(written.values.allSatisfy(isWhole), "\(written)")
        #expect(written["site2/a.BirdNET.selection.table.txt"]?.contains("\t\(season)/site2/a.wav\t") == true)

        let second = try await runChirper(
            arguments, input: [], environment: Installed.environment, timeout: .seconds(300))
        #expect(second.status == 0)
        #expect(
            second.lines("identify: skipped ").count == 3 && second.lines("identify: file=").isEmpty, "\(second.stdout)"
        )
        #expect(second.lines("identify: done ") == ["identify: done identified=0 skipped=3 failed=0"])

        // A recording changed after its table was written is identified again.
        try await makeRecording(season + "/site2/a.wav", seconds: 11)
        let third = try await runChirper(
            arguments, input: [], environment: Installed.environment, timeout: .seconds(300))
        #expect(
            third.lines("identify: file=").map { $0.contains("/site2/a.wav") && $0.contains(" segments=4 ") } == [true])
    }

    @Test(
        "--shard 1/2 and --shard 2/2 share no file and together write every table; an unreadable file is a line, status 1"
    )
    func shards() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let season = folder + "/season"
        for name in ["a.wav", "b.wav", "c/d.wav", "c/e.wav", "f.wav"] {
            try await makeRecording(season + "/" + name, seconds: 3)
        }
        var seen: [Set<String>] = []
        for shard in ["1/2", "2/2"] {
            let out = folder + "/out" + shard.replacingOccurrences(of: "/", with: "of")
            let run = try await runChirper(
                ["identify", season, "--out", out, "--shard", shard, "--model-dir", Installed.model], input: [],
                environment: Installed.environment, timeout: .seconds(300))
            #expect(run.status == 0, "\(run.stdout)")
            #expect(run.lines("identify: done ").first?.contains("shard=\(shard) of=5") == true, "\(run.stdout)")
            seen.append(Set(tables(in: out).keys))
        }
        #expect(seen[0].isDisjoint(with: seen[1]))
        #expect(
            seen[0].union(seen[1]) == Set(["a", "b", "c/d", "c/e", "f"].map { $0 + ".BirdNET.selection.table.txt" }))
        #expect(seen[0].count == 3 && seen[1].count == 2, "every 2nd of the sorted files: \(seen)")

        try Data("RIFF\0\0\0\0WAVEjunk".utf8).write(to: URL(fileURLWithPath: season + "/broken.wav"))
        let broken = try await runChirper(
            [
                "identify", season + "/broken.wav", season + "/a.wav", "--out", folder + "/mixed", "--model-dir",
                Installed.model,
            ],
            input: [], environment: Installed.environment, timeout: .seconds(300))
        #expect(broken.status == 1)
        #expect(broken.lines("identify: failed file=").count == 1, "\(broken.stdout)")
        #expect(broken.lines("identify: file=").count == 1, "the run went on past it")
    }

    @Test("a run killed part-way leaves only whole tables, and the next run does the rest; Ctrl-C stops cleanly")
    func killed() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let season = folder + "/season"
        let names = (1...6).map { "r\($0).wav" }
        for name in names { try await makeRecording(season + "/" + name, seconds: 60) }
        let out = folder + "/out"
        let arguments = ["identify", season, "--out", out, "--jobs", "1", "--model-dir", Installed.model]
        let killed = try WatchedProcess(ChirperBinary.path, arguments, environment: Installed.environment)
        try await killed.waitFor("the first table", deadline: .seconds(300)) {
            $0.contains { $0.hasPrefix("identify: file=") }
        }
        killed.stop()
        // Whatever it had put in place when it died is whole; what it was writing is at most a hidden part.
        let afterKill = tables(in: out)
        #expect(!afterKill.isEmpty && afterKill.count < names.count, "\(afterKill.keys)")
        #expect(afterKill.values.allSatisfy(isWhole))
        let leftByKill = Set(hiddenParts(in: out))

        let interrupted = try WatchedProcess(ChirperBinary.path, arguments, environment: Installed.environment)
        try await interrupted.waitFor("a table of its own", deadline: .seconds(300)) {
            $0.contains { $0.hasPrefix("identify: file=") }
        }
        interrupted.send(SIGINT)
        try await interrupted.waitFor("the run's end", deadline: .seconds(120)) {
            $0.contains { $0.hasPrefix("identify: stopped ") }
        }
        #expect(tables(in: out).values.allSatisfy(isWhole))
        #expect(Set(hiddenParts(in: out)) == leftByKill, "Ctrl-C leaves no part of its own")
        let done = tables(in: out).count
        #expect(done > afterKill.count && done < names.count, "it stopped part-way: \(interrupted.output)")

        let rest = try await runChirper(
            arguments, input: [], environment: Installed.environment, timeout: .seconds(300))
        #expect(rest.status == 0, "\(rest.stdout)")
        #expect(
            rest.lines("identify: done ") == [
                "identify: done identified=\(names.count - done) skipped=\(done) failed=0"
            ])
        #expect(tables(in: out).count == names.count && tables(in: out).values.allSatisfy(isWhole))
    }

    @Test("identify save in a session: the table of the last identification, written once; a second save is refused")
    func saveInTheSession() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await makeRecording(folder + "/dawn.wav", rate: 22_050)
        let table = folder + "/dawn.txt"
        let run = try await runChirper(
            ["--output", "null", "--model-dir", Installed.model, folder + "/dawn.wav"],
            input: [
                "identify save " + table, "identify 1 --min-confidence 0.01", "identify save " + table,
                "identify save " + table, "quit",
            ],
            environment: Installed.environment, timeout: .seconds(300))
        #expect(run.status == 0, "\(run.stderr)")
        let errors = run.lines("error: ")
        #expect(errors.count == 2, "\(run.stdout)")
        #expect(errors.first?.contains("nothing identified yet to save") == true)
        #expect(errors.last?.contains("already exists; left as it is") == true)
        let saved = try #require(run.lines("identify: saved=").first, "\(run.stdout)")
        let done = try #require(run.lines("identify: done ").first)
        let detections = try #require(done.split(separator: " ").first { $0.hasPrefix("detections=") }?.dropFirst(11))
        #expect(saved == "identify: saved=\"\(table)\" selections=\(detections)")
        let text = try String(contentsOfFile: table, encoding: .utf8)
        #expect(isWhole(text))
        #expect(text.contains("\t0\t11025.0\t"), "a 22.05 kHz file tops out at 11025 Hz: \(text)")
        #expect(text.contains("\t\(folder)/dawn.wav\t"))
    }
}
