import Testing

@testable import ChirperCore

@Suite("Search queries")
struct SearchQueryTests {
    @Test(
        "typed text becomes xeno-canto's tagged syntax",
        arguments: [
            ("wren", "en:wren"),
            ("common blackbird", "en:\"common blackbird\""),
            ("gen:turdus cnt:spain", "gen:turdus cnt:spain"),
            ("sp:\"larus fuscus\"", "sp:\"larus fuscus\""),
            ("blackbird cnt:united kingdom", "en:blackbird cnt:\"united kingdom\""),
            ("q:\"<C\" type:song", "q:\"<C\" type:song"),
            ("q:<C", "q:\"<C\""),
            ("len:>120", "len:\">120\""),
            ("EN:Wren", "en:Wren"),
            ("en:\"=lesser black-backed gull\"", "en:\"=lesser black-backed gull\""),
            ("box:-1.16,94.62,6.34,106.48 grp:grasshoppers", "box:-1.16,94.62,6.34,106.48 grp:grasshoppers"),
            ("  wren   cnt:spain  ", "en:wren cnt:spain"),
        ])
    func normalises(input: String, expected: String) throws {
        #expect(try SearchQuery.parse(input).text == expected)
    }

    @Test("a quoted value ends the tag: later bare words are English-name words")
    func quotedValueCloses() throws {
        let query = try SearchQuery.parse("cnt:\"united kingdom\" wren")
        #expect(query.terms == [.init(tag: "en", value: "wren"), .init(tag: "cnt", value: "united kingdom")])
    }

    @Test("empty input, unknown tags, empty values and open quotes are refused with a hint")
    func refusals() {
        #expect(throws: SearchQuery.ParseError.empty) { try SearchQuery.parse("   ") }
        #expect(throws: SearchQuery.ParseError.unknownTag("colour")) { try SearchQuery.parse("colour:red") }
        #expect(throws: SearchQuery.ParseError.emptyValue("cnt")) { try SearchQuery.parse("cnt:") }
        #expect(throws: SearchQuery.ParseError.unbalancedQuote) { try SearchQuery.parse("en:\"wren") }
        #expect(SearchQuery.ParseError.unknownTag("colour").description.contains("known tags: en gen sp"))
    }

    @Test("the value of a tag can be read back")
    func valueOf() throws {
        let query = try SearchQuery.parse("robin cnt:spain")
        #expect(query.value(of: "cnt") == "spain")
        #expect(query.value(of: "en") == "robin")
        #expect(query.value(of: "q") == nil)
    }
}

@Suite("Terminal text")
struct TerminalTextTests {
    @Test(
        "escape sequences and control characters are removed whole",
        arguments: [
            ("plain", "plain"),
            ("\u{1B}[31mred\u{1B}[0m", "red"),
            ("a\u{1B}]0;evil title\u{07}b", "ab"),
            ("a\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\b", "alinkb"),
            ("bell\u{07}s", "bells"),
            ("line\nbreak\r\ttab", "line break tab"),
            ("c1\u{9B}2Jcsi", "c1csi"),
            ("clear\u{1B}cscreen", "clearscreen"),
            ("bidi\u{202E}txet", "biditxet"),
            ("Brünnich's café", "Brünnich's café"),
            ("del\u{7F}ete", "delete"),
            ("trailing\u{1B}", "trailing"),
        ])
    func sanitises(input: String, expected: String) {
        #expect(TerminalText.sanitize(input) == expected)
    }
}

@Suite("Recordings")
struct RecordingTests {
    @Test("numeric ids get the XC prefix, others are shown as they are")
    func labels() {
        #expect(Recording(id: "254462").label == "XC254462")
        #expect(Recording(id: "DEMO-07").label == "DEMO-07")
    }

    @Test("lengths parse from m:ss and h:mm:ss, and nonsense gives nil")
    func lengths() {
        #expect(Recording(id: "1", length: "0:07").lengthSeconds == 7)
        #expect(Recording(id: "1", length: "12:30").lengthSeconds == 750)
        #expect(Recording(id: "1", length: "1:02:03").lengthSeconds == 3723)
        #expect(Recording(id: "1", length: "?").lengthSeconds == nil)
        #expect(Recording(id: "1", length: "").lengthSeconds == nil)
    }

    @Test("licence URLs get short names")
    func licenceNames() {
        #expect(Licence.name(for: "https://creativecommons.org/licenses/by-nc-sa/4.0/") == "CC BY-NC-SA 4.0")
        #expect(Licence.name(for: "//creativecommons.org/licenses/by-nc-nd/2.5/") == "CC BY-NC-ND 2.5")
        #expect(Licence.name(for: "https://creativecommons.org/publicdomain/zero/1.0/") == "CC0 1.0")
        #expect(Licence.name(for: "something else") == "something else")
    }

    @Test("only restricted-free, http(s) recordings give a play item")
    func playItems() {
        let playable = Recording(
            id: "5", length: "0:04", audio: .playable(.remote("https://xeno-canto.org/5/download")))
        #expect(
            playable.playItem
                == PlayItem(label: "XC5", location: .remote("https://xeno-canto.org/5/download"), expectedDuration: 4))
        #expect(Recording(id: "6", audio: .restricted).playItem == nil)
        #expect(Recording(id: "7", audio: .refused("no")).playItem == nil)
    }
}
