import ChirperCatalog
import ChirperCore
import FoundationEssentials
import ChirperSystem

/// What the REPL needs from a player. The player's machine decides; the REPL renders what it is told and
/// passes refusals on.
public protocol PlaybackControl: Sendable {
    /// The current state, then every change, in order, until `shutdown`.
    func stateUpdates() -> Channel<PlaybackState, Never>
    /// Starts `item` (stopping whatever plays); the ticket names this request in the states that follow.
    func play(_ item: PlayItem) -> PlaybackTicket
    /// Returns once nothing is left running; or the reason there was nothing to stop.
    func stop() async -> String?
    /// Nil, or the reason it cannot pause.
    func pause() -> String?
    /// Nil, or the reason it cannot resume.
    func resume() -> String?
    /// Nil, or the reason it cannot seek there (nothing playing, a time outside the recording).
    func seek(_ time: TimeInput) -> String?
    /// Nil, or the reason it cannot loop that section.
    func loop(from a: TimeInput, to b: TimeInput) -> String?
    /// Plays `a`–`b` of the loaded track once (it jumps to `a`; the track ends at `b`); nil, or the reason not.
    func playSection(from a: TimeInput, to b: TimeInput, band: FrequencyBand?) -> String?
    /// Nil, or the reason there is no loop to end.
    func loopOff() -> String?
    /// Nil, or the reason the speed was not taken.
    func setSpeed(_ speed: PlaybackSpeed) -> String?
    /// Nil, or the reason the volume was not taken.
    func setVolume(_ percent: Int) -> String?
    /// Nil, or the reason it changes nothing (already muted, not muted).
    func setMuted(_ muted: Bool) -> String?
    /// Speed, volume and mute now.
    var settings: PlaybackSettings { get }
    /// What every track decodes from now on, at its place in the recording, until the channel is cancelled.
    func heardAudio() -> Channel<HeardAudio, Never>
    /// Stops and releases the sound server connection.
    func shutdown() async
}

/// What `sono <n>` needs: a recording decoded (not played) into a sonogram of a given shape.
public protocol SonogramSource: Sendable {
    /// Throws a `UserFacingError` (one line) or `CancellationError`.
    func sonogram(of item: PlayItem, shape: SonogramShape) async throws -> Sonogram
    /// Draws the live strip until `work` ends or the task is cancelled: the picture of each `draw`, whole from
    /// the recording's file when it is on disk, otherwise grown from the audio `heard`, each picture (or the
    /// error, a `UserFacingError`) handed to `picture`.
    func drawStrip(
        _ work: Channel<StripWork, Never>,
        picture: @escaping @Sendable (PlaybackTicket, Result<Sonogram, any Error>) -> Void) async
}

/// What `save` needs: one recording downloaded into a folder, its progress reported as it goes.
public protocol RecordingSaving: Sendable {
    func save(
        _ recording: Recording, into directory: String, progress: @escaping @Sendable (SaveProgress) -> Void
    ) async -> SaveOutcome
}

/// The field kit's collaborators: the saver, where `save` puts files by default, and what to tell the play
/// cache when a recording starts (its metadata, for `--offline`).
public struct FieldKit: Sendable {
    public var saver: any RecordingSaving
    public var saveDirectory: String
    public var played: @Sendable (Recording) -> Void

    public init(
        saver: any RecordingSaving, saveDirectory: String, played: @escaping @Sendable (Recording) -> Void = { _ in }
    ) {
        self.saver = saver
        self.saveDirectory = saveDirectory
        self.played = played
    }

    /// For sessions and tests that never save: a `save` is refused with one line.
    public static let none = FieldKit(saver: NoSaver(), saveDirectory: "")
}

/// Refuses every save (no saver was given).
struct NoSaver: RecordingSaving {
    func save(
        _ recording: Recording, into directory: String, progress: @escaping @Sendable (SaveProgress) -> Void
    ) async -> SaveOutcome {
        .failed(label: recording.label, reason: "saving is not available in this session")
    }
}

