/// The playback machine's study events: seek, loop, speed, volume and mute.
extension PlaybackMachine {
    // MARK: - Studying a recording: seek, loop, speed, volume

    /// The user asked to jump to `time` (absolute, or a step from the position). A time outside the
    /// recording is refused; a step back past the start lands on the start. Seeking out of the loop ends it.
    public mutating func seekRequested(_ time: TimeInput) -> Action {
        guard var session = loadedSession else { return refusal(for: "seek") }
        switch time.resolve(current: session.position, duration: session.knownDuration) {
        case .failure(let error):
            return .refuse(error.message)
        case .success(let target):
            // Seeking out of the loop ends it.
            let loop = session.loop.flatMap { (($0.start..<$0.end).contains(target)) ? $0 : nil }
            return restart(&session, at: target, loop: loop)
        }
    }

    /// The user asked to repeat `a`…`b` until told otherwise: playback jumps to `a` and wraps at `b`.
    /// `once`: the section plays one time and the track ends at its end (A/B listening).
    /// `band`: only that band of it is heard.
    public mutating func loopRequested(
        from a: TimeInput, to b: TimeInput, once: Bool = false, band: FrequencyBand? = nil
    ) -> Action {
        guard realTimeOutput else {
            // Said as what was asked for: a section once (`ab`'s sides, a quiz's excerpt) or a loop.
            return .refuse(
                "\(once ? "playing a section needs" : "loops need") a sound server: --output wav and null run faster"
                    + " than real time")
        }
        guard var session = loadedSession else { return refusal(for: "loop") }
        switch LoopSection.resolve(a, b, current: session.position, duration: session.knownDuration) {
        case .failure(let error):
            return .refuse(error.message)
        case .success(var section):
            section.once = once
            section.band = band
            return restart(&session, at: section.start, loop: section)
        }
    }

    /// The user asked to stop repeating: playback goes on from where it is, past the loop's end.
    public mutating func loopOffRequested() -> Action {
        guard var session = loadedSession else { return refusal(for: "loop off") }
        guard session.loop != nil else { return .refuse("no loop is set; loop <a> <b> sets one") }
        // The track's machine keeps the loop: it plays on past the loop's end from its next step.
        session.track.setLoop(nil)
        replace(session)
        return .nothing
    }

    /// The user chose a speed: it holds for this track (from the position heard now) and the next ones.
    public mutating func speedRequested(_ speed: PlaybackSpeed) -> Action {
        settings.speed = speed
        guard var session = loadedSession else { return .nothing }
        return restart(&session, at: session.position, loop: session.loop)
    }

    /// The user set the volume (0…100): applied at once, kept for later tracks; unmutes.
    public mutating func volumeRequested(_ percent: Int) -> Action {
        guard (0...100).contains(percent) else { return .refuse("volume goes from 0 to 100, e.g. volume 50") }
        settings.volume = percent
        settings.muted = false
        return .applyVolume(percent: settings.audibleVolume)
    }

    /// The user muted (`true`) or unmuted; the volume is kept.
    public mutating func muteRequested(_ muted: Bool) -> Action {
        guard settings.muted != muted else { return .refuse(muted ? "already muted; unmute" : "not muted") }
        settings.muted = muted
        return .applyVolume(percent: settings.audibleVolume)
    }
}
