import ChirperCatalog
import ChirperCore

/// `ab`, as part of the session machine: two sections heard in turn (see `ABMachine`).
extension SessionMachine {
    /// The gap between the sections when none is given.
    static let abGap = 0.5

    mutating func listenAB(_ request: ABRequest) {
        guard let sections = self.sections(request.sides, for: "ab") else { return }
        run(ab.start(sections, gap: request.gap ?? Self.abGap))
    }

    /// Runs what the A/B machine decided.
    mutating func run(_ action: ABMachine.Action) {
        switch action {
        case .nothing:
            break
        case .play(let side, let index):
            // A/B replaces the queue, as a single play does.
            run(queue: .listReplaced)
            say([presenter.abSide(index, recording: side.recording, span: side.span)])
            ask(.play(side.item, side.recording, forQueue: false))
        case .wait(let seconds, let round):
            emit(.abWait(seconds: seconds, round: round))
        }
    }

    /// A play request was answered: if it is the A/B side asked for, it plays only its section.
    mutating func abStarted(_ ticket: PlaybackTicket) {
        guard case .starting(let index) = ab.state else { return }
        ab.started(ticket)
        let side = ab.sides[index]
        ask(.control(.section(.absolute(side.span.start), .absolute(side.span.end), side.band)))
    }
}
