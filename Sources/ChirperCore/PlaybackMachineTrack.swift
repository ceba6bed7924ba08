/// The playback machine's side of one track's machine: what the track reports becomes the pipeline event it
/// names, for the track of `ticket`.
extension PlaybackMachine {
    public mutating func handle(_ report: TrackMachine.Report, ticket: Ticket) -> Action {
        switch report {
        case .bytesArrived(let count):
            bytesArrived(count, ticket: ticket)
        case .durationKnown(let seconds):
            durationKnown(seconds, ticket: ticket)
        case .pcmQueued(let seconds, let segment, let ahead):
            pcmQueued(seconds: seconds, ticket: ticket, segment: segment, ahead: ahead)
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
