import Testing

@testable import ChirperCore

private let query = try! SearchQuery.parse("en:wren")

private func listing(_ count: Int, pages: Int = 3, loaded: Int = 1, total: Int = 120) -> Listing {
    let recordings = (1...count).map {
        Recording(
            id: String(1000 + $0), genus: "Troglodytes", species: "troglodytes", englishName: "Eurasian Wren",
            recordist: "A. Recordist", country: "Spain", soundType: "song",
            pageURL: "https://xeno-canto.org/\(1000 + $0)",
            licenceURL: "https://creativecommons.org/licenses/by-nc-sa/4.0/", quality: "A", length: "0:42",
            audio: .playable(.remote("https://xeno-canto.org/\(1000 + $0)/download")))
    }
    return Listing(
        query: query,
        page: Page(totalRecordings: total, totalSpecies: 1, page: loaded, numPages: pages, recordings: recordings))
}

@Suite("What the user sees")
struct PresenterTests {
    let script = Presenter(style: .script, sourceName: "xeno-canto")
    let terminal = Presenter(style: .terminal(color: false), width: 140, sourceName: "xeno-canto")

    @Test("each list state has one stable script line")
    func scriptLines() {
        let two = listing(2)
        #expect(script.stateLine(.idle) == "list: idle")
        #expect(
            script.stateLine(.loading(query: query, previous: nil, retry: nil)) == "list: loading query=\"en:wren\"")
        #expect(
            script.stateLine(
                .loading(
                    query: query, previous: nil,
                    retry: RetryNotice(attempt: 1, maxAttempts: 3, waitSeconds: 2, reason: "busy")))
                == "list: loading query=\"en:wren\" retry=1/3 wait=2 reason=\"busy\"")
        #expect(script.stateLine(.populated(two)) == "list: populated rows=2 page=1/3 total=120")
        #expect(
            script.stateLine(.paging(two, next: .available(page: 2))) == "list: paging rows=2 page=1/3 total=120 next=2"
        )
        #expect(
            script.stateLine(.paging(two, next: .loading(page: 2, retry: nil)))
                == "list: paging rows=2 page=1/3 total=120 loading=2")
        #expect(
            script.stateLine(.paging(two, next: .failed(page: 2, ListError(.timeout, "slow"))))
                == "list: paging rows=2 page=1/3 total=120 failed=2 message=\"slow\"")
        #expect(script.stateLine(.empty(query: query)) == "list: empty query=\"en:wren\"")
        #expect(
            script.stateLine(.error(query: query, ListError(.network, "said \"no\""), previous: nil))
                == "list: error query=\"en:wren\" message=\"said \\\"no\\\"\"")
    }

    @Test("a search read as a scientific name says so, and what it found nothing as says what to try instead")
    func scientificReadingLines() throws {
        let typed = try SearchQuery.parse("prunella modularis")
        let scientific = try #require(typed.scientificReading)
        #expect(
            terminal.stateLine(.loading(query: scientific, previous: nil, retry: nil))
                == "No English name matches prunella modularis; searching it as a scientific name: "
                + "sp:\"prunella modularis\" …")
        #expect(
            script.stateLine(.loading(query: scientific, previous: nil, retry: nil))
                == "list: loading query=\"sp:\\\"prunella modularis\\\"\" read=scientific typed=\"prunella modularis\"")
        let none = try #require(terminal.stateLine(.empty(query: scientific)))
        #expect(none.contains("as an English name (en:) or a scientific name (sp:\"prunella modularis\")"))
        let demo = Presenter(
            style: .terminal(color: false), width: 140, sourceName: "the demo", exampleSearch: "cnt:demoland")
        let tagged = try #require(demo.stateLine(.empty(query: try SearchQuery.parse("en:wren cnt:narnia"))))
        #expect(tagged.contains("Try without cnt:narnia"), "\(tagged)")
        #expect(tagged.contains("e.g. search cnt:demoland"), "names a search the source answers: \(tagged)")
        // On 80 columns the long lines break between words, continued under an indent.
        let narrow = Presenter(style: .terminal(color: false), width: 80, sourceName: "xeno-canto")
        let rows = try #require(narrow.stateLine(.empty(query: scientific))).split(separator: "\n")
        #expect(rows.count > 1 && rows.allSatisfy { $0.count < 80 }, "\(rows)")
        #expect(rows.dropFirst().allSatisfy { $0.hasPrefix("  ") && !$0.hasPrefix("   ") })
        #expect(
            rows.joined(separator: " ").split(whereSeparator: \.isWhitespace)
                == none.split(whereSeparator: \.isWhitespace),
            "no word is cut")
    }

    @Test("script values escape every quote and backslash, also a quote carrying a combining mark")
    func scriptQuoting() {
        #expect(script.quote(#"a\b"c"#) == #""a\\b\"c""#)
        #expect(script.quote("\"\u{301}x") == "\"\\\"\u{301}x\"")
        #expect(script.quote("") == "\"\"")
    }

    @Test("API text is trimmed of spaces and tabs as Foundation's .whitespaces trims, line breaks kept")
    func trimming() {
        #expect(" \t a b \u{00A0}".trimmingSpaces == "a b")
        #expect("\nx\n".trimmingSpaces == "\nx\n")
        #expect("  ".trimmingSpaces == "")
        #expect("//host/x".trimmingSpaces == "//host/x")
    }

    @Test("after a next page only the new rows are printed, numbered across pages")
    func appendedRows() {
        var store = ListStore()
        _ = store.handle(.searchSubmitted(query))
        _ = store.handle(
            .pageLoaded(
                FetchID(generation: 1, page: 1),
                .success(
                    Page(
                        totalRecordings: 4, totalSpecies: 1, page: 1, numPages: 2,
                        recordings: [Recording(id: "1"), Recording(id: "2")]))))
        _ = store.handle(.nextPageRequested)
        let before = store.state
        _ = store.handle(
            .pageLoaded(
                FetchID(generation: 1, page: 2),
                .success(
                    Page(
                        totalRecordings: 4, totalSpecies: 1, page: 2, numPages: 2,
                        recordings: [Recording(id: "3"), Recording(id: "4")]))))
        let lines = script.lines(list: store.state, from: before)
        #expect(lines.first == "list: populated rows=4 page=2/2 total=4")
        #expect(lines.dropFirst().map { $0.prefix(17) } == ["row: n=3 id=\"XC3\"", "row: n=4 id=\"XC4\""])
    }

    @Test("rows fit the terminal width, whatever it is")
    func rowsFit() {
        for width in [40, 60, 80, 100, 160] {
            let presenter = Presenter(style: .terminal(color: false), width: width, sourceName: "x")
            for line in presenter.rows(listing(12).rows, from: 0) {
                #expect(line.count <= width, "width \(width): \(line)")
            }
        }
        let wide = terminal.rows(listing(1).rows, from: 0)
        #expect(wide[0].hasPrefix("#  ID"))
        #expect(wide[1].contains("XC1001"))
        #expect(wide[1].contains("Eurasian Wren"))
        #expect(wide[1].contains("Troglodytes troglodytes"))
    }

    @Test("API text with terminal escapes is printed harmlessly in every style")
    func escapesHarmless() {
        let evil = Recording(
            id: "66", englishName: "Wren\u{1B}]0;owned\u{07}\u{1B}[2J", recordist: "\u{1B}[31mRed\u{9B}0m",
            remarks: "line\nbreak", audio: .restricted)
        let rows: [String] = script.rows([evil], from: 0) + terminal.rows([evil], from: 0)
        let details: [String] = script.info(evil, row: 1) + terminal.info(evil, row: 1)
        let lines: [String] = rows + details + script.attribution(evil) + terminal.attribution(evil)
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
        }
        #expect(script.rows([evil], from: 0)[0].contains("en=\"Wren\""))
    }

    @Test("playback lines come once per case change, not per progress tick")
    func playbackLines() {
        let item = PlayItem(label: "XC254462", location: .remote("https://x/1"), expectedDuration: 12)
        let buffering = PlaybackState.buffering(PlaybackProgress(item: item))
        let playing = PlaybackState.playing(PlaybackProgress(item: item, position: 0, duration: 12.8, buffered: 1))
        let later = PlaybackState.playing(PlaybackProgress(item: item, position: 3, duration: 12.8, buffered: 1))
        #expect(script.line(playback: buffering, from: .start) == "playback: buffering XC254462")
        #expect(
            script.line(playback: playing, from: buffering) == "playback: playing XC254462 position=0.0 duration=12.8")
        #expect(script.line(playback: later, from: playing) == nil)
        #expect(script.line(playback: .start, from: later) == "playback: idle")
        #expect(
            script.line(playback: .failed(PlaybackFailure(item: item, reason: "no sound server")), from: buffering)
                == "playback: failed XC254462 reason=\"no sound server\"")
    }

    @Test("on a terminal the ending says whether the track finished or was stopped, and where")
    func endings() {
        let terminal = Presenter(style: .terminal(color: false), width: 100, sourceName: "xeno-canto")
        let item = PlayItem(label: "XC254462", location: .remote("https://x/1"), expectedDuration: 12)
        let playing = PlaybackState.playing(PlaybackProgress(item: item, position: 11.9, duration: 12, buffered: 0))
        let finished = PlaybackEnding(item: item, ticket: PlaybackTicket(1), position: 12, reason: .finished)
        let stopped = PlaybackEnding(item: item, ticket: PlaybackTicket(1), position: 3.2, reason: .stopped)
        #expect(terminal.line(playback: .idle(finished), from: playing) == "■ XC254462 finished (0:12)")
        #expect(terminal.line(playback: .idle(stopped), from: playing) == "■ XC254462 stopped at 0:03")
        #expect(script.line(playback: .idle(finished), from: playing) == "playback: idle")
    }

    @Test("the status line shows state, time, a bar and the buffer, within the width")
    func statusLine() {
        let item = PlayItem(label: "XC1", location: .remote("https://x/1"))
        let state = PlaybackState.playing(PlaybackProgress(item: item, position: 65, duration: 130, buffered: 1.5))
        let status = terminal.status(state, title: "Eurasian Wren")
        #expect(status?.contains("playing XC1 Eurasian Wren 1:05 / 2:10") == true)
        #expect(status?.contains("buf 1.5 s") == true)
        #expect(status?.contains("[###") == true)
        #expect(script.status(state) == nil)
        #expect(terminal.status(.start) == nil)
        for width in [30, 50, 80] {
            let narrow = Presenter(style: .terminal(color: false), width: width, sourceName: "x")
            #expect((narrow.status(state, title: "A very long English name indeed")?.count ?? 0) <= width)
        }
    }
}
