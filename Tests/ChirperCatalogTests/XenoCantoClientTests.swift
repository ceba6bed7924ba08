import AsyncHTTPClient
import ChirperCore
import ChirperHTTP
import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import ChirperCatalog

private let secretKey = "s3cr3t-KEY-123"
private let wren = try! SearchQuery.parse("en:wren")

/// A v3 page of `count` recordings numbered from `first`.
func pageJSON(page: Int, numPages: Int, first: Int, count: Int, total: Int = 120) -> String {
    let records = (0..<count).map { index in
        let id = first + index
        return """
            {"id": "\(id)", "gen": "Troglodytes", "sp": "troglodytes", "en": "Eurasian Wren", "rec": "R \(id)",
             "cnt": "Spain", "type": "song", "q": "A", "length": "0:1\(index % 10)", "lat": null,
             "file": "https://xeno-canto.org/\(id)/download", "url": "//xeno-canto.org/\(id)",
             "lic": "//creativecommons.org/licenses/by-nc-sa/4.0/"}
            """
    }
    return """
        {"numRecordings": "\(total)", "numSpecies": "1", "page": \(page), "numPages": \(numPages),
         "recordings": [\(records.joined(separator: ","))]}
        """
}

/// Runs `body` with a client (recording clock, short timeout) against a loopback server answering `handler`.
func withClient(
    // Generous: the suite shares two cores with builds and audio tests; only the timeout test wants it short.
    timeout: Duration = .seconds(20),
    maxRetries: Int = 3,
    maxReplyBytes: Int = 32 * 1_048_576,
    transport: Transport = .http,
    proxies: ProxyRules = .direct,
    handler: @escaping LoopbackServer.Handler,
    _ body: (XenoCantoClient<RecordingClock>, LoopbackServer, RecordingClock) async throws -> Void
) async throws {
    // The program's own clients, trusting the run's CA over HTTPS.
    let http = HTTPClients.streaming(
        trust: TLSTrust(base: .system, caFiles: transport == .https ? [Transport.caFile] : []), rules: proxies)
    let clock = RecordingClock()
    do {
        try await LoopbackServer.with(tls: transport.tls, handler: handler) { server in
            let configuration = XenoCantoConfiguration(
                apiURL: server.baseURL + "/api/3/recordings",
                apiKey: secretKey,
                requestTimeout: timeout,
                maxRetries: maxRetries,
                maxReplyBytes: maxReplyBytes
            )
            let client = XenoCantoClient(configuration: configuration, routes: http, clock: clock)
            try await body(client, server, clock)
        }
    } catch {
        await http.shutdown()
        throw error
    }
    await http.shutdown()
}

/// The error a fetch of page 1 fails with.
func failure(of client: XenoCantoClient<RecordingClock>, query: SearchQuery = wren) async -> ListError? {
    do {
        _ = try await client.page(query: query, page: 1, perPage: 50) { _ in }
        return nil
    } catch {
        return error
    }
}

@Suite("The xeno-canto client against a loopback v3 server")
struct XenoCantoClientTests {
    @Test("sends the tagged query, page, page size and key, and reads paged replies")
    func pagedFixtures() async throws {
        try await withClient(handler: { request in
            let page = Int(request.query["page"] ?? "") ?? 0
            return .json(pageJSON(page: page, numPages: 3, first: page * 100, count: 50))
        }) { client, server, _ in
            let query = try SearchQuery.parse("common wren cnt:united kingdom")
            let first = try await client.page(query: query, page: 1, perPage: 50) { _ in }
            let second = try await client.page(query: query, page: 2, perPage: 50) { _ in }
            #expect(first.recordings.count == 50)
            #expect(first.numPages == 3)
            #expect(second.recordings.first?.id == "200")
            let request = try #require(server.requests.first)
            #expect(request.path == "/api/3/recordings")
            #expect(request.query["query"] == "en:\"common wren\" cnt:\"united kingdom\"")
            #expect(request.query["page"] == "1")
            #expect(request.query["per_page"] == "50")
            #expect(request.query["key"] == secretKey)
            #expect(server.requests.last?.query["page"] == "2")
        }
    }

