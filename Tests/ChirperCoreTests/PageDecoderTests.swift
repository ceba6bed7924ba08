import Foundation
import Testing

@testable import ChirperCore

/// The real xeno-canto replies beside the repository (`../shared/xeno-canto/api`), when present.
enum SharedFixtures {
    static let apiFolder: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/xeno-canto/api")

    static var available: Bool { FileManager.default.fileExists(atPath: apiFolder.path) }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: apiFolder.appendingPathComponent(name))
    }
}

@Suite("Decoding pages")
struct PageDecoderTests {
    @Test("numbers as strings or numbers, nulls and missing fields are all accepted")
    func tolerant() throws {
        let json = """
            {"numRecordings": "3", "numSpecies": 2, "page": "1", "numPages": 1, "recordings": [
              {"id": "1", "gen": "Troglodytes", "sp": "troglodytes", "en": "Eurasian Wren", "lat": null,
               "lon": 4.5, "file": "https://xeno-canto.org/1/download", "length": "0:12", "q": "A",
               "url": "//xeno-canto.org/1", "lic": "//creativecommons.org/licenses/by-nc-sa/4.0/", "also": null},
              {"id": 2, "en": null, "group": "birds", "lng": "-3.2", "bird-seen": "yes", "file": ""},
              {"en": "no id, dropped"},
              "not even an object"
            ]}
            """
        let page = try PageDecoder.decode(Array(json.utf8))
        #expect(page.totalRecordings == 3)
        #expect(page.totalSpecies == 2)
        #expect(page.recordings.count == 2)
        let first = page.recordings[0]
        #expect(first.latitude == "")
        #expect(first.longitude == "4.5")
        #expect(first.pageURL == "https://xeno-canto.org/1")
        #expect(first.licenceURL == "https://creativecommons.org/licenses/by-nc-sa/4.0/")
        #expect(first.audio == .playable(.remote("https://xeno-canto.org/1/download")))
        let second = page.recordings[1]
        #expect(second.id == "2")
        #expect(second.group == "birds", "v2's group is read as grp")
        #expect(second.longitude == "-3.2", "v2's lng is read as lon")
        #expect(second.animalSeen == "yes")
        #expect(second.audio == .restricted)
    }

    @Test(
        "only http(s) audio addresses are playable",
        arguments: [
            ("https://xeno-canto.org/1/download", true),
            ("//xeno-canto.org/1/download", true),
            ("http://example.org/a.mp3", true),
            ("file:///etc/passwd", false),
            ("ftp://example.org/a.mp3", false),
            ("javascript:alert(1)", false),
            ("../../etc/passwd", false),
            ("/etc/passwd", false),
        ])
    func schemes(file: String, playable: Bool) {
        let availability = PageDecoder.availability(ofFile: file)
        if playable {
            #expect(availability == .playable(.remote(PageDecoder.absoluteURL(file))))
        } else if case .refused(let reason) = availability {
            #expect(!reason.isEmpty)
        } else {
            Issue.record("\(file) must be refused, got \(availability)")
        }
    }

    @Test("bad replies give a reason, not a crash")
    func badReplies() {
        let cases: [(String, String)] = [
            ("", "not valid JSON"),
            ("<html><body>502 Bad Gateway</body></html>", "not valid JSON"),
            ("{\"numRecordings\": \"5\", \"recordings\": [{\"id\": \"1\"", "not valid JSON"),
            ("{\"numRecordings\": \"5\"}", "no \"recordings\" list"),
            ("[1, 2, 3]", "unexpected shape"),
            ("{\"recordings\": {\"id\": 1}}", "unexpected shape"),
        ]
        for (body, reason) in cases {
            #expect(throws: PageDecodingError.self) { try PageDecoder.decode(Array(body.utf8)) }
            do {
                _ = try PageDecoder.decode(Array(body.utf8))
            } catch {
                #expect(error.description.contains(reason), "\(body.prefix(30)): \(error.description)")
            }
        }
    }

    @Test("invalid UTF-8 is replaced, not fatal")
    func invalidUTF8() throws {
        var bytes = Array(#"{"recordings": [{"id": "1", "en": "Wr"#.utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array(#"en"}]}"#.utf8)
        let page = try PageDecoder.decode(bytes)
        #expect(page.recordings.first?.englishName == "Wr\u{FFFD}\u{FFFD}en")
    }

    @Test("error messages are read from the flat v3 form and the documented nested form")
    func errorForms() {
        #expect(PageDecoder.errorMessage(Array(#"{"error": "client_error", "message": "Bad key"}"#.utf8)) == "Bad key")
        #expect(
            PageDecoder.errorMessage(Array(#"{"error": {"code": "missing_parameter", "message": "No query"}}"#.utf8))
                == "No query")
        #expect(PageDecoder.errorMessage(Array(#"{"error": {"code": "only_code"}}"#.utf8)) == "only_code")
        #expect(PageDecoder.errorMessage(Array("<html>oops</html>".utf8)) == nil)
    }

    @Test("deeply nested and huge replies are refused or read without crashing")
    func hostileShapes() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: PageDecodingError.self) { try PageDecoder.decode(Array(deep.utf8)) }
        let huge = #"{"recordings": [{"id": "1", "en": ""# + String(repeating: "A", count: 1_000_000) + #""}]}"#
        #expect((try? PageDecoder.decode(Array(huge.utf8)))?.recordings.first?.englishName.count == 1_000_000)
    }
}

