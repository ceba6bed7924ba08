import AsyncHTTPClient
import ChirperAudio
import ChirperHTTP
import ChirperTestSupport

extension Transport {
    /// The HTTP clients the player streams with: the program's own set-up (no proxy), trusting the run's CA over
    /// HTTPS.
    var routes: HTTPRoutes { self == .https ? Self.trustingRoutes : Self.plainRoutes }

    var sources: ByteSources { .live(routes: routes) }

    private static let trustingRoutes = HTTPClients.streaming(
        trust: TLSTrust(base: .system, caFiles: [caFile]), rules: .direct)
    private static let plainRoutes = HTTPClients.streaming(trust: .system, rules: .direct)
}