    @Test("a + in the query reaches the server as a plus (%2B), not as a space")
    func plusIsEncoded() async throws {
        try await withClient(handler: { _ in .json(pageJSON(page: 1, numPages: 1, first: 1, count: 1)) }) {
            client, server, _ in
            _ = try await client.page(query: try SearchQuery.parse("rmk:a+b++"), page: 1, perPage: 50) { _ in }
            let request = try #require(server.requests.first)
            #expect(request.uri.contains("a%2Bb%2B%2B"))
        }
    }

    @Test("page sizes are kept within the API's 50 to 500")
    func perPageClamped() async throws {
        try await withClient(handler: { _ in .json(pageJSON(page: 1, numPages: 1, first: 1, count: 1)) }) {
            client, server, _ in
            _ = try await client.page(query: wren, page: 1, perPage: 10) { _ in }
            _ = try await client.page(query: wren, page: 1, perPage: 5000) { _ in }
            #expect(server.requests.map { $0.query["per_page"] } == ["50", "500"])
        }
    }

    @Test("a 401 in the flat v3 form shows the server's message and how to give a key, never the key")
    func unauthorizedFlat() async throws {
        let body =
            #"{"error": "client_error", "message": "Missing or invalid 'key' parameter. Visit https://xeno-canto.org/account to retrieve your API key."}"#
        try await withClient(handler: { _ in .json(body, status: 401) }) { client, _, _ in
            let error = try #require(await failure(of: client))
            #expect(error.kind == .unauthorized)
            #expect(error.message.contains("Missing or invalid 'key' parameter"))
            #expect(error.message.contains("--api-key"))
            #expect(!error.message.contains(secretKey))
        }
    }

    @Test("a 400 in the documented nested form shows the server's message")
    func badRequestNested() async throws {
        let body = #"{"error": {"code": "missing_parameter", "message": "No query specified"}}"#
        try await withClient(handler: { _ in .json(body, status: 400) }) { client, _, _ in
            let error = try #require(await failure(of: client))
            #expect(error.kind == .badRequest)
            #expect(error.message == "xeno-canto rejected the query (HTTP 400): No query specified")
        }
    }

