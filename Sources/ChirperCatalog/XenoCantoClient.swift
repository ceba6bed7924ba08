import AsyncHTTPClient
import ChirperCore
import ChirperHTTP
import ChirperSystem
import FoundationEssentials
import NIOCore
import NIOHTTP1

/// Settings for the xeno-canto v3 client.
public struct XenoCantoConfiguration: Sendable {
    public static let defaultAPIURL = XenoCantoDefaults.apiURL

    public var apiURL: String
    /// Never printed: every message and log goes through ``redact(_:)``.
    public var apiKey: String
    /// How long one request may take, from sending to the end of the reply.
    public var requestTimeout: Duration
    /// Retries after a 429 or 503 (not counting the first request).
    public var maxRetries: Int
    /// A `Retry-After` longer than this is not waited for: the search fails with the wait asked for.
    public var maxRetryWait: Duration
    /// The least time between the starts of two requests (xeno-canto asks for about one per second).
    public var minimumInterval: Duration
    /// A reply larger than this is refused.
    public var maxReplyBytes: Int

    public init(
        apiURL: String = XenoCantoConfiguration.defaultAPIURL,
        apiKey: String,
        requestTimeout: Duration = .seconds(30),
        maxRetries: Int = 3,
        maxRetryWait: Duration = .seconds(60),
        minimumInterval: Duration = .seconds(1),
        maxReplyBytes: Int = 32 * 1024 * 1024
    ) {
        self.apiURL = apiURL
        self.apiKey = apiKey
        self.requestTimeout = requestTimeout
        self.maxRetries = maxRetries
        self.maxRetryWait = maxRetryWait
        self.minimumInterval = minimumInterval
        self.maxReplyBytes = maxReplyBytes
    }

    /// `text` with the API key replaced by `***`, in plain and percent-encoded form.
    public func redact(_ text: String) -> String {
        guard !apiKey.isEmpty else { return text }
        var result = text.replacing(apiKey, with: "***")
        // Percent-encoded as in a URL: every byte but ASCII letters and digits as %XX.
        let encoded = apiKey.utf8.map { byte in
            (byte < 0x80 && Character(Unicode.Scalar(byte)).isLetter) || (0x30...0x39).contains(byte)
                ? String(Unicode.Scalar(byte)) : "%" + String(cFormat: "%02X", byte)
        }.joined()
        if encoded != apiKey { result = result.replacing(encoded, with: "***") }
        return result
    }
}

/// The xeno-canto API v3 client: one request at a time, at most one a second, retrying 429 and 503 with
/// back-off (honouring `Retry-After`), and turning every failure into one line the user can act on.
public final class XenoCantoClient<C: Clock>: RecordingSource where C.Duration == Duration {
    public let configuration: XenoCantoConfiguration
    public var name: String { "xeno-canto" }
    public var defaultPerPage: Int { 50 }
    public var exampleSearch: String { "en:wren" }

    private let routes: HTTPRoutes
    private let clock: C
    private let gate: RequestGate<C>

    /// Waits for a request's turn at the client's pace (one start a second), for requests made elsewhere
    /// (`save`'s downloads) so that they and the searches together keep xeno-canto's pace.
    public func waitForTurn() async {
        await gate.run {}
    }

    public convenience init(configuration: XenoCantoConfiguration, httpClient: HTTPClient, clock: C) {
        self.init(configuration: configuration, routes: HTTPRoutes(client: httpClient), clock: clock)
    }

    /// Each request (and each redirect) goes through the client `routes` picks for its host.
    public init(configuration: XenoCantoConfiguration, routes: HTTPRoutes, clock: C) {
        self.configuration = configuration
        self.routes = routes
        self.clock = clock
        self.gate = RequestGate(clock: clock, interval: configuration.minimumInterval)
    }

    /// The request URL for a page; it contains the key, so it must never be printed unredacted.
    public func url(query: SearchQuery, page: Int, perPage: Int) throws(ListError) -> String {
        guard var components = URLComponents(string: configuration.apiURL),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            components.host?.isEmpty == false
        else {
            throw ListError(.network, "the API URL \(configuration.redact(configuration.apiURL)) is not an http(s) URL")
        }
        var items = components.queryItems ?? []
        items.append(URLQueryItem(name: "query", value: query.text))
        items.append(URLQueryItem(name: "page", value: String(page)))
        items.append(URLQueryItem(name: "per_page", value: String(min(500, max(50, perPage)))))
        items.append(URLQueryItem(name: "key", value: configuration.apiKey))
        components.queryItems = items
        // `+` is a space to many servers; send it encoded. (Not Foundation's `replacingOccurrences`, which goes
        // through NSString on the path of the first search.)
        components.percentEncodedQuery = components.percentEncodedQuery?.split(
            separator: "+", omittingEmptySubsequences: false
        ).joined(separator: "%2B")
        guard let url = components.string else {
            throw ListError(.network, "could not build a request for \(query.text)")
        }
        return url
    }

