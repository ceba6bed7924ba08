import FoundationEssentials

/// The list and its rows: state lines, rows fitted to the width, `info` and the attribution.
extension Presenter {
    // MARK: - The list

    /// Lines for a change of the list store from `old` to `new`: the state line, then any new rows.
    public func lines(list new: ListState, from old: ListState) -> [String] {
        var lines = [stateLine(new)]
        if let listing = new.listing, case .populated = new {
            lines += rowsAdded(listing, from: old)
        } else if let listing = new.listing, case .paging(_, .available) = new {
            lines += rowsAdded(listing, from: old)
        }
        if !isScript { lines += footer(new) }
        return lines.compactMap { $0 }
    }

    private func rowsAdded(_ listing: Listing, from old: ListState) -> [String] {
        // After a next page only the new rows are printed; after a search, all of them.
        var start = 0
        if case .paging(let before, .loading) = old, before.query == listing.query { start = before.rows.count }
        let passedOver = skippedLines(listing.skipped)
        guard start < listing.rows.count else { return passedOver }
        return passedOver + rows(listing.rows, from: start)
    }

    /// The one line that names the list state; in script style, `list: <case> …`.
    public func stateLine(_ state: ListState) -> String? {
        switch (style, state) {
        case (.script, .idle):
            return "list: idle"
        case (.script, .loading(let query, _, let retry)):
            return "list: loading query=\(quote(query.text))\(readingField(query))"
                + (retry.map { " " + retryFields($0) } ?? "")
        case (.script, .populated(let listing)):
            return "list: populated \(counts(listing))"
        case (.script, .paging(let listing, let next)):
            let nextField: String
            switch next {
            case .available(let page): nextField = "next=\(page)"
            case .loading(let page, let retry):
                nextField = "loading=\(page)" + (retry.map { " " + retryFields($0) } ?? "")
            case .failed(let page, let error): nextField = "failed=\(page) message=\(quote(error.message))"
            }
            return "list: paging \(counts(listing)) \(nextField)"
        case (.script, .empty(let query)):
            return "list: empty query=\(quote(query.text))\(readingField(query))"
        case (.script, .error(let query, let error, _)):
            return "list: error query=\(quote(query.text)) message=\(quote(error.message))"
        case (.terminal, .idle):
            return nil
        case (.terminal, .loading(let query, _, nil)) where query.scope != .archive:
            return block(ownFilesLoading(query), dim)
        case (.terminal, .loading(let query, _, nil)):
            if case .scientificName(let words) = query.reading {
                return block(
                    "No English name matches \(clean(words)); searching it as a scientific name: \(clean(query.text)) …",
                    dim)
            }
            return dim("Searching \(sourceName) for \(clean(query.text)) …")
        case (.terminal, .loading(_, _, let retry?)), (.terminal, .paging(_, .loading(_, let retry?))):
            return block(
                "\(clean(retry.reason)); retrying in \(retry.waitSeconds) s (\(retry.attempt) of \(retry.maxAttempts)) …",
                warn)
        case (.terminal, .paging(let listing, .loading(let page, nil))):
            return dim("Loading page \(page) of \(listing.numPages) …")
        case (.terminal, .paging(let listing, .failed(let page, let error))):
            return block(
                "Page \(page) failed: \(clean(error.message)). The \(listing.rows.count) rows loaded are kept; type next-page to retry.",
                bad)
        case (.terminal, .populated), (.terminal, .paging(_, .available)):
            return nil
        case (.terminal, .empty(let query)):
            return block(emptyLine(query), { $0 })
        case (.terminal, .error(let query, let error, let previous)):
            let kept = previous.map { " The list for \(clean($0.query.text)) is still shown." } ?? ""
            guard error.kind != .stopped else {
                return block("Search for \(clean(query.text)) stopped.\(kept)", dim)
            }
            return block("Search failed: \(clean(error.message)).\(kept)", bad)
        }
    }

    /// A state line broken between words to the width, each row styled: one string, its rows joined as the
    /// console joins lines.
    private func block(_ text: String, _ style: (String) -> String) -> String {
        wrapped(text).map(style).joined(separator: "\n")
    }

