import ChirperCatalog
import ChirperCore
import ChirperREPL
import Synchronization
import Testing
import ChirperSystem

/// A console that reads a script and records what the REPL shows, in order.
final class ScriptedConsole: Console {
    let isInteractive: Bool
    let width: Int
    let lines = Channel(of: String.self, failure: Never.self)
    private let shown = Mutex<[String]>([])
    private let statuses = Mutex<[[String]]>([])
    private let pictures = Mutex<[StatusPicture?]>([])
    private let closes = Mutex(0)

    /// `script` is typed at once; the input ends after it unless `keepOpen`.
    init(_ script: [String], interactive: Bool = false, keepOpen: Bool = false, width: Int = 100) {
        isInteractive = interactive
        self.width = width
        for line in script { lines.post(line) }
        if !keepOpen { lines.finish() }
    }

    /// Types one more line.
    func type(_ line: String) { lines.post(line) }
    /// Ctrl-D.
    func endInput() { lines.finish() }

    var printed: [String] { shown.withLock { $0 } }
    /// Each status shown, its rows joined (nil: none).
    var statusLines: [String?] { statuses.withLock { $0.map { $0.isEmpty ? nil : $0.joined(separator: "\n") } } }
    /// The picture of each status shown (nil: none).
    var statusPictures: [StatusPicture?] { pictures.withLock { $0 } }
    var closeCount: Int { closes.withLock { $0 } }

    func print(_ lines: [String]) {
        shown.withLock { $0 += lines }
        printing.post(())
    }

    /// Posted after each print: what `waitUntilPrinted` waits on.
    private let printing = Channel(of: Void.self, failure: Never.self)

    /// Waits until the lines printed so far satisfy `condition`, woken by each print.
    func waitUntilPrinted(_ condition: ([String]) -> Bool) async {
        while !condition(printed) {
            guard await printing.next() != nil else {
                Issue.record("printing ended before the condition held")
                return
            }
        }
    }

    func setStatus(_ rows: [String], picture: StatusPicture?) {
        statuses.withLock { $0.append(rows) }
        pictures.withLock { $0.append(picture) }
    }
    func interrupted() { shown.withLock { $0.append("<interrupted>") } }
    func close() { closes.withLock { $0 += 1 } }
}

/// A player double: every call must have been expected, in order; each expected call may answer and emit
/// states on the stream the REPL follows. An unexpected call is a test failure.
final class ScriptedPlayer: PlaybackControl {
    enum Call: Equatable, CustomStringConvertible {
        case play(String)
        case stop
        case pause
        case resume
        case seek(TimeInput)
        case loop(TimeInput, TimeInput)
        case section(TimeInput, TimeInput)
        case loopOff
        case speed(PlaybackSpeed)
        case volume(Int)
        case mute(Bool)
        case shutdown

        var description: String {
            switch self {
            case .play(let label): "play(\(label))"
            case .stop: "stop"
            case .pause: "pause"
            case .resume: "resume"
            case .seek(let time): "seek(\(time))"
            case .loop(let a, let b): "loop(\(a), \(b))"
            case .section(let a, let b): "section(\(a), \(b))"
            case .loopOff: "loopOff"
            case .speed(let speed): "speed(\(speed))"
            case .volume(let percent): "volume(\(percent))"
            case .mute(let muted): "mute(\(muted))"
            case .shutdown: "shutdown"
            }
        }
    }

    struct Expectation {
        var call: Call
        /// For stop, pause and resume: the refusal to answer (nil: accepted).
        var refusal: String?
        /// States to publish when the call arrives (before it returns).
        var emits: [PlaybackState]
        /// The settings in force after the call (for speed, volume and mute).
        var settings: PlaybackSettings?

        init(call: Call, refusal: String? = nil, emits: [PlaybackState] = [], settings: PlaybackSettings? = nil) {
            self.call = call
            self.refusal = refusal
            self.emits = emits
            self.settings = settings
        }
    }

