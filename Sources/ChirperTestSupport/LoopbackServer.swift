import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

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