/// What a picture at pixel resolution needs from the graphics libraries.
public protocol PictureWriting: Sendable {
    /// The escape sequence that draws `image` on `canvas` (its protocol, its cells' size in pixels); throws a
    /// `UserFacingError` (one line) when it cannot be made (a graphics library missing).
    func escape(for image: RasterImage, on canvas: PixelCanvas) throws -> String
    /// Writes `image` as a PNG file; throws a `UserFacingError` (one line).
    func writePNG(_ image: RasterImage, to path: String) throws
}

/// For sessions and tests without the graphics libraries: pixels are refused with one line.
public struct NoPictures: PictureWriting {
    struct Unavailable: UserFacingError {
        var userMessage: String { "pictures are not available in this session" }
    }

    public init() {}

    public func escape(for image: RasterImage, on canvas: PixelCanvas) -> String {
        ""
    }
    public func writePNG(_ image: RasterImage, to path: String) throws { throw Unavailable() }
}

/// What `measure` needs: a section and band of a recording decoded (not played) and measured.
public protocol MeasurementSource: Sendable {
    /// Measures `span` × `band` of `item`; with no band and a `signalWithin` limit, in the band within it that
    /// holds the sound. Throws a `UserFacingError` (one line) or `CancellationError`.
    func measure(
        _ item: PlayItem, span: TimeSpan, band: FrequencyBand?, signalWithin limit: FrequencyBand?
    ) async throws -> SelectionMeasurement
}

/// For sessions and tests that never measure: a `measure` is refused with one line.
public struct NoMeasurements: MeasurementSource {
    struct Unavailable: UserFacingError {
        var userMessage: String { "measuring is not available in this session" }
    }

    public init() {}

    public func measure(
        _ item: PlayItem, span: TimeSpan, band: FrequencyBand?, signalWithin limit: FrequencyBand?
    ) async throws -> SelectionMeasurement {
        throw Unavailable()
    }
}

/// Where a quiz's deck comes from: the recordings of a query (over as many pages as it needs, paced as every
/// request), or those kept on disk.
public protocol QuizDeckSource: Sendable {
    /// Throws a `UserFacingError` (one line) or `CancellationError`.
    func recordings(for origin: QuizOrigin) async throws -> [Recording]
}

/// The quiz's store of decks, answers and memories.
public protocol QuizKeeping: Sendable {
    func load(_ deck: QuizDeck, at now: Date) throws -> QuizProgress
    func keep(_ answer: QuizAnswerRecord, at now: Date) throws -> CardMemory
    func stats(at now: Date) throws -> QuizStats
    func exportRows() throws -> [[String]]
}

/// The quiz's collaborators and its clock.
public struct QuizKit: Sendable {
    public var decks: any QuizDeckSource
    public var store: any QuizKeeping
    /// The time answers are kept and scheduled at.
    public var now: @Sendable () -> Date

    public init(decks: any QuizDeckSource, store: any QuizKeeping, now: @escaping @Sendable () -> Date = Date.init) {
        self.decks = decks
        self.store = store
        self.now = now
    }

    /// For sessions and tests without a quiz.
    public static let none = QuizKit(
        decks: NoQuizDecks(), store: UnavailableQuizStore(reason: "the quiz is not available in this session"))
}

struct NoQuizDecks: QuizDeckSource {
    struct Unavailable: UserFacingError {
        var userMessage: String { "the quiz is not available in this session" }
    }

    func recordings(for origin: QuizOrigin) async throws -> [Recording] { throw Unavailable() }
}

/// A store that could not be opened: every call says why, and the quiz goes on without keeping answers.
public struct UnavailableQuizStore: QuizKeeping {
    struct Unavailable: UserFacingError {
        var userMessage: String
    }

    let reason: String

    public init(reason: String) { self.reason = reason }

    public func load(_ deck: QuizDeck, at now: Date) throws -> QuizProgress { throw Unavailable(userMessage: reason) }
    public func keep(_ answer: QuizAnswerRecord, at now: Date) throws -> CardMemory {
        throw Unavailable(userMessage: reason)
    }
    public func stats(at now: Date) throws -> QuizStats { throw Unavailable(userMessage: reason) }
    public func exportRows() throws -> [[String]] { throw Unavailable(userMessage: reason) }
}

/// The desktop (MPRIS) as the REPL sees it: where the rendered state is published.
public protocol DesktopPublishing: Sendable {
    func publish(_ state: DesktopState, seeked: Bool)
}
