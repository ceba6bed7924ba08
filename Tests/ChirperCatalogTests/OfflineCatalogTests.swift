import ChirperCore
import Foundation
import Testing

@testable import ChirperCatalog

/// The bundled demo catalogue, found from this file's place in the repository.
enum Demo {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("assets/demo").path

    static func catalog() throws -> OfflineCatalog {
        try OfflineCatalog(directory: directory, name: "the demo catalog")
    }
}

private func count(_ catalog: OfflineCatalog, _ text: String) async throws -> Int {
    try await catalog.page(query: SearchQuery.parse(text), page: 1, perPage: 500) { _ in }.totalRecordings
}

@Suite("The offline catalog")
struct OfflineCatalogTests {
    @Test("the demo catalog has at least three pages at its page size, with MP3 and WAV, honestly labelled")
    func demoShape() async throws {
        let catalog = try Demo.catalog()
        #expect(catalog.recordings.count >= 3 * catalog.defaultPerPage)
        #expect(catalog.recordings.allSatisfy { $0.englishName.hasPrefix("Synthetic") })
        #expect(catalog.recordings.allSatisfy { !$0.id.allSatisfy(\.isNumber) }, "demo ids never look like XC numbers")
        let paths = catalog.recordings.compactMap { recording -> String? in
            if case .playable(.local(let path)) = recording.audio { return path } else { return nil }
        }
        #expect(paths.contains { $0.hasSuffix(".mp3") })
        #expect(paths.contains { $0.hasSuffix(".wav") })
        #expect(paths.allSatisfy { $0.hasPrefix(catalog.directory + "/") })
        #expect(catalog.recordings.contains { $0.audio == .restricted }, "a restricted entry is listed, not playable")
    }

    @Test(
        "tagged queries select the same way xeno-canto does",
        arguments: [
            ("en:trill", 5), ("trill", 5), ("en:\"=synthetic trill\"", 3), ("en:cafe", 2), ("en:café", 2),
            ("gen:synthetica", 18), ("sp:trillans", 5), ("sp:\"synthetica trillans\"", 3),
            ("cnt:demoland", 11), ("cnt:nowhere", 3), ("type:call", 11), ("type:\"alarm call\"", 2),
            ("q:A", 11), ("q:\">C\"", 20), ("q:\"<C\"", 4), ("grp:grasshoppers", 3), ("grp:birds", 27),
            ("rec:\"demo generator\"", 30), ("cnt:demoland type:call", 3), ("len:\">20\"", 2), ("smp:48000", 6),
            ("en:nightingale", 0),
        ])
    func queries(query: String, expected: Int) async throws {
        #expect(try await count(try Demo.catalog(), query) == expected)
    }

    @Test(
        "the search the hints suggest finds recordings: the demo's country, else a name; a catalogue's text only as a word"
    )
    func exampleSearch() async throws {
        let demo = try Demo.catalog()
        #expect(demo.exampleSearch == "cnt:demoland", "the country 11 of its 30 share")
        #expect(try await count(demo, demo.exampleSearch) == 11)

        let unplaced = OfflineCatalog(
            directory: "/nowhere", name: "the test catalog",
            recordings: [
                Recording(id: "1", englishName: "\u{1B}[2J Eurasian\u{7} Wren"),
                Recording(id: "2", englishName: "Common Blackbird"),
            ],
            skippedSidecars: 0)
        #expect(unplaced.exampleSearch == "en:eurasian", "no countries: the first name's first word, escapes dropped")
        #expect(try await count(unplaced, unplaced.exampleSearch) == 1)

        let tied = OfflineCatalog(
            directory: "/nowhere", name: "the test catalog",
            recordings: ["Spain", "United Kingdom", "united states", "France", "Spain"].enumerated().map {
                Recording(id: String($0.offset), country: $0.element)
            },
            skippedSidecars: 0)
        #expect(tied.exampleSearch == "cnt:spain", "of two countries shared by two each, the first alphabetically")
        #expect(try await count(tied, tied.exampleSearch) == 2)

        // A country that does not start with its first word ("(Spain)", an escape before it) is not suggested
        // (`cnt:` matches from the start), nor a name with a control character inside its first word: each hint
        // is tried against the catalogue first.
        let bracketed = OfflineCatalog(
            directory: "/nowhere", name: "the test catalog",
            recordings: [
                Recording(id: "1", genus: "Troglodytes", englishName: "Eura\u{7}sian Wren", country: "(Spain)"),
                Recording(id: "2", country: "\u{1B}[1mSpain"),
            ],
            skippedSidecars: 0)
        #expect(bracketed.exampleSearch == "gen:troglodytes", "the only hint of the three that finds a recording")
        #expect(try await count(bracketed, bracketed.exampleSearch) == 1)

        let empty = OfflineCatalog(directory: "/nowhere", name: "the test catalog", recordings: [], skippedSidecars: 0)
        #expect(empty.exampleSearch == "en:wren")
    }

