import ChirperCore

/// The live strip's decisions, pure: for each play request, whether its picture is drawn whole from its file
/// (when the recording is all on disk) or grown from the audio the player decodes, which pieces of audio are
/// held, fed or dropped, and when a picture is handed on. `drawStrip` performs its actions and decides nothing.
struct StripMachine {
    enum State: Equatable {
        /// The pieces of the latest request (`ticket`), while its picture is not asked for yet (at most
        /// `heldLimit` seconds); `whole`: an older request's picture still being drawn from its file.
        case holding(PlaybackTicket?, [HeardAudio], seconds: Double, whole: PlaybackTicket?)
        /// Drawing the picture of a request whole from its file: its pieces are not needed.
        case drawingWhole(PlaybackTicket)
        /// Growing the picture of a request from what is heard.
        case growing(Growing)
        /// This request's picture was drawn, or cannot be: its pieces are not needed.
        case finished(PlaybackTicket)
        /// No more work comes; the picture of this request, still being drawn from its file, is awaited.
        case ending(PlaybackTicket)
    }

    struct Growing: Equatable {
        var ticket: PlaybackTicket
        var label: String
        var shape: SonogramShape
        var duration: Double?
        /// The rate of the first piece, which started the accumulator (nil before it).
        var sampleRate: Int?
        /// How far into the recording the audio fed reaches, in seconds.
        var secondsReached = 0.0
        /// A picture was handed on, and the seconds of audio fed since.
        var shown = false
        var unshown = 0.0
    }

    enum Event: Equatable {
        /// The picture of `ticket` is asked for; `wholeLocalFile`: its recording is all on disk.
        case drawRequested(PlayItem, PlaybackTicket, SonogramShape, duration: Double?, wholeLocalFile: Bool)
        /// A piece the player decoded.
        case heard(HeardAudio)
        /// The picture drawn whole from the file of `ticket`.
        case wholeDrawn(PlaybackTicket, Sonogram)
        /// Drawing it whole failed, with the one line saying why.
        case wholeFailed(PlaybackTicket, message: String)
        /// The accumulator for `ticket` could not be made, and why.
        case accumulatorFailed(PlaybackTicket, reason: String)
        /// No more work comes.
        case workEnded
        /// The strip is gone.
        case cancelled
    }

    enum Action: Equatable {
        /// Make a new accumulator for `ticket` (replacing any other).
        case startAccumulator(PlaybackTicket, SonogramShape, sampleRate: Int, duration: Double?)
        /// Feed the piece into the accumulator at its place in the recording.
        case accumulate(HeardAudio)
        /// Hand on the picture of `ticket` grown so far.
        case showGrown(PlaybackTicket)
        /// Hand on the picture of `ticket` drawn whole.
        case show(PlaybackTicket, Sonogram)
        /// Draw the picture of `ticket` whole from its file, in a task of its own.
        case drawWhole(PlayItem, PlaybackTicket, SonogramShape)
        /// Stop the whole-file drawing under way.
        case cancelWhole
        /// There is no picture of `ticket`: the one line saying why.
        case fail(PlaybackTicket, message: String)
        /// Nothing more is drawn: the strip's work is over.
        case stop
    }

    /// Audio held for a request whose picture is not asked for yet: far more than comes before a first sound.
    static let heldLimit = 30.0
    /// Audio fed between two pictures: the player decodes ahead of what is heard (its sink's buffer), so a page
    /// drawn this often is ready before the marker reaches it, without redrawing it at every piece.
    static let pictureEvery = 1.0

    private(set) var state = State.holding(nil, [], seconds: 0, whole: nil)

    /// The request whose picture is drawn or awaited now; pieces of older ones are dropped.
    private var latest: PlaybackTicket? {
        switch state {
        case .holding(let ticket, _, _, _): ticket
        case .drawingWhole(let ticket), .finished(let ticket), .ending(let ticket): ticket
        case .growing(let growing): growing.ticket
        }
    }