    public func page(
        query: SearchQuery,
        page: Int,
        perPage: Int,
        onRetry: @escaping @Sendable (RetryNotice) -> Void
    ) async throws(ListError) -> Page {
        let url = try url(query: query, page: page, perPage: perPage)
        var attempt = 0
        while true {
            let outcome = await gate.run { await self.fetchOnce(url: url) }
            switch outcome {
            case .page(let page):
                return page
            case .failed(let error):
                throw error
            case .retryable(let status, let retryAfter):
                attempt += 1
                let reason = status == 429 ? "xeno-canto is rate limiting (HTTP 429)" : "xeno-canto is busy (HTTP 503)"
                guard attempt <= configuration.maxRetries else {
                    throw ListError(
                        .rateLimited,
                        "\(reason) and still was after \(configuration.maxRetries) retries; wait a minute and try again"
                    )
                }
                let wait = retryAfter ?? .seconds(1 << (attempt - 1))
                guard wait <= configuration.maxRetryWait else {
                    throw ListError(
                        .rateLimited,
                        "\(reason) and asks to wait \(Self.seconds(wait)) s; try again later"
                    )
                }
                onRetry(
                    RetryNotice(
                        attempt: attempt,
                        maxAttempts: configuration.maxRetries,
                        waitSeconds: Self.seconds(wait),
                        reason: reason
                    )
                )
                do {
                    try await clock.sleep(for: wait)
                } catch {
                    throw ListError(.network, "the search was cancelled")
                }
            }
        }
    }

    private enum Outcome: Sendable {
        case page(Page)
        case failed(ListError)
        case retryable(status: Int, retryAfter: Duration?)
    }

    private func fetchOnce(url: String) async -> Outcome {
        let response: HTTPClient.Response
        do {
            response = try await fetch(url: url)
        } catch let failure as RouteFailure where failure.error is ResponseAccumulator.ResponseTooBigError {
            return .failed(
                ListError(
                    .badReply,
                    "xeno-canto's reply is larger than \(configuration.maxReplyBytes / 1_048_576) MiB; try a smaller --per-page"
                )
            )
        } catch {
            return .failed(describe(error))
        }
        let status = Int(response.status.code)
        let bytes = response.body?.readableBytesView ?? ByteBuffer().readableBytesView
        switch status {
        case 200:
            do {
                return .page(try PageDecoder.decode(bytes))
            } catch {
                return .failed(
                    ListError(.badReply, "xeno-canto sent a reply that could not be read: \(error); try again")
                )
            }
        case 429, 503:
            return .retryable(status: status, retryAfter: Self.retryAfter(response.headers))
        default:
            return .failed(describe(status: status, body: bytes))
        }
    }

    /// The whole reply, read within `requestTimeout` of sending, after any redirects (each hop through its
    /// host's route). The client's deadline covers the whole request, head and body, and is kept on the event
    /// loop: whether a reply came in time is decided where its bytes arrive, however late this task runs (a
    /// deadline raced here against the body let a stalled reply through, or timed out a prompt one, when the
    /// task was held up behind others). A failure comes as a `RouteFailure`.
    private func fetch(url: String) async throws -> HTTPClient.Response {
        let deadline = NIODeadline.now() + .nanoseconds(Int64(configuration.requestTimeout.nanoseconds))
        var trail = RedirectTrail(url: url)
        while true {
            let route = routes.route(for: trail.url)
            do {
                let response = try await fetch(url: trail.url, client: route.client, deadline: deadline)
                let location = response.headers.first(name: "Location")
                guard try trail.follow(status: Int(response.status.code), location: location) else { return response }
            } catch {
                throw RouteFailure(error, url: trail.url, proxy: route.proxy)
            }
        }
    }

    private func fetch(url: String, client: HTTPClient, deadline: NIODeadline) async throws -> HTTPClient.Response {
        let request = try HTTPClient.Request(
            url: url,
            headers: ["Accept": "application/json", "User-Agent": "chirper-play/\(ChirperVersion.current)"]
        )
        let task = client.execute(
            request: request,
            delegate: ResponseAccumulator(request: request, maxBodySize: configuration.maxReplyBytes),
            deadline: deadline
        )
        return try await withTaskCancellationHandler {
            try await task.get()
        } onCancel: {
            task.cancel()
        }
    }

