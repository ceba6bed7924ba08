import ChirperCore

/// When the status line's buffer figure is redrawn: only what changed, and not faster than it changes.
///
/// While a track plays, decoded audio is queued in chunks as the listener hears it, so the figure saws up and down
/// by a few tenths at every progress tick (`buf 1.9 s`, 1.8, 1.7, 1.6, 1.9, …), and it alone would redraw the line
/// ten times a second, where the clock changes once. The figure shown is therefore kept while the buffer stays
/// within `step` of it and at least `low`: the line is redrawn, with the buffer as it is then, when something else on
/// it changes (the clock, every second), when the buffer moves by `step`, and at every change below `low`, where a
/// listener watches it fall.
enum StatusBufferHold {
    static let step = 0.5
    static let low = 1.0

    /// The shown figure may stand for `now`.
    static func holds(shown: Double, now: Double) -> Bool {
        now >= low && shown >= low && abs(now - shown) < step
    }
}

extension PlaybackState {
    /// This state with the buffer figure `buffered` (for the status line; nothing else reads it).
    func showing(buffered: Double) -> PlaybackState {
        switch self {
        case .buffering(var progress):
            progress.buffered = buffered
            return .buffering(progress)
        case .playing(var progress):
            progress.buffered = buffered
            return .playing(progress)
        case .paused(var progress):
            progress.buffered = buffered
            return .paused(progress)
        case .idle, .failed:
            return self
        }
    }
}