    @Test(
        "a 429 with Retry-After is waited out (on the injected clock), said, and retried", arguments: Transport.allCases
    )
    func retryAfterHonoured(transport: Transport) async throws {
        let calls = NIOLockedValueBox(0)
        try await withClient(
            transport: transport,
            handler: { _ in
                let call = calls.withLockedValue { value -> Int in
                    value += 1
                    return value
                }
                if call == 1 {
                    return LoopbackResponse(
                        status: 429, headers: [("Retry-After", "7"), ("Content-Type", "application/json")],
                        chunks: [.init(Array(#"{"error": "rate_limited", "message": "Slow down"}"#.utf8))])
                }
                return .json(pageJSON(page: 1, numPages: 1, first: 1, count: 3))
            }
        ) { client, server, clock in
            let notices = NIOLockedValueBox<[RetryNotice]>([])
            let page = try await client.page(query: wren, page: 1, perPage: 50) { notice in
                notices.withLockedValue { $0.append(notice) }
            }
            #expect(page.recordings.count == 3)
            #expect(server.requests.count == 2)
            #expect(
                notices.withLockedValue { $0 } == [
                    RetryNotice(
                        attempt: 1, maxAttempts: 3, waitSeconds: 7, reason: "xeno-canto is rate limiting (HTTP 429)")
                ])
            #expect(clock.sleeps.contains(.seconds(7)))
        }
    }

    @Test("a 503 that persists backs off 1, 2, 4 s, then fails saying what to do", arguments: Transport.allCases)
    func boundedRetries(transport: Transport) async throws {
        try await withClient(transport: transport, handler: { _ in .text("busy", status: 503) }) {
            client, server, clock in
            let error = try #require(await failure(of: client))
            #expect(error.kind == .rateLimited)
            #expect(error.message.contains("after 3 retries"))
            #expect(server.requests.count == 4)
            let backoffs = clock.sleeps.filter { $0 > .milliseconds(1100) || $0 == .seconds(1) }
            #expect(backoffs.prefix(3) == [.seconds(1), .seconds(2), .seconds(4)])
        }
    }

    @Test("a Retry-After beyond the limit fails at once with the wait asked for")
    func retryAfterTooLong() async throws {
        try await withClient(handler: { _ in
            LoopbackResponse(status: 429, headers: [("Retry-After", "3600")])
        }) { client, server, clock in
            let error = try #require(await failure(of: client))
            #expect(error.message.contains("asks to wait 3600 s"))
            #expect(server.requests.count == 1)
            #expect(!clock.sleeps.contains(.seconds(3600)))
        }
    }

    @Test("requests start at least a second apart")
    func rateLimited() async throws {
        try await withClient(handler: { _ in .json(pageJSON(page: 1, numPages: 1, first: 1, count: 1)) }) {
            client, _, clock in
            _ = try await client.page(query: wren, page: 1, perPage: 50) { _ in }
            _ = try await client.page(query: wren, page: 1, perPage: 50) { _ in }
            _ = try await client.page(query: wren, page: 1, perPage: 50) { _ in }
            #expect(clock.sleeps == [.seconds(1), .seconds(1)])
        }
    }

    @Test("at most one request is in flight, however many are asked for at once")
    func oneInFlight() async throws {
        let active = NIOLockedValueBox((now: 0, most: 0))
        try await withClient(handler: { _ in
            active.withLockedValue {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            try? await Task.sleep(for: .milliseconds(20))  // the server is slow; not a synchronisation
            active.withLockedValue { $0.now -= 1 }
            return .json(pageJSON(page: 1, numPages: 1, first: 1, count: 1))
        }) { client, server, _ in
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { _ = try? await client.page(query: wren, page: 1, perPage: 50) { _ in } }
                }
            }
            #expect(server.requests.count == 4)
            #expect(active.withLockedValue { $0.most } == 1)
        }
    }

    @Test("a reply slower than the timeout gives a one-line timeout", arguments: Transport.allCases)
    func slowReply(transport: Transport) async throws {
        try await withClient(
            timeout: .milliseconds(300),
            transport: transport,
            handler: { _ in
                // Far beyond the deadline: the head comes only if the client never gives up.
                LoopbackResponse(status: 200, chunks: [.init(Array("{}".utf8))], delayBeforeHead: .seconds(3600))
            }
        ) { client, _, _ in
            let error = try #require(await failure(of: client))
            #expect(error.kind == .timeout)
            #expect(error.message == "127.0.0.1 did not answer within 0.3 s; check your connection and try again")
        }
    }

    @Test("a reply whose body stops after the head gives the same one-line timeout", arguments: Transport.allCases)
    func stalledBody(transport: Transport) async throws {
        let full = Array(pageJSON(page: 1, numPages: 1, first: 1, count: 20).utf8)
        try await withClient(
            timeout: .milliseconds(300),
            transport: transport,
            handler: { _ in
                // The rest never comes: the connection is held open until the client gives up.
                LoopbackResponse(
                    status: 200, chunks: [.init(Array(full.prefix(300)))], ending: .stall(declaredLength: full.count))
            }
        ) { client, _, _ in
            let error = try #require(await failure(of: client))
            #expect(error.kind == .timeout)
            #expect(error.message == "127.0.0.1 did not answer within 0.3 s; check your connection and try again")
        }
    }

    @Test("a body cut off mid-reply says the connection dropped", arguments: Transport.allCases)
    func truncatedBody(transport: Transport) async throws {
        let full = Array(pageJSON(page: 1, numPages: 1, first: 1, count: 20).utf8)
        try await withClient(
            transport: transport,
            handler: { _ in
                LoopbackResponse(
                    status: 200, chunks: [.init(Array(full.prefix(300)))], ending: .cut(declaredLength: full.count))
            }
        ) { client, _, _ in
            let error = try #require(await failure(of: client))
            #expect(error.kind == .network)
            #expect(error.message.contains("dropped mid-reply"))
        }
    }

    @Test("a reply larger than the limit is refused in one line")
    func oversizedReply() async throws {
        let padded = pageJSON(page: 1, numPages: 1, first: 1, count: 20) + String(repeating: " ", count: 1_048_576)
        try await withClient(maxReplyBytes: 1_048_576, handler: { _ in .json(padded) }) { client, _, _ in
            let error = try #require(await failure(of: client))
            #expect(error.kind == .badReply)
            #expect(error.message == "xeno-canto's reply is larger than 1 MiB; try a smaller --per-page")
        }
    }

    @Test("redirects are followed to the page", arguments: Transport.allCases)
    func redirect(transport: Transport) async throws {
        try await withClient(
            transport: transport,
            handler: mirrored
        ) { client, server, _ in
            let page = try await client.page(query: wren, page: 1, perPage: 50) { _ in }
            #expect(page.recordings.count == 2)
            #expect(server.requests.map(\.path) == ["/api/3/recordings", "/mirror/recordings"])
        }
    }

    @Test("a redirect loop ends with a clear line", arguments: Transport.allCases)
    func redirectLoop(transport: Transport) async throws {
        let hops = NIOLockedValueBox(0)
        try await withClient(
            transport: transport,
            handler: { _ in
                .redirect(to: "/api/3/recordings?hop=\(hops.withLockedValue { $0 += 1; return $0 })")
            }
        ) { client, _, _ in
            let error = try #require(await failure(of: client))
            #expect(error.message.contains("redirected too many times"))
        }
    }

    @Test(
        "behind a proxy, redirects are followed a hop at a time through its tunnels, and a loop still ends in one line",
        arguments: Transport.allCases)
    func redirectsThroughProxy(transport: Transport) async throws {
        let proxy = try await LoopbackProxy.start()
        let server = ProxyServer(host: "127.0.0.1", port: proxy.port, variable: "ALL_PROXY")
        let proxies = ProxyRules(https: server, http: server, bypass: ProxyBypass(""))
        let hops = NIOLockedValueBox(0)
        // The deadline covers every hop of a redirect loop, each a new tunnel (and handshake) through the proxy:
        // on two cores shared with the whole suite, twenty of them outlast the default 20 s.
        try await withClient(
            timeout: .seconds(90), transport: transport, proxies: proxies,
            handler: { request in
                if request.path == "/loop" || request.query["query"] == "en:loop" {
                    return .redirect(to: "/loop?hop=\(hops.withLockedValue { $0 += 1; return $0 })")
                }
                return mirrored(request)
            }
        ) { client, server, _ in
            let page = try await client.page(query: wren, page: 1, perPage: 50) { _ in }
            #expect(page.recordings.count == 2)
            #expect(server.requests.map(\.path) == ["/api/3/recordings", "/mirror/recordings"])
            #expect(proxy.tunnels >= 1 && proxy.tunnels == server.connectionsAccepted)
            let looping = try #require(await failure(of: client, query: try SearchQuery.parse("en:loop")))
            #expect(looping.message.contains("redirected too many times"), "\(looping.message)")
        }
        await proxy.shutdown()
    }

    @Test("an HTML error page, a 500 and a 200 that is not JSON each give one clear line")
    func badServerReplies() async throws {
        let replies: [(LoopbackResponse, String)] = [
            (.text("<html>502 Bad Gateway</html>", status: 502, contentType: "text/html"), "server error (HTTP 502)"),
            (
                .json(#"{"error": "server_error", "message": "Database unavailable"}"#, status: 500),
                "server error (HTTP 500): Database unavailable"
            ),
            (.text("<html>maintenance</html>", contentType: "text/html"), "could not be read"),
            (.text("not found", status: 404), "check --api-url"),
        ]
        for (reply, expected) in replies {
            try await withClient(handler: { _ in reply }) { client, _, _ in
                let error = try #require(await failure(of: client))
                #expect(error.message.contains(expected), "\(error.message)")
                #expect(!error.message.contains("\n"))
            }
        }
    }

    @Test("a closed port gives connection refused")
    func connectionRefused() async throws {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let server = try await LoopbackServer.start { _ in .text("") }
        let url = server.baseURL + "/api/3/recordings"
        await server.shutdown()
        let client = XenoCantoClient(
            configuration: XenoCantoConfiguration(apiURL: url, apiKey: secretKey), httpClient: http,
            clock: RecordingClock())
        let error = await failure(of: client)
        try await http.shutdown()
        #expect(error?.kind == .network)
        #expect(error?.message.contains("connection refused") == true, "\(String(describing: error))")
    }

    @Test("a host whose name does not resolve is said plainly: NIO's connection error with only its lookups failed")
    func unknownHost() async throws {
        // NIO's own connection error, as a search meets it with no network: the lookups fail, nothing is tried.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        do {
            _ = try await ClientBootstrap(group: loop).resolver(NoSuchHost(loop: loop))
                .connect(host: "xeno-canto.org", port: 443).get()
            Issue.record("connected to a host whose name resolves to nothing")
        } catch {
            let failure = TransportFailure(error)
            #expect(failure == .unknownHost, "\(error)")
            #expect(failure.isTransient, "a network that comes back is worth a reconnect")
            #expect(
                failure.message(host: "xeno-canto.org")
                    == "could not find xeno-canto.org: its name does not resolve (no network, or a wrong address)")
        }
    }

    @Test("the key never appears in any message, even when the server echoes it")
    func keyRedacted() async throws {
        try await withClient(handler: { request in
            .json(
                #"{"error": "client_error", "message": "bad key \#(request.query["key"] ?? "") for \#(request.uri)"}"#,
                status: 401)
        }) { client, _, _ in
            let error = try #require(await failure(of: client))
            #expect(!error.message.contains(secretKey))
            #expect(error.message.contains("***"))
        }
        let configuration = XenoCantoConfiguration(apiURL: "https://x/\(secretKey)", apiKey: secretKey)
        #expect(configuration.redact("https://x/?key=\(secretKey)&a=1") == "https://x/?key=***&a=1")
    }

    @Test("a key with characters a URL escapes is hidden in its plain and its percent-encoded form")
    func percentEncodedKeyRedacted() throws {
        let key = "k3y/with+odd chars"
        let encoded = try #require(key.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let configuration = XenoCantoConfiguration(apiURL: "https://x/", apiKey: key)
        #expect(configuration.redact("plain \(key) and ?key=\(encoded)&a=1") == "plain *** and ?key=***&a=1")
    }

    @Test(
        "Retry-After as an HTTP date is read as DateFormatter with RFC 9110's format reads it",
        arguments: [
            "Wed, 21 Oct 2015 07:28:00 GMT", "Sun, 06 Nov 1994 08:49:37 GMT", "Thu, 29 Feb 2024 23:59:59 GMT",
            "Fri, 27 Nov 2026 07:30:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT",
        ])
    func httpDates(_ text: String) throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let expected = try #require(formatter.date(from: text))
        #expect(HTTPDate.parse(text) == expected)
    }

