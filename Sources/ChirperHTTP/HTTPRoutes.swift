import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// Which HTTP client carries a request to a URL: AsyncHTTPClient's proxy is a setting of the whole client,
/// and `NO_PROXY` depends on the host asked for, so there is a client per proxy decision (one going direct,
/// one through each proxy the rules name), all made at once (a client opens no connection until asked).
/// With a proxy, redirects are followed here, a hop at a time, so that a redirect to another host follows that
/// host's rule (xeno-canto's `file` URLs redirect); a client that follows them itself hands back none.
public final class HTTPRoutes: Sendable {
    /// The client for a request, and the proxy it goes through (named in failures).
    public struct Route: Sendable {
        public let client: HTTPClient
        public let proxy: ProxyServer?
    }

    public let rules: ProxyRules
    private let clients: [ProxyServer?: HTTPClient]
    /// Whether the clients are this one's to shut down.
    private let owned: Bool

    /// Every request through `client`, direct (its own configuration decides redirects): tests and tools.
    public init(client: HTTPClient) {
        self.rules = .direct
        self.clients = [nil: client]
        self.owned = false
    }

    /// Requests through clients `make` builds, one per proxy `rules` name and one direct (nil). When `rules`
    /// name a proxy, `make`'s clients must not follow redirects themselves.
    public init(rules: ProxyRules, make: (ProxyServer?) -> HTTPClient) {
        self.rules = rules
        let decisions = Set<ProxyServer?>([nil, rules.https, rules.http])
        self.clients = Dictionary(uniqueKeysWithValues: decisions.map { ($0, make($0)) })
        self.owned = true
    }

    /// The client for `url`.
    public func route(for url: String) -> Route {
        let proxy = rules.proxy(for: url)
        // Every decision `rules` can make has its client (a client given alone goes with `.direct`).
        return Route(client: clients[proxy] ?? clients[nil]!, proxy: proxy)
    }

    /// Shuts down the clients this made (a client given to `init(client:)` stays its owner's).
    public func shutdown() async {
        guard owned else { return }
        for client in clients.values { try? await client.shutdown() }
    }

    /// Sends `request` (a GET) and follows redirects, each hop through its host's route, until a reply that is
    /// not one, all before `deadline`. A failure comes as a `RouteFailure` naming the hop's host and proxy.
    public func execute(
        _ request: HTTPClientRequest, deadline: NIODeadline
    ) async throws -> (response: HTTPClientResponse, url: String) {
        var trail = RedirectTrail(url: request.url)
        var hop = request
        while true {
            let route = route(for: trail.url)
            let response: HTTPClientResponse
            do {
                response = try await route.client.execute(hop, deadline: deadline)
            } catch {
                throw RouteFailure(error, url: trail.url, proxy: route.proxy)
            }
            let next: Bool
            do {
                next = try trail.follow(
                    status: Int(response.status.code), location: response.headers.first(name: "Location"))
            } catch {
                throw RouteFailure(error, url: trail.url, proxy: route.proxy)
            }
            guard next else { return (response, trail.url) }
            // A redirect's short body is read, so that its connection goes back to the pool.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            hop.url = trail.url
        }
    }
}

/// A request that failed on its way: the library's error, and where it was going (the host asked for, and
/// the proxy in between) for its message.
public struct RouteFailure: Error {
    public var error: any Error
    public var host: String
    public var proxy: ProxyServer?

    public init(_ error: any Error, url: String, proxy: ProxyServer?) {
        self.error = error
        self.host = RedirectTrail.host(of: url) ?? "the server"
        self.proxy = proxy
    }
}
