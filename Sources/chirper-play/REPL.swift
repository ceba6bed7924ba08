import ChirperAudio
import ChirperCatalog
import ChirperCore
import Foundation

/// What the REPL needs from a player.
protocol PlaybackControl: Sendable {
    /// The state now (the REPL's rendered copy can lag behind it by the events still queued).
    var state: PlaybackState { get }
    /// The current state, then every change, in order.
    func stateUpdates() -> AsyncStream<PlaybackState>
    func play(_ item: PlayItem)
    /// Returns once nothing is left running.
    func stop() async
    func pause()
    func resume()
    /// Stops and releases the sound server connection.
    func shutdown() async
}

extension Player: PlaybackControl {}

/// The read-eval-print loop: one event loop that takes typed lines, list changes, playback changes and
/// Ctrl-C, in order, and renders every change through the ``Presenter``. Nothing else prints.
actor REPL {
    enum Event: Sendable {
        case line(String)
        case inputEnded
        case list(ListState)
        case playback(PlaybackState)
        case interrupt
    }

    /// What a script is waiting for before its next line is read. Interactive sessions only wait for `wait`.
    enum Blocker: Equatable {
        case listSettles
        case playbackEnds
    }

    private let console: any Console
    private let list: ListController
    private let player: any PlaybackControl
    private var presenter: Presenter
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation

    private var listState: ListState = .idle
    private var playback: PlaybackState = .idle
    /// The recording behind each PlayItem label that was played, for attribution and titles.
    private var playing: Recording?
    private var queued: [String] = []
    private var blocker: Blocker?
    private var inputEnded = false
    private var lastStatus: String?

    init(console: any Console, list: ListController, player: any PlaybackControl, presenter: Presenter) {
        self.console = console
        self.list = list
        self.player = player
        self.presenter = presenter
        (events, eventSink) = AsyncStream.makeStream(of: Event.self)
    }

    /// Feeds an event from outside (signals).
    nonisolated func send(_ event: Event) {
        eventSink.yield(event)
    }

    /// Runs until `quit` or the end of input. Returns the exit status.
    func run(banner: [String]) async -> Int32 {
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
        return 0
    }

    private enum Flow { case goOn, quit }

    private func handle(_ event: Event) async -> Flow {
        switch event {
        case .line(let line):
            queued.append(line)
        case .inputEnded:
            inputEnded = true
        case .list(let state):
            let old = listState
            listState = state
            console.print(presenter.lines(list: state, from: old))
            if blocker == .listSettles, !state.isBusy { blocker = nil }
        case .playback(let state):
            render(playback: state)
            // An update queued before the last `play` must not end a wait for that play.
            if blocker == .playbackEnds, !state.isActive, !player.state.isActive { blocker = nil }
        case .interrupt:
            return await interrupt()
        }
        return await drain()
    }

    /// Runs queued lines while nothing blocks them; quits at the end of input once they are done.
    private func drain() async -> Flow {
        while blocker == nil, !queued.isEmpty {
            let line = queued.removeFirst()
            if await execute(line) == .quit { return .quit }
        }
        if blocker == nil, queued.isEmpty, inputEnded { return .quit }
        return .goOn
    }

    private func interrupt() async -> Flow {
        console.interrupted()
        if player.state.isActive {
            await player.stop()
            if blocker == .playbackEnds { blocker = nil }
            return await drain()
        }
        if !console.isInteractive && !listState.isBusy { return .quit }
        if console.isInteractive { console.print([presenter.refusal("(Ctrl-D or quit leaves chirper-play)")]) }
        return .goOn
    }

    private func render(playback new: PlaybackState) {
        let old = playback
        playback = new
        if case .buffering(let progress) = new, old.item != progress.item, let recording = playing,
            recording.label == progress.item.label
        {
            console.print([presenter.attribution(recording)])
        }
        if case .idle = new, let item = old.item, let progress = old.progress, let duration = progress.duration,
            progress.position >= duration - 0.5
        {
            console.print([presenter.finished(item, at: progress.position)])
        } else if let line = presenter.line(playback: new, from: old) {
            console.print([line])
        }
        let title = playing.flatMap { $0.label == new.item?.label ? $0.englishName : nil }
        let status = presenter.status(new, title: title)
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
            console.print(Help.lines(topic: topic, script: !console.isInteractive))
        case .search(let query):
            await list.search(query)
            if !console.isInteractive { blocker = .listSettles }
        case .nextPage:
            if let refusal = await list.nextPage() {
                console.print([presenter.refusal(refusal)])
            }
            let busy = await list.state.isBusy
            if !console.isInteractive, busy { blocker = .listSettles }
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
                guard let item = recording.playItem else { break }
                playing = recording
                player.play(item)
            case .restricted:
                console.print([
                    presenter.refusal(
                        "row \(row) (\(recording.label)) is restricted: \(presenter.sourceName) does not offer its audio"
                    )
                ])
            case .refused(let reason):
                console.print([presenter.refusal("row \(row) (\(recording.label)) cannot be played: \(reason)")])
            }
        // Commands decide on the player's state now, not on the rendered copy, which lags by the events
        // still queued (a `stop` right after `play` must stop it).
        case .stop:
            if player.state.isActive {
                await player.stop()
            } else {
                console.print([presenter.refusal("nothing is playing")])
            }
        case .pause:
            switch player.state {
            case .playing, .buffering: player.pause()
            case .paused: console.print([presenter.refusal("already paused; resume continues")])
            default: console.print([presenter.refusal("nothing is playing")])
            }
        case .resume:
            let state = player.state
            if case .paused = state {
                player.resume()
            } else {
                console.print([presenter.refusal(state.isActive ? "not paused" : "nothing is paused")])
            }
        case .wait:
            if player.state.isActive { blocker = .playbackEnds }
        }
        return .goOn
    }

    private func recording(at row: Int, for command: String) -> Recording? {
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
