import ChirperCatalog
import ChirperCore
import Foundation

/// The read-eval-print loop: one event loop that takes typed lines, list changes, playback changes and
/// Ctrl-C, in order, and renders every change through the ``Presenter``. Nothing else prints.
public actor REPL {
    public enum Event: Sendable {
        case line(String)
        case inputEnded
        case list(ListState)
        case playback(PlaybackState)
        case interrupt
        /// SIGTERM or SIGHUP: leave as `quit` does (playback stopped, the terminal restored, what the caller
        /// still writes written), ending with `status`.
        case terminate(status: Int32)
        /// A `sono <n>` finished: its lines, or its one-line failure.
        case sonogram(Result<[String], SonogramFailure>)
        /// A save of batch `batch` made progress, or ended.
        case saveProgress(batch: Int, SaveProgress)
        case saveEnded(batch: Int, SaveOutcome)
        /// One line from the play cache (a rebuilt index, a folder that cannot be written).
        case cacheNotice(String)
        /// The live strip's picture of play request `ticket`, or why there is none.
        case stripPicture(PlaybackTicket, Result<Sonogram, SonogramFailure>)
    }

    /// Why a sonogram could not be drawn, as the line to show.
    public struct SonogramFailure: Error, Sendable {
        var message: String
    }

    let console: any Console
    private let list: ListController
    let player: any PlaybackControl
    let sonograms: any SonogramSource
    /// The `sono <n>` being computed (one at a time; a new one replaces it).
    var sonogramTask: Task<Void, Never>?
    let fieldKit: FieldKit
    /// The play queue (pure): it knows the play request of the item it started, whose end advances it.
    var queue = PlayQueueMachine()
    /// `save` (pure), and the task saving its current item.
    private var saves = SaveBatchMachine()
    var saveTask: Task<Void, Never>?
    /// The live sonogram strip (`sono on|off`) and the computation of its picture.
    private var strip = SonogramStripMachine()
    var stripTask: Task<Void, Never>?
    var presenter: Presenter
    private let events: AsyncStream<Event>
    let eventSink: AsyncStream<Event>.Continuation

    private var listState: ListState = .idle
    var playback: PlaybackState = .start
    /// The last play request and its recording, for attribution, titles and `wait`.
    var playing: (ticket: PlaybackTicket, recording: Recording)?
    /// 0, or the status a signal asked to leave with.
    private var exitStatus: Int32 = 0
    /// Which typed line runs when (pure).
    var gate = LineGateMachine()
    private var lastStatus: String?

    public init(
        console: any Console, list: ListController, player: any PlaybackControl, sonograms: any SonogramSource,
        presenter: Presenter, fieldKit: FieldKit = .none
    ) {
        self.fieldKit = fieldKit
        self.console = console
        self.list = list
        self.player = player
        self.sonograms = sonograms
        self.presenter = presenter
        (events, eventSink) = AsyncStream.makeStream(of: Event.self)
    }

    /// Feeds an event from outside (signals).
    public nonisolated func send(_ event: Event) {
        eventSink.yield(event)
    }

    /// Runs until `quit` or the end of input. Returns the exit status.
    public func run(banner: [String]) async -> Int32 {
        console.print(banner)
        let sink = eventSink
        let console = self.console
        let list = self.list
        let player = self.player
        let forwarders = [
            Task {
                for await line in console.lines { sink.yield(.line(line)) }
                sink.yield(.inputEnded)
            },
            Task { for await update in list.updates { sink.yield(.list(update)) } },
            Task { for await state in player.stateUpdates() { sink.yield(.playback(state)) } },
        ]
        defer { forwarders.forEach { $0.cancel() } }
        for await event in events {
            if await handle(event) == .quit { break }
        }
        await player.shutdown()
        console.setStatus(nil)
        console.close()
        return exitStatus
    }

    private enum Flow { case goOn, quit }

    private func handle(_ event: Event) async -> Flow {
        switch event {
        case .line(let line):
            gate.handle(.typed(line))
        case .inputEnded:
            gate.handle(.inputEnded)
        case .list(let state):
            let old = listState
            listState = state
            console.print(presenter.lines(list: state, from: old))
            gate.handle(.listChanged(busy: state.isBusy))
        case .playback(let state):
            render(playback: state)
            gate.handle(.playbackChanged(state, queuePlaying: queue.state.isPlaying))
        case .interrupt:
            return await interrupt()
        case .terminate(let status):
            exitStatus = status
            return .quit
        case .sonogram(let result):
            sonogramTask = nil
            switch result {
            case .success(let lines): console.print(lines)
            case .failure(let failure): console.print([presenter.refusal(failure.message)])
            }
            gate.handle(.sonogramDone)
        case .saveProgress(let batch, let progress):
            let state = saves.state
            if batch == state.batch, let current = state.current {
                console.print([presenter.save(progress, position: current + 1, count: state.items.count)])
            }
        case .saveEnded(let batch, let outcome):
            let state = saves.state
            if batch == state.batch, let current = state.current {
                console.print([presenter.save(outcome, position: current + 1, count: state.items.count)])
            }
            run(saves.handle(.ended(batch: batch, outcome)))
        case .cacheNotice(let text):
            console.print([presenter.cacheNotice(text)])
        case .stripPicture(let ticket, let result):
            switch result {
            case .success(let picture): run(strip.ready(picture, ticket: ticket))
            case .failure(let failure): run(strip.failed(failure.message, ticket: ticket))
            }
            refreshStatus()
        }
        return await drain()
    }

    /// Runs queued lines while nothing holds them; quits at the end of input once they are done.
    private func drain() async -> Flow {
        while true {
            switch gate.next() {
            case .run(let line):
                if await execute(line) == .quit { return .quit }
            case .quit:
                return .quit
            case .none:
                return .goOn
            }
        }
    }

    private func interrupt() async -> Flow {
        console.interrupted()
        if let task = sonogramTask {
            // Ctrl-C first stops a sonogram being drawn.
            task.cancel()
            return .goOn
        }
        if let task = saveTask {
            // Then a save (its `.part` stays, for a later save to resume).
            task.cancel()
            saveTask = nil
            run(saves.handle(.stop))
            return await drain()
        }
        _ = queue.handle(.stop)
        if await player.stop() == nil {
            gate.handle(.playbackStopped)
            return await drain()
        }
        if !console.isInteractive && !listState.isBusy { return .quit }
        if console.isInteractive { console.print([presenter.refusal("(Ctrl-D or quit leaves chirper-play)")]) }
        return .goOn
    }

    private func render(playback new: PlaybackState) {
        let old = playback
        playback = new
        let recording = playing.flatMap { $0.ticket == new.ticket ? $0.recording : nil }
        if case .buffering = new, old.ticket != new.ticket, let recording {
            console.print([presenter.attribution(recording)])
        }
        if let line = presenter.line(playback: new, from: old) {
            console.print([line])
        }
        run(strip.playbackChanged(new))
        refreshStatus()
        // The end (or failure) of the item the queue started, as rendered, moves the queue on.
        if !new.isActive, let ticket = new.ticket {
            run(queue.handle(.trackEnded(ticket)))
        }
    }

    /// Draws the status line (with the live strip above it when on) from the rendered states.
    private func refreshStatus() {
        let recording = playing.flatMap { $0.ticket == playback.ticket ? $0.recording : nil }
        let line = presenter.status(playback, title: recording?.englishName)
        let lines = presenter.strip(strip, playback: playback) + (line.map { [$0] } ?? [])
        let status = lines.isEmpty ? nil : lines.joined(separator: "\n")
        if status != lastStatus {
            lastStatus = status
            console.setStatus(status)
        }
    }

    private func execute(_ line: String) async -> Flow {
        let command: Command
        do {
            command = try CommandParser.parse(line)
        } catch {
            console.print([presenter.refusal(error.description)])
            return .goOn
        }
        switch command {
        case .nothing:
            break
        case .quit:
            return .quit
        case .help(let topic):
            console.print(Help.lines(topic: topic, columns: console.isInteractive ? console.width - 1 : nil))
        case .search(let query):
            await search(query)
        case .nextPage:
            if let refusal = await list.nextPage() {
                console.print([presenter.refusal(refusal)])
            } else if !console.isInteractive {
                // Accepted: a page is on its way, and a script waits for it to settle.
                gate.handle(.hold(.listSettles))
            }
        case .list:
            console.print(presenter.listing(listState))
        case .info(let row):
            if let recording = recording(at: row, for: "info") {
                console.print(presenter.info(recording, row: row))
            }
        case .play(let row):
            guard let recording = recording(at: row, for: "play") else { break }
            switch recording.audio {
            case .playable:
                // A single play replaces the queue.
                run(queue.handle(.listReplaced))
                start(recording)
            case .restricted:
                console.print([
                    presenter.refusal(
                        "row \(row) (\(recording.label)) is restricted: \(presenter.sourceName) does not offer its audio"
                    )
                ])
            case .refused(let reason):
                console.print([presenter.refusal("row \(row) (\(recording.label)) cannot be played: \(reason)")])
            }
        // The player's machine decides (it is ahead of the rendered copy by the events still queued, so a
        // `stop` right after `play` stops it) and says why when it refuses.
        case .stop:
            _ = queue.handle(.stop)
            if let refusal = await player.stop() { console.print([presenter.refusal(refusal)]) }
        case .playRows(let text):
            guard let rows = rows(text, for: "play") else { break }
            let items = rows.map { QueueItem(row: $0, recording: listState.rows[$0 - 1]) }
                .filter { $0.recording.playItem != nil }
            run(queue.handle(.enqueue(items)))
        case .next:
            run(queue.handle(.next))
        case .prev:
            run(queue.handle(.prev))
        case .autoplay(let on):
            run(queue.handle(.autoplay(on)))
        case .cite(let row):
            if let recording = recording(at: row, for: "cite") {
                console.print(presenter.cite(Citation(recording), label: recording.label))
            }
        case .also(let row, let choice):
            guard let recording = recording(at: row, for: "also") else { break }
            switch BackgroundSearch.query(for: recording, choice: choice) {
            case .success(let query): await search(query)
            case .failure(let refusal): console.print([presenter.refusal(refusal.description)])
            }
        case .save(let text, let directory):
            guard let rows = rows(text, for: "save") else { break }
            let items = rows.map { QueueItem(row: $0, recording: listState.rows[$0 - 1]) }
            let folder = directory.map(Self.expandingTilde) ?? fieldKit.saveDirectory
            let action = saves.handle(.start(items, directory: folder))
            // The items carry their recordings: a new search while the batch runs does not change what it saves.
            run(action)
        case .pause:
            if let refusal = player.pause() { console.print([presenter.refusal(refusal)]) }
        case .resume:
            if let refusal = player.resume() { console.print([presenter.refusal(refusal)]) }
        case .seek(let time):
            refuseIf(player.seek(time))
        case .loop(let a, let b):
            refuseIf(player.loop(from: a, to: b))
        case .loopOff:
            refuseIf(player.loopOff())
        case .loopAnnotation(let k):
            loopAnnotation(k)
        // Settings outlive a track: the answer says what is in force now (also when nothing plays).
        case .speed(let speed):
            settingsChanged(player.setSpeed(speed))
        case .volume(let percent):
            settingsChanged(player.setVolume(percent))
        case .mute:
            settingsChanged(player.setMuted(true))
        case .unmute:
            settingsChanged(player.setMuted(false))
        case .sono(.draw(let row, let maxKHz)):
            drawSonogram(row: row, maxKHz: maxKHz)
        case .sono(.strip(let on)):
            guard console.isInteractive else {
                console.print([presenter.refusal("the live strip needs a terminal; sono <n> prints the picture")])
                break
            }
            run(on ? strip.turnOn(playing: playback) : strip.turnOff())
            refreshStatus()
        case .wait where queue.state.isPlaying:
            // A queue plays on: wait for its end.
            gate.handle(.hold(.queueEnds))
        case .wait:
            // Waits for the last play request unless the rendered state already shows it ended.
            if let ticket = playing?.ticket, playback.isActive || !(playback.ticket.map { $0 >= ticket } ?? false) {
                gate.handle(.hold(.playbackEnds(ticket)))
            }
        }
        return .goOn
    }

    /// A new search (typed, or `also`): the queue's rows no longer mean anything.
    private func search(_ query: SearchQuery) async {
        run(queue.handle(.listReplaced))
        await list.search(query)
        if !console.isInteractive { gate.handle(.hold(.listSettles)) }
    }

    /// Starts a recording (a row, or the queue's item) and tells the cache what it is.
    func start(_ recording: Recording) {
        guard let item = recording.playItem else { return }
        playing = (player.play(item), recording)
        fieldKit.played(recording)
    }

    /// The rows a selection names, or nil after one line saying why.
    private func rows(_ text: String, for command: String) -> [Int]? {
        guard !listState.rows.isEmpty else {
            console.print([presenter.refusal("no rows yet: search first, e.g. search en:wren")])
            return nil
        }
        do {
            return try RowSelection.parse(text, count: listState.rows.count)
        } catch {
            console.print([presenter.refusal("\(command): \(error.description)")])
            return nil
        }
    }

    static func expandingTilde(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return (ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst()
    }

    func refuseIf(_ refusal: String?) {
        if let refusal { console.print([presenter.refusal(refusal)]) }
    }

    private func settingsChanged(_ refusal: String?) {
        if let refusal {
            console.print([presenter.refusal(refusal)])
        } else {
            console.print([presenter.settings(player.settings)])
        }
    }

    func recording(at row: Int, for command: String) -> Recording? {
        let rows = listState.rows
        guard !rows.isEmpty else {
            console.print([presenter.refusal("no rows yet: search first, e.g. search en:wren")])
            return nil
        }
        guard row <= rows.count else {
            let more = listState.hasMorePages ? " (next-page loads more)" : ""
            console.print([presenter.refusal("there is no row \(row): rows 1-\(rows.count) are listed\(more)")])
            return nil
        }
        return rows[row - 1]
    }
}

extension ListState {
    /// A page is being fetched.
    var isBusy: Bool {
        switch self {
        case .loading, .paging(_, .loading): return true
        default: return false
        }
    }

    var hasMorePages: Bool {
        if case .paging = self { return true }
        return false
    }
}