    /// A whole-file drawing under way, and for which request.
    var wholeUnderWay: PlaybackTicket? {
        switch state {
        case .drawingWhole(let ticket), .ending(let ticket): ticket
        case .holding(_, _, _, let whole): whole
        case .growing, .finished: nil
        }
    }

    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .drawRequested(let item, let ticket, let shape, let duration, let wholeLocalFile):
            return draw(item, ticket: ticket, shape: shape, duration: duration, wholeLocalFile: wholeLocalFile)
        case .heard(let piece):
            return heard(piece, show: true)
        case .wholeDrawn(let ticket, let picture):
            guard wholeUnderWay == ticket else { return [] }
            return [.show(ticket, picture)] + endWhole(ticket)
        case .wholeFailed(let ticket, let message):
            guard wholeUnderWay == ticket else { return [] }
            return [.fail(ticket, message: message)] + endWhole(ticket)
        case .accumulatorFailed(let ticket, let reason):
            guard case .growing(let growing) = state, growing.ticket == ticket else { return [] }
            return fail(growing, reason: reason)
        case .workEnded:
            // A picture being drawn from its file is still handed on.
            if let whole = wholeUnderWay {
                state = .ending(whole)
                return []
            }
            state = .holding(nil, [], seconds: 0, whole: nil)
            return [.stop]
        case .cancelled:
            let stop: [Action] = wholeUnderWay == nil ? [] : [.cancelWhole]
            state = .holding(nil, [], seconds: 0, whole: nil)
            return stop
        }
    }

    /// A newer request replaces the picture being made: a whole-file drawing under way is stopped.
    private mutating func draw(
        _ item: PlayItem, ticket: PlaybackTicket, shape: SonogramShape, duration: Double?, wholeLocalFile: Bool
    ) -> [Action] {
        var actions: [Action] = wholeUnderWay == nil ? [] : [.cancelWhole]
        if wholeLocalFile {
            state = .drawingWhole(ticket)
            return actions + [.drawWhole(item, ticket, shape)]
        }
        // What was heard of it before is drawn at once; a picture asked again (a new shape) starts from what is
        // heard next.
        var held: [HeardAudio] = []
        if case .holding(.some(ticket), let pieces, _, _) = state { held = pieces }
        state = .growing(Growing(ticket: ticket, label: item.label, shape: shape, duration: duration))
        for piece in held { actions += heard(piece, show: false) }
        if case .growing(var growing) = state, growing.sampleRate != nil {
            (growing.shown, growing.unshown) = (true, 0)
            state = .growing(growing)
            actions.append(.showGrown(ticket))
        }
        return actions
    }

    private mutating func heard(_ piece: HeardAudio, show: Bool) -> [Action] {
        if let latest, piece.ticket < latest { return [] }
        switch state {
        case .growing(var growing) where growing.ticket == piece.ticket:
            var actions: [Action] = []
            if let rate = growing.sampleRate {
                // A stream that changes rate part-way would smear the frequency axis.
                guard rate == piece.sampleRate else {
                    return fail(growing, reason: SonogramStop.rateChanged(from: rate, to: piece.sampleRate).description)
                }
            } else {
                do {
                    try SonogramReader.check(growing.shape, sampleRate: piece.sampleRate, duration: growing.duration)
                } catch {
                    return fail(growing, reason: SonogramReader.reason(error))
                }
                growing.sampleRate = piece.sampleRate
                actions.append(
                    .startAccumulator(
                        growing.ticket, growing.shape, sampleRate: piece.sampleRate, duration: growing.duration))
            }
            actions.append(.accumulate(piece))
            growing.secondsReached = max(growing.secondsReached, piece.end)
            growing.unshown += piece.seconds
            if show, !growing.shown || growing.unshown >= Self.pictureEvery {
                (growing.shown, growing.unshown) = (true, 0)
                actions.append(.showGrown(growing.ticket))
            }
            state = .growing(growing)
            return actions
        case .drawingWhole(let ticket), .finished(let ticket):
            if ticket == piece.ticket { return [] }
        case .ending:
            return []
        case .holding(let ticket, var pieces, var seconds, let whole) where ticket == piece.ticket:
            guard seconds + piece.seconds <= Self.heldLimit else { return [] }
            // The array is taken out of the state while it grows, so it is not copied.
            state = .finished(piece.ticket)
            pieces.append(piece)
            seconds += piece.seconds
            state = .holding(ticket, pieces, seconds: seconds, whole: whole)
            return []
        case .growing, .holding:
            break
        }
        // A newer request: held until its picture is asked for; an older one drawn whole is still finished, as
        // its end is still being heard.
        state = .holding(piece.ticket, [piece], seconds: piece.seconds, whole: wholeUnderWay)
        return []
    }

    private mutating func fail(_ growing: Growing, reason: String) -> [Action] {
        state = .finished(growing.ticket)
        let error = SonogramError(label: growing.label, secondsDecoded: growing.secondsReached, reason: reason)
        return [.fail(growing.ticket, message: error.userMessage)]
    }

    /// The whole-file drawing of `ticket` is over; the strip stops if its work is.
    private mutating func endWhole(_ ticket: PlaybackTicket) -> [Action] {
        switch state {
        case .holding(let held, let pieces, let seconds, _):
            state = .holding(held, pieces, seconds: seconds, whole: nil)
            return []
        case .ending:
            state = .finished(ticket)
            return [.stop]
        default:
            state = .finished(ticket)
            return []
        }
    }
}

extension HeardAudio {
    /// Seconds of audio the piece holds.
    var seconds: Double {
        Double(samples.count / max(1, channels)) / Double(max(1, sampleRate))
    }

    /// Where in the recording the piece ends, in seconds.
    var end: Double {
        Double(frame + samples.count / max(1, channels)) / Double(max(1, sampleRate))
    }
}
