/// The playback machine's side of one track's machine, which it keeps in the track's session: the driver's
/// events go to it here, its reports become the pipeline events they name, and its other actions go back to
/// the driver.
extension PlaybackMachine {
    /// What one event of the track's driver leads to: the driver's actions, in order, and the playback
    /// machine's (the effects its reports lead to).
    public struct TrackStep: Sendable, Hashable {
        public var driver: [TrackMachine.Action]
        public var actions: [Action]

        public init(driver: [TrackMachine.Action] = [], actions: [Action] = []) {
            self.driver = driver
            self.actions = actions
        }
    }

    /// The driver of the track of `ticket` met `event`. A track no longer loaded (stopped or replaced) ends.
    public mutating func trackEvent(_ event: TrackMachine.Event, ticket: Ticket) -> TrackStep {
        guard let decided = modify(ticket, { $0.track.handle(event) }) else {
            return TrackStep(driver: [.end(.ended)])
        }
        var step = TrackStep()
        for action in decided {
            guard case .report(let report) = action else {
                step.driver.append(action)
                continue
            }
            let mapped = handle(report, ticket: ticket)
            if mapped != .nothing { step.actions.append(mapped) }
        }
        return step
    }

    /// The track's source is open: whether it can be asked again from a byte (a dropped connection is resumed).
    public mutating func sourceOpened(canResume: Bool, ticket: Ticket) -> Action {
        update(ticket) { session in session.track.limits.canResume = canResume }
        return .nothing
    }

    /// The facts of the track of `ticket`, while it is loaded.
    public func track(of ticket: Ticket) -> TrackMachine.Track? {
        guard let session, session.ticket == ticket else { return nil }
        return session.track.track
    }

    /// A report of the session's track machine.
    mutating func handle(_ report: TrackMachine.Report, ticket: Ticket) -> Action {
        switch report {
        case .bytesArrived(let count):
            bytesArrived(count, ticket: ticket)
        case .durationKnown(let seconds):
            durationKnown(seconds, ticket: ticket)
        case .damaged(let damage):
            damaged(damage, ticket: ticket)
        case .pcmQueued(_, let segment, let ahead):
            // The track's machine counted them.
            queuedReported(ticket: ticket, segment: segment, ahead: ahead)
        case .progress(let position):
            progress(playedSeconds: position.seconds, ticket: ticket, segment: position.segment)
        case .seekLanded(let seconds, let landing, let offset, let rangeIgnored, let segment):
            seekLanded(
                at: seconds, landing: landing, networkOffset: offset, rangeIgnored: rangeIgnored, ticket: ticket,
                segment: segment)
        case .loopWrapped(let output, let start, let segment):
            loopWrapped(atOutput: output, to: start, ticket: ticket, segment: segment)
        case .connectionDropped(let segment):
            connectionDropped(ticket: ticket, segment: segment)
        case .endOfStream(let segment):
            endOfStream(ticket: ticket, segment: segment)
        case .drainFinished(let segment, let late):
            drainFinished(ticket: ticket, segment: segment, late: late)
        }
    }
}
