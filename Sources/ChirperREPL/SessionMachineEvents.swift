import ChirperCatalog
import ChirperCore

/// What the session machine is told: its set-up, the events it takes, and the answers to its requests.
extension SessionMachine {
    /// What the session is told once, at the start.
    struct Setup: Sendable {
        /// A terminal (prompt, status line) rather than a script in a pipe.
        var interactive: Bool
        var presenter: Presenter
        /// Where `save` puts files when no folder is given.
        var saveDirectory: String
        /// `$HOME`, for `~` in a folder given to `save`.
        var homeDirectory: String
        /// How sonograms map levels to grey (`--contrast`).
        var contrast: SonogramContrast = .auto
        /// How `sono` draws at the start (`--graphics`), and what the terminal said it can draw.
        var graphics: GraphicsMode = .auto
        var terminal: TerminalGraphicsSupport = .none
        /// Seeds each quiz given no `--seed` (the runner's random number).
        var seed: UInt64 = 0
        /// The desktop (MPRIS) is on the bus, or may be: the rendered state is published to it (until
        /// `desktopMissing`).
        var desktop = false
        /// Where the desktop's cover art is kept (the runner's own folder); nil: none is drawn.
        var coverArtFolder: String?
    }

    enum Event: Sendable, Hashable {
        /// A line was typed; `columns`: the terminal's width then (for `help`).
        case typed(String, columns: Int)
        case inputEnded
        /// The session started on files and folders (`chirper-play PATH…`): they are opened first.
        case launchOpen([String])
        case list(ListState)
        case playback(PlaybackState)
        /// Ctrl-C.
        case interrupt
        /// SIGTERM or SIGHUP: leave as `quit` does, with this status.
        case terminate(status: Int32)
        /// One line from the play cache.
        case cacheNotice(String)
        /// The `sono` computation `id` ended.
        case sonogram(id: Int, Result<Sonogram, WorkFailure>)
        case saveProgress(batch: Int, SaveProgress)
        case saveEnded(batch: Int, SaveOutcome)
        /// The live strip's picture of play request `ticket`, or why there is none.
        case stripPicture(PlaybackTicket, Result<Sonogram, WorkFailure>)
        /// The gap `round` of A/B listening is over.
        case abGapEnded(round: Int)
        /// The `compare` computation `id` ended: each section's picture and figures, in order.
        case compared(id: Int, Result<[Compared], WorkFailure>)
        /// An identification ended.
        case identified(id: Int, Result<Identification, WorkFailure>)
        /// What `identify on`'s listener reported.
        case listened(LiveIdentify.Report)
        /// The `measure` computation `id` ended: the measurement, or the line saying why there is none.
        case measured(id: Int, Result<SelectionMeasurement, WorkFailure>)
        /// The recordings of quiz deck `id` arrived, or why not.
        case quizDeck(id: Int, Result<[Recording], WorkFailure>)
        /// Sono mode's pictures `id` were drawn, or why not.
        case quizPictures(id: Int, Result<[Sonogram], WorkFailure>)
        /// The desktop (MPRIS: media keys, playerctl) asked for this.
        case desktop(DesktopCommand)
        /// There is no session bus: this line is said on a terminal, not in a pipe, and no cover art is drawn.
        case desktopMissing(String)
        /// Cover art picture `file` was written (`drawn`), or could not be.
        case coverArt(file: Int, drawn: Bool)
        /// A picture shown could not be drawn for the terminal (a graphics library missing): the line says why.
        case pictureRefused(String)
        /// The answer to a ``Request``.
        case answered(Answer)
    }

    /// Why work off the event loop (a sonogram, a strip picture, a measurement, a comparison) gave nothing.
    enum WorkFailure: Error, Sendable, Hashable {
        /// Ctrl-C stopped it (or a new one replaced it).
        case stopped
        /// The line to show.
        case failed(String)
    }

    /// What the list and the player are asked; each gets one ``Answer``, and no typed line runs before it.
    enum Request: Sendable, Hashable {
        case search(SearchQuery)
        case nextPage
        /// Ctrl-C while a page loads: stop it.
        case stopList
        /// Start `item`, the audio of `recording` (and tell the play cache what it is); `forQueue`: the queue's
        /// item.
        case play(PlayItem, Recording, forQueue: Bool)
        case stop(StopCause)
        case control(PlayerControl)
        /// Write a picture as a PNG file.
        case writePNG(RasterImage, path: String)
        /// Write text (the selection table) to a file.
        case writeText(String, path: String)
        /// Write the identification's selection table to a new file: one already there is left as it is.
        case writeSelections(String, path: String, selections: Int)
        /// Remember the quiz's deck in the store, and read what is known of its cards.
        case loadQuiz(QuizDeck)
        /// Keep a quiz answer and the card's memory after it.
        case keepQuizAnswer(QuizAnswerRecord)
        case quizStats
        /// Write the quiz's cards and their recordings as CSV.
        case exportQuiz(path: String)
    }

    enum StopCause: Sendable, Hashable {
        case command
        case interrupt
        /// The quiz ended: stop its question if it still plays, and say nothing if nothing does.
        case quiet
    }

    /// The player's commands that answer at once with a refusal or nothing.
    enum PlayerControl: Sendable, Hashable {
        case pause
        case resume
        case seek(TimeInput)
        case loop(TimeInput, TimeInput)
        case loopOff
        case speed(PlaybackSpeed)
        case volume(Int)
        case muted(Bool)
        /// Play `a`-`b` of the loaded track once, only `band` of it if given (A/B listening).
        case section(TimeInput, TimeInput, FrequencyBand?)
        /// Change nothing (`speed` alone): the answer brings the settings in force.
        case settings

        /// Its answer says the settings in force (speed, volume, mute).
        var saysSettings: Bool {
            switch self {
            case .speed, .volume, .muted, .settings: return true
            default: return false
            }
        }
    }

    /// What a request came to: each answer carries a `Result`, refused with the one line that says why.
    enum Answer: Sendable, Hashable {
        case searched(Outcome)
        case nextPage(Outcome)
        /// The page being fetched was stopped (its state comes as a list event).
        case listStopped
        case started(PlaybackTicket, Recording, forQueue: Bool)
        case stopped(Outcome, StopCause)
        case control(PlayerControl, Outcome, settings: PlaybackSettings)
        case pngWritten(path: String, Outcome)
        case textWritten(path: String, Outcome)
        /// `identify save`'s table was written, with so many selections (or why not).
        case selectionsWritten(path: String, Result<Int, Refusal>)
        case quiz(QuizAnswerEvent)
    }

    /// Why the list, the player or the disk refused a request: the line to show.
    struct Refusal: Error, Sendable, Hashable {
        var line: String

        init(_ line: String) {
            self.line = line
        }
    }

    /// A request that gives nothing back was done.
    struct Accepted: Sendable, Hashable {}

    /// What a request that gives nothing back came to.
    typealias Outcome = Result<Accepted, Refusal>
}

extension Result where Success == SessionMachine.Accepted, Failure == SessionMachine.Refusal {
    static var accepted: Self { .success(SessionMachine.Accepted()) }

    static func refused(_ line: String) -> Self { .failure(SessionMachine.Refusal(line)) }

    /// The outcome of a call that answers with the line of its refusal, or nil when it did what was asked.
    init(refusal: String?) {
        self = refusal.map { .refused($0) } ?? .accepted
    }
}
