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

        func attach(_ server: MPRISServer) {
            let (last, stopped) = state.withLock { state -> (DesktopState?, Bool) in
                if !state.stopped { state.server = server }
                return (state.last, state.stopped)
            }
            if stopped {
                server.stop()
            } else if let last {
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

    /// Passes the desktop's commands to the REPL once it exists (none arrive before: the bus is served from
    /// the moment the server starts).
    final class DesktopCommandRelay: Sendable {
        private let repl = Mutex<REPL?>(nil)

        func send(_ command: DesktopCommand) { repl.withLock { $0 }?.send(.desktop(command)) }
        func attach(_ repl: REPL) { self.repl.withLock { $0 = repl } }
    }

    final class NoticeRelay: Sendable {
        private let state = Mutex<(repl: REPL?, pending: [String])>((nil, []))

        func send(_ line: String) {
            let repl = state.withLock { state -> REPL? in
                if state.repl == nil { state.pending.append(line) }
                return state.repl
            }
            repl?.send(.cacheNotice(line))
        }

        func attach(_ repl: REPL) {
            let pending = state.withLock { state -> [String] in
                state.repl = repl
                defer { state.pending = [] }
                return state.pending
            }
            for line in pending { repl.send(.cacheNotice(line)) }
        }
    }

}
