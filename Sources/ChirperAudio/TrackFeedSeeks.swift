import ChirperCore
import ChirperSystem

/// Loops and seeks of a track: the seam of a loop, its replay from memory, a new segment, a reposition.
extension TrackFeed {
    /// The loop reached its end: report the seam, then replay the kept pass from memory, or go back to the
    /// loop's start in the held bytes.
    func wrap(to start: Double) async throws {
        let output = machine.segmentQueued
        let number = machine.plan.number
        _ = send { [ticket] in $0.loopWrapped(atOutput: output, to: start, ticket: ticket, segment: number) }
        if case .seekBack(let seconds) = machine.wrap(to: start) {
            _ = try await reposition(to: seconds)
        }
    }

    /// Plays the next piece of the kept pass; at its end, wraps again, or (loop off) goes on decoding from
    /// the loop's end.
    func replayNext() async throws {
        guard let piece = machine.nextReplayPiece() else { return }
        guard try await play(Array(piece)) == .goOn else { return }
        switch machine.replayPiecePlayed() {
        case .goOn:
            break
        case .wrapped(let output, let start):
            let number = machine.plan.number
            _ = send { [ticket] in $0.loopWrapped(atOutput: output, to: start, ticket: ticket, segment: number) }
        case .resume(let seconds):
            _ = try await reposition(to: seconds)
        }
    }

    /// A seek, loop or speed change: a new segment from `segment.start` on a new output (the runner retired
    /// the old one). Before the format is known, it waits for it.
    func restart(_ segment: PlaybackSegment) async throws {
        guard machine.restart(segment), let format = machine.format else { return }
        guard let landing = try await reposition(to: segment.start) else {
            machine.restartWaitsForFormat()
            return
        }
        speed = try SpeedProcessor(format: format, speed: segment.settings.speed)
        bandPass = segment.loop?.band.flatMap { BandPassFilter(band: $0, format: format) }
        try await install(format)
        let number = segment.number
        let ignored = reader?.rangeIgnored ?? false
        _ = send {
            $0.seekLanded(
                at: landing.seconds, landing: landing.landing, networkOffset: landing.request,
                rangeIgnored: ignored && landing.request != nil,
                ticket: ticket, segment: number)
        }
    }

    /// Points the decoder at recording time `seconds`: from the held bytes, by reading on, or with a new
    /// request. Returns where the audio will start and the offset of a new request; nil before the decoder
    /// can seek (its format is not known yet).
    private func reposition(to seconds: Double) async throws -> (seconds: Double, landing: Landing, request: Int64?)? {
        guard let format = machine.format else { return nil }
        let frame = SeekPlan(sampleRate: format.sampleRate).frame(atSeconds: seconds)
        let offset: Int64
        let landed: Int
        var landing = Landing.exact
        // MP3: the decoder lands on the frame asked for (CBR, or inside what arrived), or near it (VBR beyond
        // what arrived, by the Xing TOC), and says which.
        if let point = try decoder.seekMP3(toFrame: frame) {
            offset = point.bodyOffset
            landed = point.frame
            landing = point.accurate ? .exact : .estimated
        } else if decoder.isWAV, let location = WAVDataLocation(header: headerBytes) {
            let fresh = StreamDecoder()
            // The header only announces the format, which is the one playing.
            _ = try fresh.feed(location.resumeHeader(atFrame: frame))
            decoder = fresh
            offset = Int64(location.byteOffset(atFrame: frame))
            landed = frame
        } else {
            return nil
        }
        let start = machine.landed(atFrame: landed, target: frame)
        var request: Int64?
        switch SeekPlan.fetch(target: offset, received: held.end, heldFrom: held.heldFrom) {
        case .continueFeeding, .refeedHeld, .discardForward:
            decodeOffset = offset
        case .request(let from):
            reader = nil
            held.restart(at: from)
            decodeOffset = from
            machine.requested()
            request = from
            do {
                reader = try await source.open(from: from)
            } catch  where source.canResume && Self.isDrop(error) {
                // Reported as a dropped connection at the next read.
                reader = nil
            }
        }
        return (start, landing, request)
    }
}
