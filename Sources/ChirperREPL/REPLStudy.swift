import ChirperCatalog
import ChirperCore
import Foundation

/// The REPL's study effects: `sono`, the live strip and annotation loops.
extension REPL {
    /// Computes row `row`'s sonogram off the event loop; the lines arrive as an event (a script waits for
    /// them before its next line).
    func drawSonogram(row: Int, maxKHz: Double?) {
        guard let recording = recording(at: row, for: "sono") else { return }
        guard case .playable = recording.audio, let item = recording.playItem else {
            let why: String
            switch recording.audio {
            case .restricted: why = "is restricted: \(presenter.sourceName) does not offer its audio"
            case .refused(let reason): why = "cannot be decoded: \(reason)"
            case .playable: why = "has no audio"
            }
            console.print([presenter.refusal("row \(row) (\(recording.label)) \(why)")])
            return
        }
        let presenter = self.presenter
        let (width, lines) = presenter.sonogramShape
        let shape = presenter.sonogramRenderer.shape(
            terminalWidth: width, lines: lines, maxFrequency: maxKHz.map { $0 * 1000 })
        let sonograms = self.sonograms
        let sink = eventSink
        sonogramTask?.cancel()
        sonogramTask = Task {
            let result: Result<[String], SonogramFailure>
            do {
                let sonogram = try await sonograms.sonogram(of: item, shape: shape)
                result = .success(
                    presenter.sonogram(sonogram, label: recording.label, title: recording.englishName))
            } catch is CancellationError {
                result = .failure(SonogramFailure(message: "sono \(row) stopped"))
            } catch {
                result = .failure(SonogramFailure(message: userMessage(for: error)))
            }
            sink.yield(.sonogram(result))
        }
        if !console.isInteractive { gate.handle(.hold(.sonogram)) }
    }

    /// `loop ann <k>`: loops box k of the last recording asked for; the player refuses when it no longer plays
    /// (it is ahead of the rendered state, as for `stop`).
    func loopAnnotation(_ k: Int) {
        guard let recording = playing?.recording else {
            console.print([presenter.refusal("nothing is playing: play a row, then loop ann <k>")])
            return
        }
        let boxes = recording.annotations
        guard !boxes.isEmpty else {
            console.print([presenter.refusal("\(recording.label) has no annotation boxes")])
            return
        }
        guard k <= boxes.count else {
            console.print([
                presenter.refusal("\(recording.label) has \(boxes.count) annotation boxes, not \(k); info lists them")
            ])
            return
        }
        guard let span = boxes[k - 1].span else {
            console.print([
                presenter.refusal("annotation box \(k) of \(recording.label) has no start and end time to loop")
            ])
            return
        }
        refuseIf(player.loop(from: .absolute(span.start), to: .absolute(span.end)))
    }

    /// Runs what the strip machine decided: compute a picture off the event loop, or stop computing.
    func run(_ action: SonogramStripMachine.Action) {
        switch action {
        case .none:
            break
        case .refuse(let reason):
            console.print([presenter.refusal(reason)])
        case .cancel:
            stripTask?.cancel()
            stripTask = nil
        case .compute(let item, let ticket):
            stripTask?.cancel()
            let shape = presenter.stripShape(duration: playback.progress?.duration ?? item.expectedDuration)
            let sonograms = self.sonograms
            let sink = eventSink
            stripTask = Task {
                do {
                    let picture = try await sonograms.sonogram(of: item, shape: shape)
                    sink.yield(.stripPicture(ticket, .success(picture)))
                } catch is CancellationError {
                    // Turned off, or replaced by the next recording's picture.
                } catch {
                    sink.yield(.stripPicture(ticket, .failure(SonogramFailure(message: userMessage(for: error)))))
                }
            }
        }
    }
}
