import ChirperCore
import ChirperSystem

extension SonogramReader {
    /// Draws the live strip: for each `draw` in `work`, the picture of that play request, from its file when the
    /// recording is all on disk (a local file, or one in the play cache: drawn whole at once), otherwise grown
    /// from the audio the player decodes (`heard` in `work`) as it is heard, so a recording being fetched is
    /// fetched once. Each picture (or why there is none) goes to `picture`; runs until `work` ends or the task
    /// is cancelled.
    public func drawStrip(
        _ work: Channel<StripWork, Never>,
        picture: @escaping @Sendable (PlaybackTicket, Result<Sonogram, any Error>) -> Void
    ) async {
        let painter = StripPainter(makeTransform: makeTransform, picture: picture)
        // However it ends, nothing more is queued for it.
        defer { work.cancel() }
        while let next = await work.next() {
            switch next {
            case .heard(let piece):
                painter.heard(piece)
            case .draw(let item, let ticket, let shape, let duration):
                if (try? sources.source(for: item.location))?.wholeLocalFile != nil {
                    painter.drawnWhole(ticket)
                    do {
                        picture(ticket, .success(try await sonogram(of: item, shape: shape)))
                    } catch is CancellationError {
                        return
                    } catch {
                        picture(ticket, .failure(error))
                    }
                } else {
                    painter.grow(item, ticket: ticket, shape: shape, duration: duration)
                }
            }
        }
    }
}

/// The live strip's picture of one play request grown from the audio the player decodes: the pieces heard
/// before the picture is asked for (from the request's start to its first sound) are held, then fed with
/// those that follow, a new picture handed on at every second of audio.
final class StripPainter {
    enum State {
        /// The pieces of the latest request, while its picture is not asked for yet (at most `heldLimit`).
        case holding(PlaybackTicket?, [HeardAudio], seconds: Double)
        /// Growing the picture of a request; its accumulator is made at its first piece (which gives the rate).
        case growing(Growing)
        /// This request's picture was drawn whole from its file, or could not be drawn: its pieces are not needed.
        case finished(PlaybackTicket)
    }

    struct Growing {
        var item: PlayItem
        var ticket: PlaybackTicket
        var shape: SonogramShape
        var duration: Double?
        var accumulator: SonogramAccumulator?
        /// A picture was handed on, and the seconds of audio fed since.
        var shown = false
        var unshown = 0.0
    }

    /// Audio held for a request whose picture is not asked for yet: far more than comes before a first sound.
    static let heldLimit = 30.0
    /// Audio fed between two pictures: the player decodes about two seconds ahead of what is heard (its sink's
    /// buffer), so the page is drawn ahead of the marker, and a page is drawn again about once a second.
    static let pictureEvery = 1.0

    private(set) var state = State.holding(nil, [], seconds: 0)
    private let makeTransform: @Sendable (Int) throws -> any PowerSpectrumTransform
    private let picture: @Sendable (PlaybackTicket, Result<Sonogram, any Error>) -> Void

    init(
        makeTransform: @escaping @Sendable (Int) throws -> any PowerSpectrumTransform,
        picture: @escaping @Sendable (PlaybackTicket, Result<Sonogram, any Error>) -> Void
    ) {
        self.makeTransform = makeTransform
        self.picture = picture
    }

    /// The picture of `ticket` is drawn from its file: what is heard of it is not needed.
    func drawnWhole(_ ticket: PlaybackTicket) {
        state = .finished(ticket)
    }

    /// Grow the picture of `ticket` from what was held of it and what follows (a picture asked again, for a
    /// new shape, starts from what is heard next).
    func grow(_ item: PlayItem, ticket: PlaybackTicket, shape: SonogramShape, duration: Double?) {
        var held: [HeardAudio] = []
        if case .holding(.some(ticket), let pieces, _) = state { held = pieces }
        state = .growing(Growing(item: item, ticket: ticket, shape: shape, duration: duration))
        for piece in held { heard(piece, show: false) }
        show()
    }

    /// A piece the player decoded.
    func heard(_ piece: HeardAudio) {
        heard(piece, show: true)
    }

    private func heard(_ piece: HeardAudio, show: Bool) {
        switch state {
        case .growing(var growing) where growing.ticket == piece.ticket:
            do {
                try feed(piece, into: &growing)
            } catch {
                state = .finished(growing.ticket)
                picture(
                    growing.ticket,
                    .failure(
                        SonogramError(
                            label: growing.item.label, secondsDecoded: growing.accumulator?.secondsFed ?? 0,
                            reason: SonogramReader.reason(error))))
                return
            }
            growing.unshown += piece.seconds
            state = .growing(growing)
            if show, !growing.shown || growing.unshown >= Self.pictureEvery { self.show() }
        case .finished(let ticket) where ticket == piece.ticket:
            break
        case .holding(let ticket, var pieces, var seconds) where ticket == piece.ticket:
            let length = piece.seconds
            guard seconds + length <= Self.heldLimit else { return }
            // The array is taken out of the state while it grows, so it is not copied.
            state = .holding(nil, [], seconds: 0)
            pieces.append(piece)
            seconds += length
            state = .holding(ticket, pieces, seconds: seconds)
        default:
            // A new request (the old one's pieces are never asked for now): held until its picture is asked for.
            state = .holding(piece.ticket, [], seconds: 0)
            heard(piece, show: show)
        }
    }

    /// Feeds `piece`, making the accumulator at the first one.
    private func feed(_ piece: HeardAudio, into growing: inout Growing) throws {
        if growing.accumulator == nil {
            let (shape, duration) = (growing.shape, growing.duration)
            try SonogramReader.check(shape, sampleRate: piece.sampleRate, duration: duration)
            let plan = shape.fftPlan(sampleRate: piece.sampleRate, duration: shape.window?.duration ?? duration ?? 60)
            growing.accumulator = SonogramAccumulator(
                shape: shape, sampleRate: piece.sampleRate, expectedDuration: duration,
                transform: try makeTransform(plan.dft), windowLength: plan.size, hop: plan.hop)
        }
        guard let accumulator = growing.accumulator else { return }
        // A stream that changes rate part-way would smear the frequency axis.
        guard accumulator.sampleRate == piece.sampleRate else {
            throw SonogramStop.rateChanged(from: accumulator.sampleRate, to: piece.sampleRate)
        }
        accumulator.feed(piece.samples, channels: piece.channels, at: piece.frame)
    }

    /// Hands on the picture grown so far (none before the first piece).
    private func show() {
        guard case .growing(var growing) = state, let accumulator = growing.accumulator else { return }
        (growing.shown, growing.unshown) = (true, 0)
        state = .growing(growing)
        picture(growing.ticket, .success(accumulator.picturePlanned()))
    }
}

extension HeardAudio {
    /// Seconds of audio the piece holds.
    fileprivate var seconds: Double {
        Double(samples.count / max(1, channels)) / Double(max(1, sampleRate))
    }
}
