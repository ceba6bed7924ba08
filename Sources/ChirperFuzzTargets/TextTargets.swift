import ChirperCore

extension FuzzTarget {
    /// What the API and the user type: the page decoder (and everything shown from it), the command and query
    /// parsers, the sanitiser.
    static let textTargets: [FuzzTarget] = [
        FuzzTarget(name: "page", summary: "xeno-canto's JSON page, and every line shown from it") { input in
            if let page = try? PageDecoder.decode(input) {
                let presenter = Presenter(style: .terminal(color: true), width: 80, sourceName: "fuzz")
                _ = presenter.rows(page.recordings, from: 0)
                for (index, recording) in page.recordings.prefix(4).enumerated() {
                    _ = presenter.info(recording, row: index + 1)
                    _ = Presenter(style: .script, sourceName: "fuzz").attribution(recording)
                }
            }
            _ = PageDecoder.errorMessage(input)
        },
        FuzzTarget(name: "command", summary: "a typed line and its completion") { input in
            let text = String(decoding: input, as: UTF8.self)
            _ = try? CommandParser.parse(text)
            _ = Completion.candidates(lineBeforeCursor: text)
        },
        FuzzTarget(name: "query", summary: "a search query") { input in
            if let query = try? SearchQuery.parse(String(decoding: input, as: UTF8.self)) { _ = query.text }
        },
        FuzzTarget(name: "sanitise", summary: "text from the API made safe for a terminal") { input in
            let text = String(decoding: input, as: UTF8.self)
            _ = TerminalText.sanitize(text)
            _ = PageDecoder.availability(ofFile: text)
        },
    ]
}