    /// What to try after a search that found nothing, in the source's own syntax.
    private func emptyLine(_ query: SearchQuery) -> String {
        if query.scope != .archive { return ownFilesEmpty(query) }
        let otherTags = query.terms.dropFirst().map { clean($0.text) }
        let fewer = otherTags.isEmpty ? "" : " Try without \(otherTags.joined(separator: " ")), or"
        let instead = otherTags.isEmpty ? " Try" : ""
        switch query.reading {
        case .scientificName(let words):
            return "No recordings match \(clean(words)) as an English name (en:) or a scientific name"
                + " (\(clean(query.terms[0].text))).\(fewer)\(instead) checking the spelling, or e.g. search \(exampleSearch)."
        case .englishName, .tagged:
            return "No recordings match \(clean(query.text)).\(fewer)\(instead) part of a name (en:warbler),"
                + " a scientific name (sp:\"larus fuscus\", gen:turdus), or e.g. search \(exampleSearch); help tags lists the tags."
        }
    }

    /// In a pipe, how the words typed were read, where the search is not the one typed.
    private func readingField(_ query: SearchQuery) -> String {
        guard case .scientificName(let words) = query.reading else { return "" }
        return " read=scientific typed=\(quote(words))"
    }

    /// The line under the rows, broken between words to fit the width.
    private func footer(_ state: ListState) -> [String] {
        switch state {
        case .populated(let listing):
            return wrapped("\(summary(listing)) · all listed · play <n> to listen, info <n> for details").map(dim)
        case .paging(let listing, .available):
            return wrapped("\(summary(listing)) · next-page for more · play <n> to listen").map(dim)
        default:
            return []
        }
    }

    private func summary(_ listing: Listing) -> String {
        let total = listing.totalRecordings
        var line = "page \(listing.pagesLoaded) of \(listing.numPages) · \(total) recording\(total == 1 ? "" : "s")"
        if case .scientificName = listing.query.reading { line += " of \(clean(listing.query.terms[0].text))" }
        return line
    }

    private func counts(_ listing: Listing) -> String {
        "rows=\(listing.rows.count) page=\(listing.pagesLoaded)/\(listing.numPages) total=\(listing.totalRecordings)"
    }

    private func retryFields(_ retry: RetryNotice) -> String {
        "retry=\(retry.attempt)/\(retry.maxAttempts) wait=\(retry.waitSeconds) reason=\(quote(retry.reason))"
    }

    /// What `list` shows: the state line and every row.
    public func listing(_ state: ListState) -> [String] {
        var lines: [String] = []
        if let listing = state.listing {
            if isScript, let line = stateLine(state) { lines.append(line) }
            lines += rows(listing.rows, from: 0)
            if !isScript { lines += footer(state) }
            if !isScript, case .paging(_, .failed) = state, let line = stateLine(state) { lines.append(line) }
            if !isScript, case .error = state, let line = stateLine(state) { lines.insert(line, at: 0) }
            if !isScript, case .loading = state, let line = stateLine(state) { lines.insert(line, at: 0) }
        } else if let line = stateLine(state) {
            lines.append(line)
        } else {
            lines.append("Nothing listed yet: \(searchFirst)")
        }
        return lines
    }

    // MARK: - Rows

    /// Rows `from`… of `recordings`, numbered from 1 across all pages.
    public func rows<Rows: RandomAccessCollection<Recording>>(_ recordings: Rows, from start: Int) -> [String]
    where Rows.Index == Int {
        let slice = recordings[start...].enumerated().map { (start + $0.offset + 1, $0.element) }
        if isScript { return slice.map(scriptRow) }
        if recordings[start].ownFile != nil {
            let table = FileRowTable(
                width: width - 1, recordings: Array(recordings[start...]),
                numberWidth: String(recordings.count).count)
            return [bold(table.header)] + slice.map { table.line(number: $0, recording: $1) }
        }
        // Widths come from the rows printed now (a page, or the whole list for `list`), so printing a page
        // costs the same however many pages came before; each block gets its own header. One column is left
        // free: a line that fills the last column makes some terminals wrap early.
        let table = RowTable(
            width: width - 1, recordings: Array(recordings[start...]), numberWidth: String(recordings.count).count)
        var lines = [bold(table.header)]
        lines += slice.map { number, recording in
            let line = table.line(number: number, recording: recording)
            return recording.playItem == nil ? dim(line) : line
        }
        return lines
    }

