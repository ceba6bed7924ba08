import ChirperCatalog
import ChirperCore

/// `ab`, as part of the session machine: two sections heard in turn (see `ABMachine`).
extension SessionMachine {
    /// The gap between the sections when none is given.
    static let abGap = 0.5

    mutating func listenAB(_ request: ABRequest) {
        guard let sections = self.sections(request.sides, for: "ab") else { return }
        run(ab: .start(sections, gap: request.gap ?? Self.abGap))
    }

    /// Hands `event` to A/B listening, and does what it decided.
    @discardableResult
    mutating func run(ab event: ABMachine.Event) -> ABMachine.Action {
        let action = ab.handle(event)
        switch action {
        case .nothing:
            break
        case .play(let side, let index):
            // A/B replaces the queue, as a single play does.
            run(queue: .listReplaced)
            say([presenter.abSide(index, recording: side.recording, span: side.span)])
            ask(.play(side.item, side.recording, forQueue: false))
        case .section(let side):
            ask(.control(.section(.absolute(side.span.start), .absolute(side.span.end), side.band)))
        case .wait(let seconds, let round):
            emit(.abWait(seconds: seconds, round: round))
        case .stoppedBetweenSides:
            say([presenter.abStopped])
        }
        return action
    }
}
