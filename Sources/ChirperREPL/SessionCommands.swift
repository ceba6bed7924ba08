import ChirperCatalog
import ChirperCore

/// What each typed command decides, as part of the session machine.
extension SessionMachine {
    mutating func execute(_ line: String) {
        let command: Command
        do {
            command = try CommandParser.parse(line)
        } catch {
            // While a quiz question is open, a number or a name that is no command answers it; once answered, a
            // command typed wrong is told its own mistake, not that the question is answered.
            let word = line.split(separator: " ").first.map { $0.lowercased() } ?? ""
            let isCommandWord = CommandParser.commands.contains { $0.name == word || $0.aliases.contains(word) }
            if quiz.machine.openQuestion != nil || (quiz.machine.answeredOutcome != nil && !isCommandWord) {
                run(quiz: .answer(line))
            } else if error.kind == .searchWithoutWords {
                refuse(presenter.searchNeedsWords)
            } else {
                refuse(error.description)
            }
            return
        }
        switch command {
        case .nothing:
            // After a quiz answer, Enter asks the next question.
            if quiz.machine.answeredOutcome != nil { run(quiz: .next) }
        case .quit:
            leave(0)
        case .help(let topic):
            say(Help.lines(topic: topic, columns: setup.interactive ? columns - 1 : nil))
        case .search(let query):
            search(query)
        case .open(let paths):
            search(.open(paths.map(expandingHome)))
        case .nextPage:
            ask(.nextPage)
        case .list:
            say(presenter.listing(list))
        case .info(let row):
            if let recording = recording(at: row, for: "info") { say(presenter.info(recording, row: row)) }
        case .play(let row):
            play(row: row)
        // The player's machine decides (it is ahead of the rendered state by the events still queued, so a
        // `stop` right after `play` stops it) and says why when it refuses.
        case .stop:
            run(queue: .stop)
            // Between two sides of A/B nothing plays: the stop was A/B's, and the player has nothing to refuse.
            guard run(ab: .stop) != .stoppedBetweenSides else { break }
            ask(.stop(.command))
        case .playRows(let text):
            run(ab: .stop)
            guard let rows = rows(text, for: "play") else { break }
            let items = rows.map { QueueItem(row: $0, recording: list.rows[$0 - 1]) }
                .filter { $0.recording.playItem != nil }
            run(queue: .enqueue(items))
        case .next:
            if quiz.machine.answeredOutcome != nil {
                run(quiz: .next)
                break
            }
            run(ab: .stop)
            run(queue: .next)
        case .prev:
            run(ab: .stop)
            run(queue: .prev)
        case .autoplay(let on):
            run(queue: .autoplay(on))
        case .cite(let row):
            if let recording = recording(at: row, for: "cite") {
                say(presenter.cite(Citation(recording), label: recording.label))
            }
        case .also(let row, let choice):
            guard let recording = recording(at: row, for: "also") else { break }
            switch BackgroundSearch.query(for: recording, row: row, choice: choice) {
            case .success(let query): search(query)
            case .failure(let refusal): refuse(refusal.description)
            }
        case .save(let text, let directory):
            guard let rows = rows(text, for: "save") else { break }
            // The items carry their recordings: a new search while the batch runs does not change what it saves.
            let all = rows.map { QueueItem(row: $0, recording: list.rows[$0 - 1]) }
            // A file of one's own is already on disk: there is nothing to download.
            for item in all { if let file = item.recording.ownFile { refuse(Self.ownFileSave(file)) } }
            let items = all.filter { $0.recording.ownFile == nil }
            guard !items.isEmpty else { break }
            let folder = directory.map(expandingHome) ?? setup.saveDirectory
            run(saves: .start(items, directory: folder))
        case .pause:
            ask(.control(.pause))
        case .resume:
            ask(.control(.resume))
        case .seek(let time):
            ask(.control(.seek(time)))
        case .loop(let a, let b):
            ask(.control(.loop(a, b)))
        case .loopOff:
            ask(.control(.loopOff))
        case .loopAnnotation(let k):
            loopAnnotation(k)
        case .speed(let speed?):
            ask(.control(.speed(speed)))
        case .speed(nil):
            ask(.control(.settings))
        case .volume(let percent):
            ask(.control(.volume(percent)))
        case .channel(let channel):
            chooseChannel(channel)
        case .mute:
            ask(.control(.muted(true)))
        case .unmute:
            ask(.control(.muted(false)))
        case .graphics(let mode):
            run(sonograms: .graphics(mode, playback))
        case .select(let request):
            select(request)
        case .measure(let request):
            measure(request)
        case .compare(let items):
            compare(items)
        case .ab(let request):
            listenAB(request)
        case .identify(let request):
            identify(request)
        case .quiz(let request):
            run(quiz: .command(request))
        case .answer(let text):
            run(quiz: .answer(text))
        case .skip:
            run(quiz: .skip)
        case .replay:
            run(quiz: .replay)
        case .sono(.draw(let draw)):
            drawSonogram(draw)
        case .sono(.strip(let on, let lines, let band)):
            run(sonograms: .strip(on: on, lines: lines, band: band, playback))
        case .wait where queue.state.isPlaying:
            // A queue plays on: wait for its end.
            hold(.queueEnds)
        case .wait:
            // Waits for the last play request unless the rendered state already shows it ended.
            if let ticket = playing?.ticket, playback.isActive || !(playback.ticket.map { $0 >= ticket } ?? false) {
                hold(.playbackEnds(ticket))
            }
        }
    }

