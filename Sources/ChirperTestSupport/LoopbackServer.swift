import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP request as the loopback server saw it.
public struct LoopbackRequest: Sendable {
    public var method: String
    /// Path and query, as sent.
    public var uri: String
    public var path: String
    /// Percent-decoded query items; the last value wins for repeated names.
    public var query: [String: String]
    /// Header names lowercased.
    public var headers: [String: String]
    /// When the server received the request head.
    public var receivedAt: ContinuousClock.Instant

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What the loopback server answers, including the faults it can act out.
public struct LoopbackResponse: Sendable {
    /// A piece of the body, sent after waiting `delay`.
    public struct Chunk: Sendable {
        public var bytes: [UInt8]
        public var delay: Duration
        public init(_ bytes: [UInt8], delay: Duration = .zero) {
            self.bytes = bytes
            self.delay = delay
        }
    }

    /// How the exchange ends after the body chunks.
    public enum Ending: Sendable {
        /// The body is complete (Content-Length matches what was sent).
        case complete
        /// The TCP connection is closed after the chunks, although Content-Length promised `declaredLength`
        /// bytes. Over TLS no close_notify is sent first: an unclean shutdown, as a dropped link or a CDN's
        /// reset gives.
        case cut(declaredLength: Int)
        /// As `cut`, but the connection is reset (RST, SO_LINGER 0) rather than closed.
        case reset(declaredLength: Int)
        /// After the chunks nothing more is sent, and the connection is held open until the server shuts down.
        case stall(declaredLength: Int)
    }

    /// How the body's length is told.
    public enum Framing: Sendable {
        /// `Content-Length` (the declared length of the ending).
        case contentLength
        /// `Transfer-Encoding: chunked`, with no length: a cut or reset ends it without its last chunk.
        case chunked
    }

    public var status: Int
    public var headers: [(String, String)]
    public var chunks: [Chunk]
    public var ending: Ending
    /// A wait before the response head is sent (a slow server).
    public var delayBeforeHead: Duration
    /// A complete response leaves the connection open for the client's next request (HTTP keep-alive, as
    /// xeno-canto's server does); by default the server closes it.
    public var keepAlive = false
    public var framing = Framing.contentLength

    public init(
        status: Int = 200,
        headers: [(String, String)] = [],
        chunks: [Chunk] = [],
        ending: Ending = .complete,
        delayBeforeHead: Duration = .zero
    ) {
        self.status = status
        self.headers = headers
        self.chunks = chunks
        self.ending = ending
        self.delayBeforeHead = delayBeforeHead
    }

    public init(status: Int = 200, contentType: String, body: [UInt8]) {
        self.init(status: status, headers: [("Content-Type", contentType)], chunks: [Chunk(body)])
    }

    public static func json(_ text: String, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(status: status, contentType: "application/json", body: Array(text.utf8))
    }

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain") -> LoopbackResponse {
        LoopbackResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }

    public static func redirect(to location: String, status: Int = 302) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: [("Location", location)])
    }

    /// Serves `bytes` as a file, honouring a `Range: bytes=N-` (or `N-M`) request header with 206.
    public static func file(
        _ bytes: [UInt8],
        contentType: String = "application/octet-stream",
        for request: LoopbackRequest,
        chunkSize: Int = 16 * 1024,
        chunkDelay: Duration = .zero
    ) -> LoopbackResponse {
        var start = 0
        var end = bytes.count - 1
        var status = 200
        var headers: [(String, String)] = [("Content-Type", contentType), ("Accept-Ranges", "bytes")]
        if let range = request.header("range"), let parsed = parseRange(range, size: bytes.count) {
            if parsed.lowerBound >= bytes.count {
                return LoopbackResponse(status: 416, headers: [("Content-Range", "bytes */\(bytes.count)")])
            }
            start = parsed.lowerBound
            end = min(parsed.upperBound, bytes.count - 1)
            status = 206
            headers.append(("Content-Range", "bytes \(start)-\(end)/\(bytes.count)"))
        }
        let slice = bytes.isEmpty ? [] : Array(bytes[start...end])
        return LoopbackResponse(
            status: status, headers: headers, chunks: chunked(slice, size: chunkSize, delay: chunkDelay))
    }

    /// Splits `bytes` into chunks of `size`, each sent after `delay`.
    public static func chunked(_ bytes: [UInt8], size: Int, delay: Duration = .zero) -> [Chunk] {
        guard !bytes.isEmpty else { return [] }
        return stride(from: 0, to: bytes.count, by: max(1, size)).map {
            Chunk(Array(bytes[$0..<min($0 + size, bytes.count)]), delay: delay)
        }
    }

    static func parseRange(_ header: String, size: Int) -> ClosedRange<Int>? {
        let spec = header.trimmingCharacters(in: .whitespaces)
        guard spec.hasPrefix("bytes=") else { return nil }
        let parts = spec.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let lower = Int(parts[0]) else { return nil }
        let upper = parts[1].isEmpty ? Int.max : (Int(parts[1]) ?? Int.max)
        guard upper >= lower else { return nil }
        return lower...upper
    }
}

