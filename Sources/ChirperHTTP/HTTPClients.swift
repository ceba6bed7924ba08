import AsyncHTTPClient
import NIOCore

/// The HTTP clients chirper-play makes, each with the session's TLS trust.
///
/// A connection that cannot be made fails its request at once (`retryConnectionEstablishment` off): retried,
/// an untrusted certificate, a refused port or an unknown host kept a search at `loading` for the whole 15 s
/// connect timeout before its one line. The player's reconnects and the search's 429/503 retries are their
/// own, with their own back-off.
public enum HTTPClients {
    /// Runs NIO's shared event loop group, which both clients use, on one loop instead of one per core. A session
    /// has at most a search, a recording's stream and a save on the network at once, a few hundred kbit/s that
    /// one thread serves with room to spare (TLS included); each loop is a thread started, one after the other,
    /// before the first request goes out, so one loop brings the first sound of a cold start sooner (BENCH.md);
    /// a laptop's many cores would start as many threads. Called first in `main`, before any client is made (NIO takes it once).
    public static func runOnOneEventLoop() {
        NIOSingletons.groupLoopCountSuggestion = 1
    }

    /// The client for searches and playing, one connection pool for both: xeno-canto serves the API and the
    /// audio from one host, so a `play` after a search goes out on the search's open connection (no new TCP
    /// and TLS handshakes). No read timeout: the player reads a recording only as fast as it is heard (slower
    /// at half speed, not at all while paused), so the socket may rightly sit idle for minutes; a server that
    /// stops sending is caught by the player's stall watchdog, and each search has its own deadline
    /// (`XenoCantoConfiguration.requestTimeout`).
    public static func streaming(trust: TLSTrust) -> HTTPClient {
        make(trust: trust, read: nil, proxy: nil, followRedirects: true)
    }

    /// The client for `save`: a save reads as fast as the server sends, so a 30 s read timeout catches a
    /// stall.
    public static func downloading(trust: TLSTrust) -> HTTPClient {
        make(trust: trust, read: .seconds(30), proxy: nil, followRedirects: true)
    }

    /// The streaming clients (see `streaming`) for each proxy decision `rules` make. With a proxy the routes
    /// follow redirects a hop at a time, each by its own host's rule; without one the client follows them on
    /// its event loop, as it always did (no hop waits for a task to be scheduled).
    public static func streaming(trust: TLSTrust, rules: ProxyRules) -> HTTPRoutes {
        HTTPRoutes(rules: rules) { make(trust: trust, read: nil, proxy: $0, followRedirects: !rules.anyProxy) }
    }

    /// The downloading clients (see `downloading`) for each proxy decision `rules` make (redirects as in
    /// `streaming(trust:rules:)`).
    public static func downloading(trust: TLSTrust, rules: ProxyRules) -> HTTPRoutes {
        HTTPRoutes(rules: rules) {
            make(trust: trust, read: .seconds(30), proxy: $0, followRedirects: !rules.anyProxy)
        }
    }

    private static func make(
        trust: TLSTrust, read: TimeAmount?, proxy: ProxyServer?, followRedirects: Bool
    ) -> HTTPClient {
        // Not `connectionPool.preWarmedHTTP1ConnectionCount`: with AsyncHTTPClient 1.37 a `play` after a
        // stopped one waited on the pool until its 30 s head timeout.
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: trust.tlsConfiguration,
            redirectConfiguration: followRedirects ? .follow(max: RedirectTrail.limit, allowCycles: false) : .disallow,
            timeout: .init(connect: .seconds(15), read: read)
        )
        configuration.proxy = proxy?.configuration
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