    private let expected: Mutex<[Expectation]>
    private let made = Mutex<[Call]>([])
    private let current = Mutex(PlaybackSettings())
    private let nextTicket = Mutex<UInt64>(0)
    /// What the REPL follows (one follower).
    private let states = Channel(of: PlaybackState.self, failure: Never.self)

    /// Whether a live strip may listen to the decoded audio (`heardAudio()`): it hears nothing here.
    private let listens: Bool

    init(_ expectations: [Expectation] = [], listens: Bool = false) {
        self.listens = listens
        expected = Mutex(expectations)
        states.post(.start)
    }

    /// The calls that arrived, in order.
    var calls: [Call] { made.withLock { $0 } }
    /// Expected calls that never came.
    var unmet: [Call] { expected.withLock { $0.map(\.call) } }

    /// The ticket the next `play` gets (the first is #1).
    static func ticket(_ value: UInt64) -> PlaybackTicket { PlaybackTicket(value) }

    func stateUpdates() -> Channel<PlaybackState, Never> { states }

    func play(_ item: PlayItem) -> PlaybackTicket {
        let ticket = nextTicket.withLock { value -> PlaybackTicket in
            value += 1
            return PlaybackTicket(value)
        }
        _ = arrive(.play(item.label))
        return ticket
    }

    func stop() async -> String? { arrive(.stop) }
    func pause() -> String? { arrive(.pause) }
    func resume() -> String? { arrive(.resume) }
    func seek(_ time: TimeInput) -> String? { arrive(.seek(time)) }
    func loop(from a: TimeInput, to b: TimeInput) -> String? { arrive(.loop(a, b)) }
    func playSection(from a: TimeInput, to b: TimeInput, band: FrequencyBand?) -> String? { arrive(.section(a, b)) }
    func loopOff() -> String? { arrive(.loopOff) }
    func setSpeed(_ speed: PlaybackSpeed) -> String? { arrive(.speed(speed)) }
    func setVolume(_ percent: Int) -> String? { arrive(.volume(percent)) }
    func setMuted(_ muted: Bool) -> String? { arrive(.mute(muted)) }
    var settings: PlaybackSettings { current.withLock { $0 } }

    func heardAudio() -> Channel<HeardAudio, Never> {
        if !listens { Issue.record("unexpected listening to the decoded audio") }
        return Channel()
    }

    func shutdown() async {
        made.withLock { $0.append(.shutdown) }
        states.finish()
    }

    /// Publishes a state as the real player would.
    func publish(_ state: PlaybackState) { states.post(state) }

    private func arrive(_ call: Call) -> String? {
        made.withLock { $0.append(call) }
        let next = expected.withLock { expected -> Expectation? in
            guard let first = expected.first, first.call == call else { return nil }
            return expected.removeFirst()
        }
        guard let next else {
            Issue.record("unexpected call to the player: \(call)")
            return nil
        }
        if let settings = next.settings { current.withLock { $0 = settings } }
        for state in next.emits { states.post(state) }
        return next.refusal
    }
}

/// A recording source that answers every search with `recordings` on one page; nothing else is expected.
struct OnePageSource: RecordingSource {
    let name = "the test catalog"
    let defaultPerPage = 50
    let exampleSearch = "en:wren"
    let recordings: [Recording]

    func page(
        query: SearchQuery,
        page: Int,
        perPage: Int,
        onRetry: @escaping @Sendable (RetryNotice) -> Void
    ) async throws(ListError) -> Page {
        guard page == 1 else {
            Issue.record("unexpected request for page \(page)")
            throw ListError(.server, "no page \(page)")
        }
        return Page(
            totalRecordings: recordings.count, totalSpecies: 1, page: 1, numPages: 1, recordings: recordings)
    }
}

extension PlayItem {
    static func of(_ recording: Recording) -> PlayItem { recording.playItem! }
}