    /// A `row:` line, written into one string: a page of them is most of what opening a folder prints.
    private func scriptRow(number: Int, recording: Recording) -> String {
        var line = "row: n="
        line.reserveCapacity(192)
        line += String(number)
        let fields = [
            (" id=", recording.label), (" en=", recording.englishName), (" sci=", recording.scientificName),
            (" type=", recording.soundType), (" q=", recording.quality), (" length=", recording.length),
            (" cnt=", recording.country), (" rec=", recording.recordist),
        ]
        for (name, value) in fields {
            line += name
            appendQuoted(value, to: &line)
        }
        line += " audio="
        line += audioWord(recording.audio)
        if let file = recording.ownFile {
            line += " file="
            appendQuoted(file.path, to: &line)
        }
        return line
    }

    private func audioWord(_ audio: AudioAvailability) -> String {
        switch audio {
        case .playable: return "yes"
        case .restricted: return "restricted"
        case .refused: return "refused"
        }
    }

    /// Everything useful about one recording, for `info <n>`.
    public func info(_ recording: Recording, row: Int) -> [String] {
        if let file = recording.ownFile { return info(file, recording, row: row) }
        let audio: String
        switch recording.audio {
        case .playable(.remote(let url)): audio = url
        case .playable(.local(let path)):
            audio = "local file " + (path.split(separator: "/").last.map(String.init) ?? "")
        case .restricted: audio = "not downloadable (restricted species: xeno-canto hides the audio)"
        case .refused(let reason): audio = "not playable: \(reason)"
        }
        let fields: [(String, String)] = [
            ("recording", "\(recording.label) (row \(row))"),
            ("english name", recording.englishName),
            ("scientific name", recording.scientificName),
            ("group", recording.group),
            ("sound type", recording.soundType),
            ("sex", recording.sex),
            ("life stage", recording.stage),
            ("quality", recording.quality),
            ("length", recording.length),
            ("recordist", recording.recordist),
            ("country", recording.country),
            ("locality", recording.locality),
            ("coordinates", [recording.latitude, recording.longitude].filter { !$0.isEmpty }.joined(separator: ", ")),
            ("altitude", recording.altitude.isEmpty || recording.altitude == "?" ? "" : recording.altitude + " m"),
            ("date", [recording.date, recording.time].filter { !$0.isEmpty && $0 != "?" }.joined(separator: " ")),
            ("method", recording.method),
            ("background", recording.background.joined(separator: ", ")),
            ("remarks", recording.remarks),
            ("device", [recording.device, recording.microphone].filter { !$0.isEmpty }.joined(separator: " / ")),
            ("sample rate", recording.sampleRate.isEmpty ? "" : recording.sampleRate + " Hz"),
            (
                "licence",
                [recording.licenceName, recording.licenceURL].filter { !$0.isEmpty }.removingDuplicates().joined(
                    separator: " ")
            ),
            ("web page", recording.pageURL),
            ("audio", audio),
        ]
        let boxes = recording.annotations.enumerated().map { ("annotation \($0.offset + 1)", $0.element.summary) }
        let shown = (fields + boxes).filter { !$0.1.isEmpty }
        if isScript {
            return ["info: n=\(row) id=\(quote(recording.label))"]
                + shown.dropFirst().map { "info: \($0.0.replacing(" ", with: "-"))=\(quote($0.1))" }
        }
        let labelWidth = shown.map(\.0.count).max() ?? 0
        return shown.map { name, value in
            bold(name.padded(toLength: labelWidth)) + "  " + clean(value)
        }
    }

    /// The credit xeno-canto's terms ask for, shown when a recording starts; on a terminal, broken between words
    /// to fit the width.
    public func attribution(_ recording: Recording) -> [String] {
        if let file = recording.ownFile { return attribution(file, recording) }
        if isScript {
            return [
                "attribution: \(recording.label) en=\(quote(recording.englishName)) rec=\(quote(recording.recordist))"
                    + " licence=\(quote(recording.licenceName)) url=\(quote(recording.pageURL))"
            ]
        }
        func words(_ text: String) -> [String] { clean(text).split(separator: " ").map(String.init) }
        var parts = [words("\(recording.label) \(recording.englishName)")]
        if !recording.scientificName.isEmpty { parts[0] += words("(\(recording.scientificName))") }
        if !recording.recordist.isEmpty { parts.append(words("by \(recording.recordist)")) }
        // A licence's name stays on one row ("CC BY-NC-SA 4.0", not "4.0" alone).
        if !recording.licenceURL.isEmpty { parts.append([clean(recording.licenceName)]) }
        if !recording.pageURL.isEmpty { parts.append([clean(recording.pageURL)]) }
        return wrapped(words: ["♪"] + Array(parts.joined(separator: ["·"]))).map(dim)
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
