import ChirperCore
import Foundation
import Testing

@testable import ChirperCatalog

@Suite("Field kit: --offline over saved and cached sidecars")
struct FieldKitCatalogTests {
    static let bunting = Recording(
        id: "254462", genus: "Passerina", species: "amoena", group: "birds", englishName: "Lazuli Bunting",
        recordist: "Jonathan Jongsma", country: "United States", soundType: "song",
        pageURL: "https://xeno-canto.org/254462", fileName: "XC254462-evil/../name.mp3",
        licenceURL: "https://creativecommons.org/licenses/by-nc-sa/4.0/", quality: "A", length: "0:31",
        background: ["Spinus tristis"],
        audio: .playable(.remote("https://xeno-canto.org/254462/download")))

    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-kit-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("the sidecar is valid JSON holding licence, recordist, page URL and fetch time")
    func sidecarHoldsLicence() throws {
        let data = Sidecar.encode(Self.bunting, audioFile: "XC254462.mp3", fetched: Date(timeIntervalSince1970: 0))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["lic"] as? String == "https://creativecommons.org/licenses/by-nc-sa/4.0/")
        #expect(object["licence"] as? String == "CC BY-NC-SA 4.0")
        #expect(object["rec"] as? String == "Jonathan Jongsma")
        #expect(object["url"] as? String == "https://xeno-canto.org/254462")
        #expect(object["fetched"] as? String == "1970-01-01T00:00:00Z")
        var boxed = Self.bunting
        boxed.annotations = [Annotation(fields: ["start": "1.5", "species": "Spinus tristis"])]
        let withBoxes = try #require(Sidecar.decode(Sidecar.encode(boxed, audioFile: "", fetched: Date())))
        #expect(withBoxes.recording.annotations == boxed.annotations)
        let back = try #require(Sidecar.decode(data))
        #expect(back.file == "XC254462.mp3")
        #expect(back.recording.background == ["Spinus tristis"])
        #expect(back.recording.licenceName == "CC BY-NC-SA 4.0")
    }

    @Test("--offline finds a saved recording by tag, playable from the saved file; bad sidecars are skipped")
    func offlineFindsSaved() async throws {
        let saved = try folder()
        let cached = try folder()
        defer {
            try? FileManager.default.removeItem(at: saved)
            try? FileManager.default.removeItem(at: cached)
        }
        try Data([0xFF, 0xFB, 0x90, 0x00]).write(to: saved.appendingPathComponent("XC254462.mp3"))
        try Sidecar.encode(Self.bunting, audioFile: "XC254462.mp3", fetched: Date())
            .write(to: saved.appendingPathComponent("XC254462.json"))
        try Data("{not json".utf8).write(to: cached.appendingPathComponent("XC1.json"))
        // A sidecar whose `file` tries to leave its folder: its own name is looked for instead (absent here),
        // so it is not listed.
        var other = Self.bunting
        other.id = "2"
        other.genus = "Turdus"
        try Sidecar.encode(other, audioFile: "../XC254462.mp3", fetched: Date())
            .write(to: cached.appendingPathComponent("XC2.json"))
        // The same recording cached too: listed once, from the saved folder.
        try Data([0xFF, 0xFB, 0x90, 0x00]).write(to: cached.appendingPathComponent("XC254462.mp3"))
        try Sidecar.encode(Self.bunting, audioFile: "", fetched: Date())
            .write(to: cached.appendingPathComponent("XC254462.json"))

        let catalog = OfflineCatalog(sidecarsIn: [saved.path, cached.path, "/nonexistent/chirper"])
        #expect(catalog.skippedSidecars == 1)
        let page = try await catalog.page(query: SearchQuery.parse("gen:passerina"), page: 1, perPage: 10) { _ in }
        #expect(page.recordings.map(\.id) == ["254462"])
        let path = saved.appendingPathComponent("XC254462.mp3").standardizedFileURL.resolvingSymlinksInPath().path
        #expect(page.recordings.first?.audio == .playable(.local(path: path)))
        let byCountry = try await catalog.page(query: SearchQuery.parse("cnt:united states"), page: 1, perPage: 10) {
            _ in
        }
        #expect(byCountry.totalRecordings == 1)
        #expect(catalog.recordings.map(\.id) == ["254462"])
    }
}
