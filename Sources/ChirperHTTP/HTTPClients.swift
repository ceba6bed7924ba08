import AsyncHTTPClient
import NIOCore

/// The HTTP clients chirper-play makes, each with the session's TLS trust.
public enum HTTPClients {
    /// The client for searches and playing, one connection pool for both: xeno-canto serves the API and the
    /// audio from one host, so a `play` after a search goes out on the search's open connection (no new TCP
    /// and TLS handshakes). No read timeout: the player reads a recording only as fast as it is heard (slower
    /// at half speed, not at all while paused), so the socket may rightly sit idle for minutes; a server that
    /// stops sending is caught by the player's stall watchdog, and each search has its own deadline
    /// (`XenoCantoConfiguration.requestTimeout`).
    public static func streaming(trust: TLSTrust) -> HTTPClient {
        // Not `connectionPool.preWarmedHTTP1ConnectionCount`: with AsyncHTTPClient 1.37 a `play` after a
        // stopped one waited on the pool until its 30 s head timeout.
        let configuration = HTTPClient.Configuration(
            tlsConfiguration: trust.tlsConfiguration,
            redirectConfiguration: .follow(max: 10, allowCycles: false),
            timeout: .init(connect: .seconds(15), read: nil)
        )
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The client for `save`: a save reads as fast as the server sends, so a 30 s read timeout catches a
    /// stall.
    public static func downloading(trust: TLSTrust) -> HTTPClient {
        HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                tlsConfiguration: trust.tlsConfiguration,
                redirectConfiguration: .follow(max: 10, allowCycles: false),
                timeout: .init(connect: .seconds(15), read: .seconds(30))
            )
        )
    }
}
