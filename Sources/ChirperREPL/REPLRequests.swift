import ChirperCatalog
import ChirperCore
import FoundationEssentials
import ChirperSystem

/// Answers the session's requests. The player's commands that answer at once are answered on the runner, in
/// turn; the rest (the list's pages, a stop that waits for the sound to end, files written, the quiz's store)
/// run in a task of their own, off the runner, and come back as an event.
struct RequestAnswerer: Sendable {
    typealias Outcome = SessionMachine.Outcome
    typealias Refusal = SessionMachine.Refusal

    let list: ListController
    let player: any PlaybackControl
    let fieldKit: FieldKit
    let pictures: any PictureWriting
    let quiz: QuizKit

    /// The answer of a request that needs no waiting (the player's commands), or nil for one that does.
    func answerAtOnce(_ request: SessionMachine.Request) -> SessionMachine.Answer? {
        switch request {
        case .play(let item, let recording, let forQueue): return play(item, recording, forQueue: forQueue)
        case .control(let control): return self.control(control)
        case .search, .nextPage, .stopList, .stop, .writePNG, .writeText, .writeSelections, .loadQuiz, .keepQuizAnswer,
            .quizStats,
            .exportQuiz:
            return nil
        }
    }

    private func play(_ item: PlayItem, _ recording: Recording, forQueue: Bool) -> SessionMachine.Answer {
        // The ticket names this request in the states that follow.
        let ticket = player.play(item)
        fieldKit.played(recording)
        return .started(ticket, recording, forQueue: forQueue)
    }

    private func control(_ control: SessionMachine.PlayerControl) -> SessionMachine.Answer {
        let refusal: String?
        switch control {
        case .pause: refusal = player.pause()
        case .resume: refusal = player.resume()
        case .seek(let time): refusal = player.seek(time)
        case .loop(let a, let b): refusal = player.loop(from: a, to: b)
        case .loopOff: refusal = player.loopOff()
        case .speed(let speed): refusal = player.setSpeed(speed)
        case .volume(let percent): refusal = player.setVolume(percent)
        case .muted(let muted): refusal = player.setMuted(muted)
        case .section(let a, let b, let band): refusal = player.playSection(from: a, to: b, band: band)
        case .settings: refusal = nil
        }
        return .control(control, Outcome(refusal: refusal), settings: player.settings)
    }

    /// The answer of any request; called off the runner for those that wait or write.
    func answer(_ request: SessionMachine.Request) async -> SessionMachine.Answer {
        switch request {
        case .play(let item, let recording, let forQueue):
            return play(item, recording, forQueue: forQueue)
        case .control(let control):
            return self.control(control)
        case .search(let query):
            return .searched(Outcome(refusal: await list.search(query)))
        case .nextPage:
            return .nextPage(Outcome(refusal: await list.nextPage()))
        case .stopList:
            await list.stop()
            return .listStopped
        case .stop(let cause):
            return .stopped(Outcome(refusal: await player.stop()), cause)
        case .writeText(let text, let path):
            do {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                return .textWritten(path: path, .accepted)
            } catch {
                let reason = FileErrorText.reason(error)
                return .textWritten(path: path, .refused("cannot write \(path): \(reason)"))
            }
        case .writeSelections(let text, let path, let selections):
            switch FileIO.writeNew(text, to: path) {
            case nil:
                return .selectionsWritten(path: path, .success(selections))
            case .exists:
                return .selectionsWritten(
                    path: path,
                    .failure(Refusal("\(path) already exists; left as it is (delete it, or save under another name)")))
            case .failed(let reason):
                return .selectionsWritten(path: path, .failure(Refusal("cannot write \(path): \(reason)")))
            }
        case .writePNG(let image, let path):
            do {
                try pictures.writePNG(image, to: path)
                return .pngWritten(path: path, .accepted)
            } catch {
                return .pngWritten(path: path, .refused(userMessage(for: error)))
            }
        case .loadQuiz(let deck):
            let now = quiz.now()
            do {
                return .quiz(.loaded(.success(try quiz.store.load(deck, at: now)), now: now))
            } catch {
                return .quiz(.loaded(.failure(Refusal(userMessage(for: error))), now: now))
            }
        case .keepQuizAnswer(let record):
            let now = quiz.now()
            do {
                return .quiz(.kept(try quiz.store.keep(record, at: now), now: now, .accepted))
            } catch {
                return .quiz(.kept(record.memory(at: now), now: now, .refused(userMessage(for: error))))
            }
        case .quizStats:
            do {
                return .quiz(.stats(.success(try quiz.store.stats(at: quiz.now()))))
            } catch {
                return .quiz(.stats(.failure(Refusal(userMessage(for: error)))))
            }
        case .exportQuiz(let path):
            do {
                let rows = try quiz.store.exportRows()
                try QuizExport.csv(rows).write(toFile: path, atomically: true, encoding: .utf8)
                return .quiz(.exported(path: path, .success(rows.count)))
            } catch {
                let reason =
                    error is any UserFacingError
                    ? userMessage(for: error)
                    : "cannot write \(path): \(FileErrorText.reason(error))"
                return .quiz(.exported(path: path, .failure(Refusal(reason))))
            }
        }
    }
}
