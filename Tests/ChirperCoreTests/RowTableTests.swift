import Foundation
import Testing

@testable import ChirperCore

/// The real Puerto Rico page (470 recordings of 75 species), decoded as the list gets it.
private func puertoRico() throws -> [Recording] {
    try PageDecoder.decode(try SharedFixtures.data("v2-search-puerto-rico-470-recordings-single-page-compact.json"))
        .recordings
}

private func table(_ width: Int, _ recordings: [Recording]) -> [String] {
    Presenter(style: .terminal(color: false), width: width, sourceName: "xeno-canto").rows(recordings, from: 0)
}

/// The row's value for `title`: the text under the header's title, up to the next column (or the end).
private func cell(_ title: String, header: String, row: String) -> String? {
    guard let start = header.range(of: title)?.lowerBound else { return nil }
    let offset = header.distance(from: header.startIndex, to: start)
    let rest = row.dropFirst(offset)
    return rest.components(separatedBy: "  ").first.map { String($0) }
}

@Suite(
    "The list's columns on the real Puerto Rico page",
    .enabled(if: SharedFixtures.available, "../shared/xeno-canto/api is absent: skipped"))
struct RowTableTests {
    @Test("at 80 columns every English and scientific name of up to 24 letters is shown whole, and the length")
    func eightyColumns() throws {
        let recordings = try puertoRico()
        let lines = table(80, recordings)
        let header = lines[0]
        #expect(header.hasPrefix("  #  ID        English name"), "\(header)")
        #expect(header.contains("Scientific name"))
        #expect(header.contains("Len"))
        for (recording, line) in zip(recordings, lines.dropFirst()) {
            #expect(line.count <= 79, "\(line.count) columns: \(line)")
            let english = try #require(cell("English name", header: header, row: line))
            if case .playable = recording.audio, recording.englishName.count <= 24 {
                #expect(english == recording.englishName, "\(line)")
            }
            if recording.scientificName.count <= 24 {
                #expect(cell("Scientific name", header: header, row: line) == recording.scientificName, "\(line)")
            }
            #expect(line.hasSuffix(recording.length), "\(line)")
        }
        #expect(lines.contains { $0.contains("  Melanerpes portoricensis  ") })
        #expect(lines.contains { $0.contains("  Puerto Rican Woodpecker  ") })
    }

    @Test("wider terminals add the type, then the country, then the recordist, the names staying whole")
    func widerTerminals() throws {
        let recordings = try puertoRico()
        for (width, titles, missing) in [
            (100, ["Type", "Q", "Len", "Country"], ["Recordist"]),
            (120, ["Type", "Q", "Len", "Country", "Recordist"], []),
        ] {
            let lines = table(width, recordings)
            let header = lines[0]
            for title in titles { #expect(header.contains(title), "\(width): \(header)") }
            for title in missing { #expect(!header.contains(title), "\(width): \(header)") }
            for (recording, line) in zip(recordings, lines.dropFirst()) {
                #expect(line.count < width, "\(width): \(line)")
                if case .playable = recording.audio, recording.englishName.count <= 24 {
                    #expect(cell("English name", header: header, row: line) == recording.englishName, "\(line)")
                }
                if recording.scientificName.count <= 24 {
                    #expect(cell("Scientific name", header: header, row: line) == recording.scientificName)
                }
                #expect(cell("Country", header: header, row: line) == "Puerto Rico", "\(width): \(line)")
            }
        }
    }

    @Test("the 2026 Sylviidae page at 80 columns keeps its names whole too")
    func sylviidae() throws {
        let recordings = try PageDecoder.decode(
            try SharedFixtures.data("v3-multipage-fam-sylviidae-page1-of-418-per_page50-2026-04.json")
        ).recordings
        let lines = table(80, recordings)
        for (recording, line) in zip(recordings, lines.dropFirst()) {
            #expect(line.count <= 79, "\(line)")
            if recording.englishName.count <= 24 {
                #expect(cell("English name", header: lines[0], row: line) == recording.englishName, "\(line)")
            }
        }
    }
}

@Suite("Lines broken between words")
struct WrappingTests {
    @Test("at 80 columns a long attribution breaks between words, every row within 79 columns")
    func attribution() {
        let recording = Recording(
            id: "373562", genus: "Contopus", species: "latirostris", englishName: "Lesser Antillean Pewee",
            recordist: "Orlando A. Acevedo-Charry", pageURL: "https://xeno-canto.org/373562",
            licenceURL: "https://creativecommons.org/licenses/by-nc-sa/4.0/")
        let presenter = Presenter(style: .terminal(color: false), width: 80, sourceName: "xeno-canto")
        let rows = presenter.attribution(recording)
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.allSatisfy { $0.count <= 79 }, "\(rows)")
        #expect(rows.dropFirst().allSatisfy { $0.hasPrefix("  ") && !$0.hasPrefix("   ") })
        let words = rows.flatMap { $0.split(separator: " ") }.joined(separator: " ")
        let whole = Presenter(style: .terminal(color: false), width: 400, sourceName: "xeno-canto")
            .attribution(recording)
        #expect(whole.count == 1)
        #expect(words == whole[0], "no word is cut")
        #expect(Presenter(style: .script, sourceName: "x").attribution(recording).count == 1)
    }

    @Test("a licence's name is never broken across rows")
    func licence() {
        let recording = Recording(
            id: "DEMO-24", genus: "Artificialis", species: "pipiens", englishName: "Synthetic chirp sequence",
            recordist: "chirper-play demo generator",
            licenceURL: "https://creativecommons.org/publicdomain/zero/1.0/")
        let presenter = Presenter(style: .terminal(color: false), width: 100, sourceName: "x")
        #expect(
            presenter.attribution(recording) == [
                "♪ DEMO-24 Synthetic chirp sequence (Artificialis pipiens) · by chirper-play demo generator ·",
                "  CC0 1.0",
            ])
    }

    @Test("a word wider than a row stays whole on a row of its own")
    func longWord() {
        let presenter = Presenter(style: .terminal(color: false), width: 20, sourceName: "x")
        let rows = presenter.wrapped("see https://xeno-canto.org/explore/api for more")
        #expect(rows == ["see", "  https://xeno-canto.org/explore/api", "  for more"])
    }
}
