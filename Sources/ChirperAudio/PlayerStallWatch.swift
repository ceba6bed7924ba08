import ChirperCore
import NIOConcurrencyHelpers

/// The player's stall watchdog: it times the machine's stall watch on the injected stall clock.
extension Player {
    /// Times the machine's stall watch: a new watch starts the wait from now, no watch stops the timer.
    func followStallWatch(at now: Duration, in locked: inout Locked) {
        let watch = locked.machine.stallWatch
        guard watch != locked.stall?.watch else { return }
        guard let watch else {
            locked.stall = nil
            locked.stallTimer?.cancel()
            locked.stallTimer = nil
            return
        }
        locked.stall = (watch, now)
        if locked.stallTimer == nil {
            locked.stallTimer = Task { [self] in await watchStalls() }
        }
    }

    /// Sleeps on the stall clock until the current watch has lasted `stallTimeout`, then tells the machine
    /// (which fails the track if the watch is still current). Ends when the machine watches nothing.
    func watchStalls() async {
        let timeout = configuration.stallTimeout
        while !Task.isCancelled {
            let wait = locked.withLockedValue { locked -> (watch: StallWatch, left: Duration)? in
                locked.stall.map { ($0.watch, $0.since + timeout - stallElapsed()) }
            }
            guard let wait else { return }
            guard wait.left <= .zero else {
                do {
                    try await clocks.stall.sleep(for: wait.left)
                } catch {
                    return
                }
                continue
            }
            if .zero - wait.left >= configuration.lateWakeGrace {
                regrace(wait.watch)
                continue
            }
            let (seconds, attoseconds) = timeout.components
            send { $0.stallTimedOut(wait.watch, after: Double(seconds) + Double(attoseconds) / 1e18) }
        }
    }

    /// The watchdog woke late enough that it was not running itself: the sign of life that ended `watch` may
    /// be waiting to be seen, so `watch` is timed again as if it began `stallTimeout − lateWakeGrace` ago. A
    /// process starved for longer than the stall limit, or a laptop that slept, then judges the network only
    /// on time it was there to watch it.
    private func regrace(_ watch: StallWatch) {
        let since = stallElapsed() - configuration.stallTimeout + configuration.lateWakeGrace
        locked.withLockedValue { locked in
            guard locked.stall?.watch == watch else { return }
            locked.stall?.since = since
        }
    }
}