/// Two playable recordings and a restricted one.
enum Fixture {
    static let wren = Recording(
        id: "254462", genus: "Troglodytes", species: "troglodytes", englishName: "Eurasian Wren",
        recordist: "A. Recordist", country: "Spain", pageURL: "https://xeno-canto.org/254462",
        licenceURL: "https://creativecommons.org/licenses/by-nc-sa/4.0/", quality: "A", length: "0:12",
        audio: .playable(.remote("https://xeno-canto.org/254462/download")))
    static let robin = Recording(
        id: "5168", genus: "Erithacus", species: "rubecula", englishName: "European Robin", recordist: "B. Birder",
        country: "France", quality: "B", length: "0:31",
        audio: .playable(.remote("https://xeno-canto.org/5168/download")))
    static let hidden = Recording(
        id: "9999", genus: "Strix", species: "secreta", englishName: "Secret Owl", length: "0:05", audio: .restricted)
    static let all = [wren, robin, hidden]
}

/// Runs a REPL over `console` and `player` on the fixture catalog (or `recordings`) to the end of its input.
func runREPL(
    _ console: ScriptedConsole, _ player: ScriptedPlayer, recordings: [Recording] = Fixture.all,
    fieldKit: FieldKit = .none, sonograms: any SonogramSource = NoSonograms()
) async -> Int32 {
    let presenter = Presenter(
        style: console.isInteractive ? .terminal(color: false) : .script, width: console.width,
        sourceName: "the test catalog")
    let repl = REPL(
        console: console, list: ListController(source: OnePageSource(recordings: recordings)), player: player,
        sonograms: sonograms, presenter: presenter, fieldKit: fieldKit)
    return await repl.run(banner: [])
}

/// A saver double: every save must have been expected, in order; each reports its progress and outcome.
/// An unexpected save is a test failure.
final class ScriptedSaver: RecordingSaving {
    struct Expectation {
        var label: String
        var directory: String
        var progress: [SaveProgress]
        var outcome: SaveOutcome
    }

    private let expected: Mutex<[Expectation]>
    init(_ expectations: [Expectation]) { expected = Mutex(expectations) }

    /// Expected saves that never came.
    var unmet: [String] { expected.withLock { $0.map(\.label) } }

    func save(
        _ recording: Recording, into directory: String, progress: @escaping @Sendable (SaveProgress) -> Void
    ) async -> SaveOutcome {
        let next = expected.withLock { expected -> Expectation? in
            guard let first = expected.first, first.label == recording.label, first.directory == directory else {
                return nil
            }
            return expected.removeFirst()
        }
        guard let next else {
            Issue.record("unexpected save of \(recording.label) into \(directory)")
            return .failed(label: recording.label, reason: "unexpected")
        }
        next.progress.forEach(progress)
        return next.outcome
    }
}

/// A sonogram source no test expects to be asked.
struct NoSonograms: SonogramSource {
    func sonogram(of item: PlayItem, shape: SonogramShape) async throws -> Sonogram {
        Issue.record("unexpected sonogram request for \(item.label)")
        throw CancellationError()
    }

    func drawStrip(
        _ work: Channel<StripWork, Never>,
        picture: @escaping @Sendable (PlaybackTicket, Result<Sonogram, any Error>) -> Void
    ) async {
        Issue.record("unexpected live strip")
    }
}

/// A live strip's painter that is started and stopped but never asked to draw: it takes its work until the
/// strip is turned off; a still sonogram is not expected.
struct IdleStripPainter: SonogramSource {
    func sonogram(of item: PlayItem, shape: SonogramShape) async throws -> Sonogram {
        try await NoSonograms().sonogram(of: item, shape: shape)
    }

    func drawStrip(
        _ work: Channel<StripWork, Never>,
        picture: @escaping @Sendable (PlaybackTicket, Result<Sonogram, any Error>) -> Void
    ) async {
        while let item = await work.next() {
            if case .draw(let item, _, _, _) = item { Issue.record("unexpected strip picture of \(item.label)") }
        }
    }
}