@Suite(
    "Real xeno-canto replies", .enabled(if: SharedFixtures.available, "../shared/xeno-canto/api is absent: skipped"))
struct RealRepliesTests {
    @Test("every real reply's rows, kept in a list, read back whole")
    func packedRealRows() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: SharedFixtures.apiFolder.path)
        var checked = 0
        for name in names where name.hasSuffix(".json") {
            guard let page = try? PageDecoder.decode(try SharedFixtures.data(name)) else { continue }
            var list = RowList()
            list.append(page: page.recordings)
            #expect(Array(list) == page.recordings, "\(name)")
            checked += page.recordings.count
        }
        #expect(checked > 500)
    }

    @Test("the 2026 multipage Sylviidae page decodes with its key fields")
    func sylviidae() throws {
        let page = try PageDecoder.decode(
            try SharedFixtures.data("v3-multipage-fam-sylviidae-page1-of-418-per_page50-2026-04.json"))
        #expect(page.page == 1)
        #expect(page.numPages == 418)
        #expect(page.recordings.count == 50)
        #expect(page.totalRecordings > 20_000)
        for recording in page.recordings {
            #expect(!recording.id.isEmpty)
            #expect(!recording.genus.isEmpty)
            #expect(recording.lengthSeconds != nil, "\(recording.id) length \(recording.length)")
            #expect(recording.licenceURL.hasPrefix("https://"))
            #expect(recording.pageURL.hasPrefix("https://xeno-canto.org/"))
            if case .playable(.remote(let url)) = recording.audio {
                #expect(url.hasPrefix("https://"))
            } else {
                Issue.record("\(recording.id) should be playable")
            }
        }
        #expect(page.recordings.contains { $0.fileName.lowercased().hasSuffix(".wav") })
        #expect(page.recordings.contains { $0.latitude.isEmpty }, "one record has a null lat")
    }

    @Test("the single Lazuli Bunting reply decodes with its fields")
    func lazuli() throws {
        let page = try PageDecoder.decode(try SharedFixtures.data("v3-single-result-XC254462-lazuli-bunting.json"))
        #expect(page.recordings.count == 1)
        let recording = try #require(page.recordings.first)
        #expect(recording.label == "XC254462")
        #expect(recording.englishName == "Lazuli Bunting")
        #expect(recording.scientificName == "Passerina amoena")
        #expect(recording.sex == "male, female")
        #expect(recording.playItem != nil)
    }

    @Test("the v2 Puerto Rico page decodes, restricted species listed but not playable")
    func puertoRico() throws {
        let page = try PageDecoder.decode(
            try SharedFixtures.data("v2-search-puerto-rico-470-recordings-single-page-compact.json"))
        #expect(page.totalRecordings == 470)
        #expect(page.recordings.count == 470)
        let restricted = page.recordings.filter { $0.audio == .restricted }
        #expect(restricted.count == 12)
        #expect(restricted.allSatisfy { $0.englishName == "Puerto Rican Amazon" })
        #expect(page.recordings.filter { $0.fileName.lowercased().hasSuffix(".wav") }.count == 31)
        #expect(page.recordings.contains { $0.group.isEmpty && $0.englishName == "Soundscape" })
        #expect(page.recordings.contains { !$0.longitude.isEmpty }, "v2's lng is read")
    }

    @Test("the documented recording object decodes")
    func docsObject() throws {
        let data = try SharedFixtures.data("docs-v3-recording-object-XC694038.json")
        let wrapped = #"{"recordings": ["# + String(decoding: data, as: UTF8.self) + "]}"
        let recording = try #require(try PageDecoder.decode(Array(wrapped.utf8)).recordings.first)
        #expect(recording.id == "694038")
        #expect(!recording.englishName.isEmpty)
        #expect(recording.pageURL.hasPrefix("https:"))
    }

    @Test("both error bodies give their message")
    func errors() throws {
        #expect(
            PageDecoder.errorMessage(try SharedFixtures.data("v3-error-401-missing-or-invalid-key.json"))?
                .hasPrefix("Missing or invalid 'key' parameter") == true)
        #expect(
            PageDecoder.errorMessage(try SharedFixtures.data("docs-error-400-missing-parameter.json"))
                == "No query specified")
    }
}
