import ChirperTestSupport
import Foundation
import Testing

/// A folder of one's own recordings as a birder has one: a field recorder's file, an MP3 in a subfolder, a bat
/// detector's WAV with GUANO and RIFF INFO, a symbolic link back up the tree, a format not read, a broken WAV,
/// and a text file the recorder wrote.
struct OwnFolder {
    let folder: TemporaryFolder
    var path: String { folder.path }

    /// Made with sox and lame on threads of their own (`Tool`), not on the pool the other suites' players need.
    static func make() async throws -> OwnFolder {
        let own = OwnFolder(folder: try TemporaryFolder())
        try await own.fill()
        return own
    }

    private func fill() async throws {
        let root = folder.path
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try await sox([
            "-n", "-r", "48000", "-c", "1", "-b", "16", root + "/20250612_053000.WAV", "synth", "2", "sine", "3000",
        ])
        try await sox(["-n", "-r", "44100", "-c", "1", root + "/sub/tone.wav", "synth", "3", "sine", "2000"])
        try await lame([root + "/sub/tone.wav", root + "/sub/song.mp3"])
        try FileManager.default.removeItem(atPath: root + "/sub/tone.wav")
        try await sox([
            "-n", "-r", "96000", "-c", "1", "-b", "16", root + "/sub/plain.wav", "synth", "1", "sine", "20000",
        ])
        let guano =
            "GUANO|Version: 1.0\nTimestamp: 2024-08-01T21:15:00+02:00\nLoc Position: 52.1 5.2\nMake: Pettersson\n"
            + "Model: D500X\nSpecies Manual ID: Pipistrellus pipistrellus\n"
        try Self.withChunks(
            from: root + "/sub/plain.wav", to: root + "/sub/bat.wav",
            chunks: [
                ("guan", Array(guano.utf8)), ("LIST", Self.info(["ICMT": "by the pond\u{1B}[2J", "IART": "Ann"])),
            ])
        try FileManager.default.removeItem(atPath: root + "/sub/plain.wav")
        try FileManager.default.createSymbolicLink(atPath: root + "/sub/loop", withDestinationPath: "..")
        try await sox(["-n", "-r", "22050", "-c", "1", root + "/clip.ogg", "synth", "1", "sine", "1000"])
        try Data("RIFF\u{10}\0\0\0WAVEjunk".utf8).write(to: URL(fileURLWithPath: root + "/broken.wav"))
        try Data("CONFIG".utf8).write(to: URL(fileURLWithPath: root + "/CONFIG.TXT"))
    }

    func remove() { folder.remove() }

    static func run(_ tool: String, _ arguments: [String]) async throws {
        let result = try await Tool.run("/usr/bin/env", [tool] + arguments)
        guard result.status == 0 else { throw OwnFolderError.tool(tool, arguments) }
    }

    func sox(_ arguments: [String]) async throws { try await Self.run("sox", arguments) }
    func lame(_ arguments: [String]) async throws { try await Self.run("lame", ["--quiet"] + arguments) }

    /// A RIFF `LIST` chunk's body of type `INFO`.
    static func info(_ entries: [String: String]) -> [UInt8] {
        var body = Array("INFO".utf8)
        for (id, text) in entries.sorted(by: { $0.key < $1.key }) {
            var value = Array(text.utf8) + [0]
            body += Array(id.utf8) + le32(value.count)
            if value.count % 2 == 1 { value.append(0) }
            body += value
        }
        return body
    }

    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// The WAV at `source` with `chunks` appended after its audio, the RIFF size set to match.
    static func withChunks(from source: String, to target: String, chunks: [(String, [UInt8])]) throws {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: source)))
        for (id, body) in chunks {
            bytes += Array(id.utf8) + le32(body.count) + body + (body.count % 2 == 1 ? [0] : [])
        }
        bytes.replaceSubrange(4..<8, with: le32(bytes.count - 8))
        try Data(bytes).write(to: URL(fileURLWithPath: target))
    }
}

enum OwnFolderError: Error {
    case tool(String, [String])
}

