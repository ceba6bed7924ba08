import ChirperCore
import ChirperSystem

extension SonogramReader {
    /// Draws the live strip: for each `draw` in `work`, the picture of that play request, from its file when the
    /// recording is all on disk (a local file, or one in the play cache: drawn whole, in a task a newer request
    /// stops), otherwise grown from the audio the player decodes (`heard` in `work`) as it is heard, so a
    /// recording being fetched is fetched once. Each picture (or why there is none) goes to `picture`; runs until
    /// `work` ends (and a whole drawing under way is done) or the task is cancelled. `StripMachine` decides;
    /// this performs its actions.
    public func drawStrip(
        _ work: Channel<StripWork, Never>,
        picture: @escaping @Sendable (PlaybackTicket, Result<Sonogram, any Error>) -> Void
    ) async {
        let inputs = Channel<StripMachine.Event, Never>()
        // However it ends, nothing more is queued for it.
        defer {
            work.cancel()
            inputs.cancel()
        }
        await withDiscardingTaskGroup { group in
            group.addTask { [sources] in
                while let next = await work.next() {
                    switch next {
                    case .heard(let piece):
                        inputs.post(.heard(piece))
                    case .draw(let item, let ticket, let shape, let duration):
                        let onDisk = (try? sources.source(for: item.location))?.wholeLocalFile != nil
                        inputs.post(.drawRequested(item, ticket, shape, duration: duration, wholeLocalFile: onDisk))
                    }
                }
                inputs.post(.workEnded)
            }
            var runner = StripRunner(reader: self, inputs: inputs, picture: picture)
            while !runner.stopped, let event = await inputs.next() { runner.handle(event) }
            runner.handle(.cancelled)
            work.cancel()
            group.cancelAll()
        }
    }
}

/// Performs the strip machine's actions: the accumulator of the picture being grown, and the task drawing one
/// whole from its file.
struct StripRunner {
    private(set) var machine = StripMachine()
    let reader: SonogramReader
    let inputs: Channel<StripMachine.Event, Never>
    let picture: @Sendable (PlaybackTicket, Result<Sonogram, any Error>) -> Void
    private var accumulator: SonogramAccumulator?
    private var whole: Task<Void, Never>?
    /// The machine said the work is over.
    private(set) var stopped = false

    init(
        reader: SonogramReader, inputs: Channel<StripMachine.Event, Never>,
        picture: @escaping @Sendable (PlaybackTicket, Result<Sonogram, any Error>) -> Void
    ) {
        self.reader = reader
        self.inputs = inputs
        self.picture = picture
    }

    mutating func handle(_ event: StripMachine.Event) {
        var pending = machine.handle(event)
        while !pending.isEmpty {
            let action = pending.removeFirst()
            if let next = perform(action) { pending = machine.handle(next) + pending }
        }
    }

    /// Performs `action`; the event it gives at once, if any.
    private mutating func perform(_ action: StripMachine.Action) -> StripMachine.Event? {
        switch action {
        case .startAccumulator(let ticket, let shape, let sampleRate, let duration):
            let plan = shape.fftPlan(sampleRate: sampleRate, duration: shape.window?.duration ?? duration ?? 60)
            do {
                accumulator = SonogramAccumulator(
                    shape: shape, sampleRate: sampleRate, expectedDuration: duration,
                    transform: try reader.makeTransform(plan.dft), windowLength: plan.size, hop: plan.hop)
            } catch {
                accumulator = nil
                return .accumulatorFailed(ticket, reason: SonogramReader.reason(error))
            }
        case .accumulate(let piece):
            accumulator?.feed(piece.samples, channels: piece.channels, at: piece.frame)
        case .showGrown(let ticket):
            if let accumulator { picture(ticket, .success(accumulator.picturePlanned())) }
        case .show(let ticket, let sonogram):
            picture(ticket, .success(sonogram))
        case .drawWhole(let item, let ticket, let shape):
            let (reader, inputs) = (reader, inputs)
            whole = Task {
                do {
                    let sonogram = try await reader.sonogram(of: item, shape: shape)
                    inputs.post(.wholeDrawn(ticket, sonogram))
                } catch is CancellationError {
                } catch {
                    inputs.post(.wholeFailed(ticket, message: userMessage(for: error)))
                }
            }
        case .cancelWhole:
            whole?.cancel()
            whole = nil
        case .fail(let ticket, let message):
            picture(ticket, .failure(StripFailure(userMessage: message)))
        case .stop:
            stopped = true
        }
        return nil
    }
}

/// Why the strip has no picture of a request: the one line the machine made.
struct StripFailure: UserFacingError, Equatable {
    var userMessage: String
}