    @Test("pages are cut at the page size and report their count")
    func paging() async throws {
        let catalog = try Demo.catalog()
        let query = try SearchQuery.parse("en:synthetic")
        let first = try await catalog.page(query: query, page: 1, perPage: 10) { _ in }
        let third = try await catalog.page(query: query, page: 3, perPage: 10) { _ in }
        let beyond = try await catalog.page(query: query, page: 4, perPage: 10) { _ in }
        #expect(first.recordings.count == 10)
        #expect(first.numPages == 3)
        #expect(first.totalRecordings == 30)
        #expect(third.recordings.last?.id == catalog.recordings.last?.id)
        #expect(beyond.recordings.isEmpty)
    }

    @Test("a tag the catalog cannot answer is refused like a bad query")
    func unsupportedTag() async throws {
        await #expect(throws: ListError.self) {
            try await Demo.catalog().page(query: SearchQuery.parse("box:1,2,3,4"), page: 1, perPage: 10) { _ in }
        }
    }

    @Test("file names that leave the folder, by name or by a link, absolute paths or odd characters are never opened")
    func hostileFileNames() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-catalog-\(UUID())")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("audio"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data([0xFF, 0xFB]).write(to: folder.appendingPathComponent("audio/ok.mp3"))
        try Data("secret".utf8).write(
            to: folder.appendingPathComponent("../chirper-outside-\(folder.lastPathComponent)"))
        defer {
            try? FileManager.default.removeItem(
                at: folder.appendingPathComponent("../chirper-outside-\(folder.lastPathComponent)"))
        }
        // A plain name inside the folder that is a link to a file outside it.
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("audio/link.mp3").path,
            withDestinationPath: folder.appendingPathComponent("../chirper-outside-\(folder.lastPathComponent)").path)
        let files = [
            "audio/ok.mp3", "../chirper-outside-\(folder.lastPathComponent)", "/etc/passwd", "audio/../../x",
            "https://example.org/a.mp3", "audio/missing.mp3", "audio/ok.mp3\u{1B}[2J", "audio/link.mp3",
        ]
        let recordings = files.enumerated().map { index, file in
            #"{"id": "T-\#(index)", "en": "Test", "file": "\#(file.replacingOccurrences(of: "\u{1B}", with: "\\u001b"))"}"#
        }
        let json =
            #"{"numRecordings": "8", "page": 1, "numPages": 1, "recordings": [\#(recordings.joined(separator: ","))]}"#
        try Data(json.utf8).write(to: folder.appendingPathComponent("catalog.json"))
        let catalog = try OfflineCatalog(directory: folder.path)
        #expect(catalog.recordings.count == files.count)
        guard case .playable(.local(let path)) = catalog.recordings[0].audio else {
            Issue.record("the plain relative file must be playable")
            return
        }
        #expect(path.hasSuffix("/audio/ok.mp3"))
        for recording in catalog.recordings.dropFirst() {
            guard case .refused(let reason) = recording.audio else {
                Issue.record("\(recording.id) must be refused, got \(recording.audio)")
                continue
            }
            #expect(!reason.isEmpty)
        }
        if case .refused(let reason) = catalog.recordings.last?.audio {
            #expect(reason.contains("outside"), "the link out of the folder: \(reason)")
        }
    }

    @Test("a catalogue folder reached through a link plays its own files")
    func folderThroughALink() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-catalog-\(UUID())")
        let folder = base.appendingPathComponent("real")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("audio"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        try Data([0xFF, 0xFB]).write(to: folder.appendingPathComponent("audio/ok.mp3"))
        let json =
            #"{"numRecordings": "1", "page": 1, "numPages": 1, "recordings": [{"id": "L-1", "en": "Test", "file": "audio/ok.mp3"}]}"#
        try Data(json.utf8).write(to: folder.appendingPathComponent("catalog.json"))
        let link = base.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder.path)
        let catalog = try OfflineCatalog(directory: link)
        guard case .playable(.local(let path)) = catalog.recordings.first?.audio else {
            Issue.record(
                "the file inside the linked folder must be playable, got \(String(describing: catalog.recordings.first?.audio))"
            )
            return
        }
        #expect(path.hasSuffix("/real/audio/ok.mp3"))
    }

    @Test("a missing or broken catalog gives a clear error naming --catalog")
    func missingCatalog() throws {
        #expect {
            try OfflineCatalog(directory: "/nonexistent/chirper")
        } throws: { error in
            (error as? ListError)?.message.contains("--catalog") == true
        }
    }
}