    /// A new search (typed, or `also`): the queue's rows no longer mean anything.
    mutating func search(_ query: SearchQuery) {
        run(queue: .listReplaced)
        ask(.search(query))
    }

    mutating func play(row: Int) {
        guard let recording = recording(at: row, for: "play") else { return }
        switch recording.audio {
        case .playable:
            // A single play replaces the queue, and ends A/B listening.
            run(ab: .stop)
            run(queue: .listReplaced)
            if let item = recording.playItem { ask(.play(item, recording, forQueue: false)) }
        case .restricted:
            refuse("row \(row) (\(recording.label)) is restricted: \(presenter.sourceName) does not offer its audio")
        case .refused(let reason):
            refuse("row \(row) (\(recording.label)) cannot be played: \(reason)")
        }
    }

    /// `sono [n] [band] [window]`: computed off the event loop; a script waits for the picture before its next
    /// line. With no row it draws what plays (its loop's section while a loop is set).
    private mutating func drawSonogram(_ draw: SonogramDraw) {
        let recording: Recording
        var window = draw.window
        if let row = draw.row {
            guard let found = self.recording(at: row, for: "sono") else { return }
            recording = found
        } else {
            guard let playing, playback.isActive, playback.ticket == playing.ticket else {
                refuse("nothing is playing: sono <n> draws row n, e.g. sono 1")
                return
            }
            recording = playing.recording
            if window == nil, let loop = playback.progress?.loop {
                window = TimeSpan(start: loop.start, end: loop.end)
            }
        }
        guard let item = studied(recording, name: draw.row.map { "row \($0)" } ?? "the recording playing") else {
            return
        }
        // An open quiz question's length is not said: it could tell which recording it is.
        let masked = draw.row == nil && playing?.masked == true
        var asked = draw
        asked.png = draw.png.map(expandingHome)
        run(
            sonograms: .draw(
                asked, recording, item, window: window, masked: masked, heard: identification.heard(in: recording)))
    }

    /// Row `row`'s recording if it has audio to study, or nil after one line saying why.
    mutating func recordingToStudy(row: Int, for command: String) -> Recording? {
        guard let recording = recording(at: row, for: command) else { return nil }
        return studied(recording, name: "row \(row)") == nil ? nil : recording
    }

    /// The audio of `recording` (named `name` in lines), or nil after one line saying why there is none.
    private mutating func studied(_ recording: Recording, name: String) -> PlayItem? {
        guard case .playable = recording.audio, let item = recording.playItem else {
            let why: String
            switch recording.audio {
            case .restricted: why = "is restricted: \(presenter.sourceName) does not offer its audio"
            case .refused(let reason): why = "cannot be decoded: \(reason)"
            case .playable: why = "has no audio"
            }
            refuse("\(name) (\(recording.label)) \(why)")
            return nil
        }
        return item
    }

    /// `loop ann <k>`: loops box k of the last recording asked for; the player refuses when it no longer plays
    /// (it is ahead of the rendered state, as for `stop`).
    private mutating func loopAnnotation(_ k: Int) {
        guard let recording = playing?.recording else {
            refuse("nothing is playing: play a row, then loop ann <k>")
            return
        }
        let boxes = recording.annotations
        guard !boxes.isEmpty else {
            refuse("\(recording.label) has no annotation boxes")
            return
        }
        guard k <= boxes.count else {
            refuse("\(recording.label) has \(boxes.count) annotation boxes, not \(k); info lists them")
            return
        }
        guard let span = boxes[k - 1].span else {
            refuse("annotation box \(k) of \(recording.label) has no start and end time to loop")
            return
        }
        ask(.control(.loop(.absolute(span.start), .absolute(span.end))))
    }

    // MARK: - Rows

    /// The rows a selection names, or nil after one line saying why.
    private mutating func rows(_ text: String, for command: String) -> [Int]? {
        guard !list.rows.isEmpty else {
            refuse("no rows yet: \(presenter.searchFirst)")
            return nil
        }
        do {
            return try RowSelection.parse(text, count: list.rows.count)
        } catch {
            refuse("\(command): \(error.description)")
            return nil
        }
    }

    private mutating func recording(at row: Int, for command: String) -> Recording? {
        let rows = list.rows
        guard !rows.isEmpty else {
            refuse("no rows yet: \(presenter.searchFirst)")
            return nil
        }
        guard row <= rows.count else {
            let more = list.hasMorePages ? " (next-page loads more)" : ""
            refuse("there is no row \(row): rows 1-\(rows.count) are listed\(more)")
            return nil
        }
        return rows[row - 1]
    }

    static func ownFileSave(_ file: OwnFile) -> String {
        "\(file.name) is your own file, already on disk at \(file.path): save downloads xeno-canto recordings only"
    }

    func expandingHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return setup.homeDirectory + path.dropFirst()
    }
}