    private func describe(status: Int, body: some Collection<UInt8>) -> ListError {
        let serverSays = PageDecoder.errorMessage(body).map { configuration.redact(TerminalText.sanitize($0)) }
        let detail = serverSays.map { ": \($0)" } ?? ""
        switch status {
        case 401, 403:
            let hint = "give a valid key with --api-key or XENO_CANTO_API_KEY (keys: https://xeno-canto.org/account)"
            return ListError(
                .unauthorized,
                "xeno-canto refused the API key (HTTP \(status))" + (serverSays.map { ": \($0) — " } ?? "; ") + hint
            )
        case 400:
            return ListError(
                .badRequest,
                "xeno-canto rejected the query (HTTP 400)\(detail.isEmpty ? "; check the search tags (help tags)" : detail)"
            )
        case 404:
            return ListError(
                .server,
                "no xeno-canto API at \(configuration.redact(configuration.apiURL)) (HTTP 404); check --api-url"
            )
        case 500...599:
            return ListError(.server, "xeno-canto had a server error (HTTP \(status))\(detail); try again later")
        default:
            return ListError(.server, "xeno-canto answered HTTP \(status)\(detail); try again later")
        }
    }

    /// A failure to get a reply, through the transport funnel, with what to do about it here.
    private func describe(_ error: any Error) -> ListError {
        let routed = error as? RouteFailure
        let host = routed?.host ?? URLComponents(string: configuration.apiURL)?.host ?? "the server"
        let failure = TransportFailure(error)
        let what = failure.message(host: host, proxy: routed?.proxy)
        if failure.concernsProxy(routed?.proxy) {
            // Whole, naming the proxy and its fix.
            return ListError(.network, what)
        }
        switch failure {
        case .timedOut(connecting: false):
            return ListError(
                .timeout,
                "\(host) did not answer within \(Self.describe(configuration.requestTimeout)); check your connection and try again"
            )
        case .timedOut(connecting: true):
            return ListError(.timeout, "\(what); check your connection and try again")
        case .dropped:
            return ListError(.network, "\(what); try again")
        case .tooManyRedirects:
            return ListError(.network, "\(what); check --api-url")
        case .refused, .unknownHost:
            return ListError(.network, "\(what); check your connection or --api-url")
        case .untrustedCertificate, .wrongHost, .tls, .proxyAuthentication, .proxyRefusedTunnel, .proxyTimedOut:
            // Whole, with its own fix.
            return ListError(.network, what)
        case .cancelled:
            return ListError(.network, what)
        case .other:
            let line = TerminalText.sanitize(configuration.redact(what))
            return ListError(.network, "\(line); check your connection and try again")
        }
    }

    static func retryAfter(_ headers: HTTPHeaders) -> Duration? {
        guard let value = headers.first(name: "Retry-After")?.trimmingSpaces else {
            return nil
        }
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        if let date = HTTPDate.parse(value) {
            return .seconds(max(0, Int(date.timeIntervalSinceNow.rounded(.up))))
        }
        return nil
    }

    /// "30 s", or "0.3 s" below a second.
    static func describe(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds >= 1 || seconds == 0 ? "\(Int(seconds.rounded())) s" : "\((seconds * 10).rounded() / 10) s"
    }

    static func seconds(_ duration: Duration) -> Int {
        Int((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18).rounded(.up))
    }
}

extension XenoCantoClient where C == ContinuousClock {
    public convenience init(configuration: XenoCantoConfiguration, httpClient: HTTPClient) {
        self.init(configuration: configuration, httpClient: httpClient, clock: ContinuousClock())
    }

    public convenience init(configuration: XenoCantoConfiguration, routes: HTTPRoutes) {
        self.init(configuration: configuration, routes: routes, clock: ContinuousClock())
    }
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}

/// Lets one request run at a time, in the order they came, and starts each at least `interval` after the
/// previous one started.
actor RequestGate<C: Clock> where C.Duration == Duration {
    private let clock: C
    private let interval: Duration
    /// Ends when the last request in line is done: the next one waits for it (a latch each).
    private var last: ChirperSystem.Channel<Never, Never>?
    private var lastStart: C.Instant?

    init(clock: C, interval: Duration) {
        self.clock = clock
        self.interval = interval
    }

    func run<T: Sendable>(_ body: @Sendable () async -> T) async -> T {
        let done = ChirperSystem.Channel(of: Never.self, failure: Never.self)
        let before = last
        last = done
        defer { done.finish() }
        await before?.ended()
        if let lastStart {
            let earliest = lastStart.advanced(by: interval)
            if clock.now < earliest {
                try? await clock.sleep(until: earliest, tolerance: nil)
            }
        }
        lastStart = clock.now
        return await body()
    }
}
