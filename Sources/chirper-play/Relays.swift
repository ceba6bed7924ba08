import ChirperCore
import ChirperDesktop
import ChirperREPL
import Synchronization

extension ChirperPlay {
    /// The desktop as the REPL sees it: each state goes to the MPRIS server once it has started (the last one
    /// before that is shown to it at once).
    final class DesktopRelay: DesktopPublishing {
        private struct State {
            var server: MPRISServer?
            var last: DesktopState?
            var stopped = false
        }

        private let state = Mutex(State())

        func publish(_ desktop: DesktopState, seeked: Bool) {
            let server = state.withLock { state -> MPRISServer? in
                if state.server == nil { state.last = desktop }
                return state.server
            }
            server?.publish(desktop, seeked: seeked)
        }

        /// The server is installed only once the last state kept for it was published: a state published
        /// meanwhile is kept in turn, and handed over next, so the server never gets an older state after a newer.
        func attach(_ server: MPRISServer) {
            while true {
                let (last, stopped) = state.withLock { state -> (DesktopState?, Bool) in
                    defer { state.last = nil }
                    if !state.stopped, state.last == nil { state.server = server }
                    return (state.last, state.stopped)
                }
                if stopped {
                    server.stop()
                    return
                }
                guard let last else { return }
                server.publish(last, seeked: false)
            }
        }

        func stop() {
            let server = state.withLock { state -> MPRISServer? in
                state.stopped = true
                return state.server
            }
            server?.stop()
        }
    }
}
