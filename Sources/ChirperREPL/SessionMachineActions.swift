import ChirperCatalog
import ChirperCore

/// What the session machine asks its runner to do, and the values the session and its children share.
extension SessionMachine {
    enum Action: Sendable, Hashable {
        case print([String])
        /// Print these lines, then `image` drawn with a terminal graphics protocol.
        case showPicture([String], RasterImage, PixelCanvas)
        /// Show these status rows (the live strip's, then the status line; none: no status), with the strip's
        /// image in real pixels over its first rows when it has one. Only sent when they change.
        case status([String], StripImage?)
        /// Ctrl-C arrived: a terminal drops the half-typed line.
        case markInterrupted
        case request(Request)
        /// Compute a sonogram for `sono` (replacing one still running); it ends as `.sonogram`.
        case drawSonogram(id: Int, PlayItem, SonogramShape)
        case cancelSonogram
        /// Listen to what the player decodes, for the live strip's pictures (until `cancelStrip`).
        case listenStrip
        /// Compute the live strip's picture of `item`, `duration` seconds long if known (replacing one still
        /// being made); it comes back as `.stripPicture`, again as it grows.
        case computeStrip(PlayItem, PlaybackTicket, SonogramShape, duration: Double?)
        case cancelStrip
        /// Measure `span` × `band` of `item` (replacing a measurement still running); it ends as `.measured`.
        case measure(id: Int, PlayItem, TimeSpan, FrequencyBand?)
        case cancelMeasure
        /// Draw and measure each section (replacing a comparison still running); it ends as `.compared`.
        case compare(id: Int, [CompareTask])
        case cancelCompare
        /// Identify the species in `task`'s stretch off the event loop; the result comes back as `identified`.
        case identify(id: Int, IdentifyTask)
        case cancelIdentify
        /// `identify on`: listen to what the player decodes (the segments heard come back as `listened`); stop;
        /// tell the listener where playback is.
        case listenLive(IdentifyOptions)
        case stopLive
        case livePlayed(LiveIdentify.Played)
        /// Fetch the recordings of a quiz deck (replacing a fetch still running); it ends as `.quizDeck`.
        case buildQuizDeck(id: Int, QuizOrigin)
        case cancelQuizDeck
        /// Compute sono mode's pictures (replacing any still running); they end as `.quizPictures`.
        case drawQuizPictures(id: Int, [QuizPicture])
        /// Show the desktop this state (MPRIS properties); `seeked`: signal `Seeked` too.
        case publishDesktop(DesktopState, seeked: Bool)
        /// Draw `item`'s cover art into `path` (stopping a drawing still running); it ends as `.coverArt(file)`.
        case drawCoverArt(file: Int, PlayItem, path: String)
        /// Stop the cover art drawing running.
        case stopCoverArt
        /// Remove a cover art picture no longer shown.
        case removeCoverArt(path: String)
        /// Wait `seconds`, then report `abGapEnded(round)` (the runner's clock).
        case abWait(seconds: Double, round: Int)
        /// Save one recording as part of `batch`; it reports as `.saveProgress` and `.saveEnded`.
        case save(Recording, directory: String, batch: Int)
        case cancelSave
        /// Leave with this status.
        case quit(status: Int32)
    }

    /// The last play request and its recording, for attribution, titles, `wait` and `loop ann`.
    struct Playing: Sendable, Hashable {
        var ticket: PlaybackTicket
        var recording: Recording
        /// A quiz question's: `recording` names nothing, and no attribution is said for it.
        var masked = false
    }

    /// What the status rows show now.
    struct ShownStatus: Sendable {
        var rows: [String] = []
        /// The buffer figure on the shown status line (`StatusBufferHold`).
        var buffer: Double?
        var stripImage: StripImage?
        /// The live strip's picture lines of the page shown (drawn again only when the page turns).
        var stripLines: StripPictureLines?
    }

    /// A time section and a band of one recording: what `measure` measures, what `compare` sets beside
    /// others, a side of `ab`.
    struct Selection: Sendable, Hashable {
        var recording: Recording
        var item: PlayItem
        var span: TimeSpan
        var band: FrequencyBand?
        /// What it holds, when it came from a detection: the species' name.
        var name: String?
    }

    /// Lines to print, if any.
    mutating func say(_ lines: [String]) {
        if !lines.isEmpty { emit(.print(lines)) }
    }

    mutating func refuse(_ text: String) {
        say([presenter.refusal(text)])
    }

    /// Typed lines wait until `blocker` is done.
    mutating func hold(_ blocker: LineGateMachine.Blocker) {
        gate.handle(.hold(blocker))
    }
}