/// A real HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for tests.
///
/// Each test supplies a handler; the server records every request it saw so tests can assert on what the
/// client sent (query parameters, `Range` headers, how requests were spaced).
public final class LoopbackServer: Sendable {
    public typealias Handler = @Sendable (LoopbackRequest) async -> LoopbackResponse

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let state: NIOLockedValueBox<ServerState>

    struct ServerState {
        var requests: [LoopbackRequest] = []
        var connections: [ObjectIdentifier: any Channel] = [:]
        var connectionsAccepted = 0
        var responders: [Int: Task<Void, Never>] = [:]
        var nextResponder = 0
        var closed = false
        /// Responses whose body chunks have all been written (whatever their ending).
        var bodiesSent = 0
        var watchers: [(ready: @Sendable (ServerState) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

        /// Takes the watchers whose condition now holds.
        mutating func readyWatchers() -> [CheckedContinuation<Void, Never>] {
            let snapshot = self
            let ready = watchers.filter { $0.ready(snapshot) }.map(\.continuation)
            watchers.removeAll { $0.ready(snapshot) }
            return ready
        }
    }

    /// The port the server listens on.
    public let port: Int
    /// Whether the server speaks HTTPS.
    public let isTLS: Bool
    /// `http://127.0.0.1:<port>`, or `https://…` when the server speaks TLS.
    public var baseURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

    /// Every request seen so far, in arrival order.
    public var requests: [LoopbackRequest] { state.withLockedValue { $0.requests } }

    /// TCP connections accepted so far (a client that reuses its connection makes one).
    public var connectionsAccepted: Int { state.withLockedValue { $0.connectionsAccepted } }

    /// Returns once the server has seen `count` requests.
    public func waitForRequests(_ count: Int) async {
        await waitUntil { $0.requests.count >= count }
    }

    /// Returns once `count` responses have written all their body chunks (a stalled or cut one included).
    public func waitForBodiesSent(_ count: Int) async {
        await waitUntil { $0.bodiesSent >= count }
    }

    private func waitUntil(_ ready: @escaping @Sendable (ServerState) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { state in
                if ready(state) { return true }
                state.watchers.append((ready, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Starts a server that answers with `handler`: plain HTTP, or HTTPS with `tls`'s certificate.
    public static func start(tls: LoopbackTLS? = nil, handler: @escaping Handler) async throws -> LoopbackServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = NIOLockedValueBox(ServerState())
        do {
            let context = try tls?.serverContext()
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // Nearest the socket, so that a cut bypasses TLS's close_notify.
                        try channel.pipeline.syncOperations.addHandler(RawCloser())
                        if let context {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                        }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(
                            RequestHandler(handler: handler, state: state)
                        )
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else {
                throw LoopbackServerError.noPort
            }
            return LoopbackServer(group: group, channel: channel, state: state, port: port, isTLS: tls != nil)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private init(
        group: MultiThreadedEventLoopGroup, channel: any Channel, state: NIOLockedValueBox<ServerState>, port: Int,
        isTLS: Bool
    ) {
        self.group = group
        self.channel = channel
        self.state = state
        self.port = port
        self.isTLS = isTLS
    }

    /// Closes the listener and every open connection (including stalled ones), then stops the event loop.
    public func shutdown() async {
        try? await channel.close()
        let responders = state.withLockedValue { state in
            state.closed = true
            return Array(state.responders.values)
        }
        for responder in responders { responder.cancel() }
        // Connections are closed before the responders are awaited: a responder blocked writing to a client
        // that stopped reading only returns once its connection is gone.
        let open = state.withLockedValue { Array($0.connections.values) }
        for connection in open {
            try? await connection.close()
        }
        for responder in responders {
            await responder.value
        }
        try? await group.shutdownGracefully()
    }

    /// Runs `body` with a server that answers with `handler`, and shuts the server down afterwards.
    public static func with<T>(
        tls: LoopbackTLS? = nil,
        handler: @escaping Handler,
        _ body: (LoopbackServer) async throws -> T
    ) async throws -> T {
        let server = try await start(tls: tls, handler: handler)
        do {
            let result = try await body(server)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }
}

public enum LoopbackServerError: Error {
    case noPort
}

private final class RequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let handler: LoopbackServer.Handler
    private let state: NIOLockedValueBox<LoopbackServer.ServerState>
    private var head: HTTPRequestHead?
    private var receivedAt: ContinuousClock.Instant = .now

    init(handler: @escaping LoopbackServer.Handler, state: NIOLockedValueBox<LoopbackServer.ServerState>) {
        self.handler = handler
        self.state = state
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        state.withLockedValue { state in
            state.connections[ObjectIdentifier(channel)] = channel
            state.connectionsAccepted += 1
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        let channel = context.channel
        _ = state.withLockedValue { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.receivedAt = .now
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            let request = Self.makeRequest(head, receivedAt: receivedAt)
            let ready = state.withLockedValue { state in
                state.requests.append(request)
                return state.readyWatchers()
            }
            for watcher in ready { watcher.resume() }
            Self.respond(to: request, with: handler, on: context.channel, version: head.version, state: state)
        }
    }

    private static func respond(
        to request: LoopbackRequest,
        with handler: @escaping LoopbackServer.Handler,
        on channel: any Channel,
        version: HTTPVersion,
        state: NIOLockedValueBox<LoopbackServer.ServerState>
    ) {
        // Responders are tracked so that shutdown can stop them before the event loop goes away.
        let box = state
        state.withLockedValue { value in
            guard !value.closed else { return }
            let key = value.nextResponder
            value.nextResponder += 1
            // Responders run on the server's own threads, so a busy or blocked cooperative pool in the
            // process under test cannot delay the server's answers.
            value.responders[key] = Task(executorPreference: LoopbackExecutor.shared) {
                let response = await handler(request)
                if !Task.isCancelled {
                    await send(response, on: channel, version: version) {
                        let ready = box.withLockedValue { state in
                            state.bodiesSent += 1
                            return state.readyWatchers()
                        }
                        for watcher in ready { watcher.resume() }
                    }
                }
                _ = box.withLockedValue { $0.responders.removeValue(forKey: key) }
            }
        }
    }

    private static func makeRequest(_ head: HTTPRequestHead, receivedAt: ContinuousClock.Instant) -> LoopbackRequest {
        let components = URLComponents(string: head.uri)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] {
            query[item.name] = item.value ?? ""
        }
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            headers[name.lowercased()] = value
        }
        return LoopbackRequest(
            method: head.method.rawValue,
            uri: head.uri,
            path: components?.path ?? head.uri,
            query: query,
            headers: headers,
            receivedAt: receivedAt
        )
    }

    private static func send(
        _ response: LoopbackResponse, on channel: any Channel, version: HTTPVersion,
        bodySent: @Sendable () -> Void
    ) async {
        do {
            if response.delayBeforeHead > .zero {
                try await Task.sleep(for: response.delayBeforeHead)
            }
            let bodyCount = response.chunks.reduce(0) { $0 + $1.bytes.count }
            var headers = HTTPHeaders(response.headers)
            let declared: Int
            switch response.ending {
            case .complete: declared = bodyCount
            case .cut(let length), .reset(let length), .stall(let length): declared = length
            }
            switch response.framing {
            case .contentLength: headers.replaceOrAdd(name: "Content-Length", value: String(declared))
            case .chunked: headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            }
            if !response.keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
            let head = HTTPResponseHead(
                version: version,
                status: HTTPResponseStatus(statusCode: response.status),
                headers: headers
            )
            try await channel.writeAndFlush(HTTPServerResponsePart.head(head))
            for chunk in response.chunks {
                if chunk.delay > .zero {
                    try await Task.sleep(for: chunk.delay)
                }
                guard channel.isActive else { return }
                let buffer = channel.allocator.buffer(bytes: chunk.bytes)
                try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)))
            }
            bodySent()
            switch response.ending {
            case .complete:
                try await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
                if !response.keepAlive { try await channel.close() }
            case .cut:
                try await channel.triggerUserOutboundEvent(RawCloser.Cut(reset: false))
            case .reset:
                try await channel.triggerUserOutboundEvent(RawCloser.Cut(reset: true))
            case .stall:
                break  // held open until the client gives up or the server shuts down
            }
        } catch {
            try? await channel.close()
        }
    }
}

/// First in every connection's pipeline, nearest the socket: a `Cut` event closes (or resets) the TCP connection
/// there, so TLS above it sends no close_notify, as when a link drops mid-transfer.
private final class RawCloser: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = Any

    struct Cut: Sendable {
        var reset: Bool
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let cut = event as? Cut else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if cut.reset {
            // SO_LINGER 0: close sends RST and drops whatever the kernel still held.
            // (Set at once: this runs on the channel's event loop.)
            _ = (context.channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
        }
        context.close(promise: promise)
    }
}

/// Runs the loopback server's responders on GCD threads rather than Swift's cooperative pool.
final class LoopbackExecutor: TaskExecutor {
    static let shared = LoopbackExecutor()
    private let queue = DispatchQueue(label: "chirper.loopback-server", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