private var toolsPresent: Bool {
    ["/usr/bin/sox", "/usr/bin/lame"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
}

@Suite(
    "one's own recordings, opened from disk",
    .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"),
    .enabled(if: toolsPresent, "sox and lame are needed to make the files"))
struct OwnFilesTests {
    @Test("chirper-play DIR lists a folder's audio with no key, says in one line each file it passes over, and plays")
    func folderAtLaunch() async throws {
        let own = try await OwnFolder.make()
        defer { own.remove() }
        let run = try await runChirper(
            ["--output", "null", own.path],
            input: ["info 2", "play 1", "wait", "cite 1", "save 1", "filter year:2024", "filter song", "quit"])
        let rows = run.lines("row: ")
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        // Each file once, however often the link back up the tree reaches it: the field recorder's, then the
        // subfolder's in name order.
        #expect(rows.count == 3 + 1 + 1, "\(run.stdout)")
        #expect(rows.first?.contains(#"id="20250612_053000.WAV""#) == true, "\(rows)")
        #expect(rows.first?.hasSuffix(#"/20250612_053000.WAV""#) == true && rows.first?.contains(" file=\"/") == true)
        #expect(rows.first?.contains(#"length="0:02""#) == true, "\(rows)")
        #expect(rows.dropFirst().first?.contains(#"id="bat.wav""#) == true, "\(rows)")
        let skipped = run.lines("skipped: ")
        #expect(skipped.count == 2, "\(run.stdout)")
        #expect(
            skipped.contains {
                $0.contains("clip.ogg") && $0.contains("Ogg Vorbis") && $0.contains("ffmpeg -i IN out.flac")
            })
        #expect(skipped.contains { $0.contains("broken.wav") })
        #expect(!run.stdout.contains("CONFIG.TXT"))
        // `info` of the bat detector's file: GUANO and INFO, sanitised.
        let info = run.lines("info: ")
        #expect(info.contains(#"info: recorded="2024-08-01 21:15:00 UTC+02:00 (GUANO Timestamp)""#), "\(info)")
        #expect(info.contains(#"info: Make="Pettersson""#), "\(info)")
        #expect(info.contains(#"info: Species-Manual-ID="Pipistrellus pipistrellus""#), "\(info)")
        #expect(info.contains(#"info: comment="by the pond""#), "\(info)")
        #expect(info.contains(#"info: artist="Ann""#), "\(info)")
        #expect(!run.stdout.contains("\u{1B}"))
        #expect(run.lines("playback: playing 20250612_053000.WAV").count >= 1, "\(run.stdout)")
        #expect(run.lines("playback: idle").count >= 1, "\(run.stdout)")
        #expect(run.lines("cite: ").first?.contains("is your own recording") == true, "\(run.stdout)")
        #expect(run.lines("error: ").contains { $0.contains("is your own file, already on disk") }, "\(run.stdout)")
        // filter: the GUANO year finds the bat; a word finds the path.
        let afterFilter = run.lines.drop { !$0.hasPrefix(#"list: loading query="filter year:2024""#) }
        #expect(afterFilter.dropFirst(2).first?.contains(#"id="bat.wav""#) == true, "\(Array(afterFilter))")
        #expect(run.lines("row: ").last?.contains(#"id="song.mp3""#) == true, "\(run.stdout)")
        #expect(run.lines("list: loading ").last == #"list: loading query="filter song""#, "as typed, not en:song")
    }

    @Test("open in a session, then a search: a selection measured on one's own file is compared with an archive row")
    func measureAcross() async throws {
        let own = try await OwnFolder.make()
        defer { own.remove() }
        let run = try await runChirper(
            ["--output", "null"],
            input: [
                "open \(own.path)/20250612_053000.WAV", "measure 1 0:00.2-0:01.5", "search cnt:demoland",
                "measure 1 0:00-0:02", "compare s1 s2", "quit",
            ])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.lines("row: ").first?.contains("file=") == true, "\(run.stdout)")
        let compared = run.lines("compare: ")
        #expect(compared.contains { $0.contains(#"id="20250612_053000.WAV""#) }, "\(run.stdout)")
        #expect(compared.contains { $0.contains(#"id="DEMO-01""#) }, "\(run.stdout)")
        #expect(run.lines("error: ").isEmpty, "\(run.stdout)")
    }

    @Test(
        "a folder of 300 files, some unreadable, lists page by page every readable file once in name order, and each unreadable one in one line"
    )
    func pagesInNameOrder() async throws {
        let source = try TemporaryFolder()
        defer { source.remove() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try await OwnFolder.run(
            "sox", ["-n", "-r", "8000", "-c", "1", source.path + "/one.wav", "synth", "0.5", "sine", "1000"])
        var readable: [String] = []
        var broken: [String] = []
        for index in 0..<300 {
            let name = "REC_\(1000 + index).wav"
            if index % 7 == 3 {
                try Data("RIFF\u{10}\0\0\0WAVEjunk".utf8).write(to: URL(fileURLWithPath: folder.path + "/" + name))
                broken.append(name)
            } else {
                guard link(source.path + "/one.wav", folder.path + "/" + name) == 0 else {
                    throw OwnFolderError.tool("link", [name])
                }
                readable.append(name)
            }
        }
        let run = try await runChirper(
            ["--output", "null", "--per-page", "100", folder.path],
            input: ["next-page", "next-page", "quit"])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = run.lines("row: ")
        let ids = rows.map { String($0.split(separator: " ")[2]) }
        #expect(ids == readable.map { "id=\"\($0)\"" }, "\(run.stdout)")
        #expect(rows.map { String($0.split(separator: " ")[1]) } == (1...readable.count).map { "n=\($0)" })
        let skipped = run.lines("skipped: ")
        #expect(skipped.count == broken.count, "\(run.stdout)")
        #expect(zip(skipped, broken).allSatisfy { $0.contains("/" + $1) }, "\(skipped)")
        #expect(run.lines("list: populated rows=\(readable.count) page=3/3").count == 1, "\(run.lines("list: "))")
    }

    @Test("a folder of 20,000 files is counted whole and listed a page at a time, through the same list")
    func manyFiles() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try await OwnFolder.run(
            "sox", ["-n", "-r", "8000", "-c", "1", folder.path + "/one.wav", "synth", "0.5", "sine", "1000"])
        for index in 0..<20000 {
            let name = folder.path + "/REC_20250612_\(String(100000 + index).dropFirst()).wav"
            guard link(folder.path + "/one.wav", name) == 0 else { throw OwnFolderError.tool("link", [name]) }
        }
        let run = try await runChirper(["--output", "null", folder.path], input: ["next-page", "quit"])
        #expect(run.status == 0, "\(run.stderr)")
        let list = run.lines("list: ")
        #expect(list.contains { $0.hasPrefix("list: paging rows=10 page=1/2001") && $0.hasSuffix("next=2") }, "\(list)")
        #expect(list.contains { $0.hasPrefix("list: paging rows=20 page=2/2001") && $0.hasSuffix("next=3") }, "\(list)")
        #expect(run.lines("row: ").count == 20)
    }
}

@Suite(
    "one's own recordings on an 80-column terminal",
    .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"),
    .enabled(if: toolsPresent, "sox and lame are needed to make the files"))
struct OwnFilesTerminalTests {
    @Test("rows of one's own files fit 80 columns: name, length, date and where it came from, kHz, channels")
    func rowsFit() async throws {
        let own = try await OwnFolder.make()
        defer { own.remove() }
        let home = try TemporaryFolder()
        defer { home.remove() }
        let session = try startChirper(["--output", "null", "--no-mpris", own.path], home: home.path, columns: 80)
        defer { session.stop() }
        try await session.waitForPrompt()
        try await session.waitFor("the rows") { screen in screen.transcript.contains { $0.contains("song.mp3") } }
        let screen = session.current.transcript
        let header = try #require(
            screen.firstIndex { $0.hasPrefix(" #  File") || $0.hasPrefix("#  File") }, "\(screen)")
        let rows = Array(screen[header...].prefix(4))
        #expect(rows.allSatisfy { $0.count < 80 }, "\(rows)")
        #expect(rows[1].contains("20250612_053000.WAV") && rows[1].contains("0:02") && rows[1].contains("name"))
        #expect(rows[1].contains("2025-06-12 05:30") && rows[1].contains(" 48 ") && rows[1].contains(" 1"), "\(rows)")
        #expect(rows[2].contains("bat.wav") && rows[2].contains("GUANO") && rows[2].contains("52.1"), "\(rows)")
        #expect(screen.contains { $0.hasPrefix("Skipped ") && $0.contains("clip.ogg") }, "\(screen)")
        session.type("quit\r")
        #expect(try await session.waitForExit() == 0)
    }
}