    @Test(
        "what is not an HTTP date is not read as one",
        arguments: [
            "", "7", "Wed, 21 Oct 2015", "Wed, 32 Oct 2015 07:28:00 GMT", "Wed, 21 Okt 2015 07:28:00 GMT",
            "Wed, 21 Oct 2015 24:28:00 GMT", "Wed, 21 Oct 2015 07:28 GMT", "Wed, 21 Oct 2015 07:28:00 CEST",
        ])
    func notHTTPDates(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("server text with terminal escapes is stripped before it reaches a message")
    func escapesStripped() async throws {
        try await withClient(handler: { _ in
            .json(#"{"error": "x", "message": "bad \u001b[2J\u001b]0;pwned\u0007query"}"#, status: 400)
        }) { client, _, _ in
            let error = try #require(await failure(of: client))
            #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 })
            #expect(error.message.hasSuffix("bad query"))
        }
    }
}

/// A resolver that finds no address for any name, as the system's does with no network or for a name that does
/// not exist.
private struct NoSuchHost: Resolver, Sendable {
    struct NotFound: Error {}
    let loop: any EventLoop

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        loop.makeFailedFuture(NotFound())
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        loop.makeFailedFuture(NotFound())
    }

    func cancelQueries() {}
}

/// The API's path redirects to a mirror, which answers a page of two recordings.
@Sendable private func mirrored(_ request: LoopbackRequest) -> LoopbackResponse {
    if request.path == "/api/3/recordings" {
        return .redirect(to: "/mirror/recordings?" + (URLComponents(string: request.uri)?.percentEncodedQuery ?? ""))
    }
    return .json(pageJSON(page: 1, numPages: 1, first: 1, count: 2))
}
