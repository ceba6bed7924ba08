import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP proxy on 127.0.0.1 with an ephemeral port, for tests: it opens `CONNECT` tunnels to loopback
/// servers (and answers any other request, a plain proxied one, with 502), and records what it was asked,
/// so that a test can count the tunnels a client opened and see the credentials it sent.
public final class LoopbackProxy: Sendable {
    /// What the proxy was asked for.
    public struct Request: Sendable, Equatable {
        public var method: String
        /// `host:port` for `CONNECT`, the absolute URL for a plain request.
        public var target: String
        public var authorization: String?
    }

    /// How a `CONNECT` is answered: a tunnel, or this status (407 asks for credentials) and a closed
    /// connection.
    public enum Answer: Sendable {
        case tunnel
        case status(Int)
    }

    private struct State {
        var requests: [Request] = []
        var tunnels = 0
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let state: NIOLockedValueBox<State>
    public let port: Int

    /// `127.0.0.1:<port>`.
    public var address: String { "127.0.0.1:\(port)" }

    /// Everything asked, in arrival order.
    public var requests: [Request] { state.withLockedValue { $0.requests } }
    /// Tunnels opened to their target.
    public var tunnels: Int { state.withLockedValue { $0.tunnels } }
    /// Requests that were not `CONNECT` (a client proxying plain HTTP).
    public var plainRequests: Int { state.withLockedValue { $0.requests.filter { $0.method != "CONNECT" }.count } }

    /// Starts a proxy answering each `CONNECT` with `answer`.
    public static func start(
        answer: @escaping @Sendable (Request) -> Answer = { _ in .tunnel }
    ) async throws -> LoopbackProxy {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = NIOLockedValueBox(State())
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
                        let encoder = HTTPResponseEncoder()
                        try channel.pipeline.syncOperations.addHandler(decoder)
                        try channel.pipeline.syncOperations.addHandler(encoder)
                        try channel.pipeline.syncOperations.addHandler(
                            ConnectHandler(answer: answer, state: state, decoder: decoder, encoder: encoder))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else { throw LoopbackServerError.noPort }
            return LoopbackProxy(group: group, channel: channel, state: state, port: port)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, state: NIOLockedValueBox<State>, port: Int) {
        self.group = group
        self.channel = channel
        self.state = state
        self.port = port
    }

    /// Closes the listener and every connection and tunnel, then stops the event loop.
    public func shutdown() async {
        try? await channel.close()
        let open = state.withLockedValue { Array($0.channels.values) }
        for connection in open { try? await connection.close() }
        try? await group.shutdownGracefully()
    }

    /// Reads one request head; for `CONNECT`, connects to the target, answers 200 and becomes a relay.
    private final class ConnectHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let answer: @Sendable (Request) -> Answer
        private let state: NIOLockedValueBox<State>
        private let decoder: ByteToMessageHandler<HTTPRequestDecoder>
        private let encoder: HTTPResponseEncoder
        private var request: Request?

        init(
            answer: @escaping @Sendable (Request) -> Answer, state: NIOLockedValueBox<State>,
            decoder: ByteToMessageHandler<HTTPRequestDecoder>, encoder: HTTPResponseEncoder
        ) {
            self.answer = answer
            self.state = state
            self.decoder = decoder
            self.encoder = encoder
        }

        func channelActive(context: ChannelHandlerContext) {
            let channel = context.channel
            state.withLockedValue { $0.channels[ObjectIdentifier(channel)] = channel }
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            let channel = context.channel
            _ = state.withLockedValue { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                let request = Request(
                    method: head.method.rawValue, target: head.uri,
                    authorization: head.headers.first(name: "proxy-authorization"))
                self.request = request
                state.withLockedValue { $0.requests.append(request) }
            case .body:
                break
            case .end:
                guard let request else { return }
                self.request = nil
                guard request.method == "CONNECT" else {
                    respond(context: context, status: 502, close: true)
                    return
                }
                switch answer(request) {
                case .status(let code):
                    respond(context: context, status: code, close: true)
                case .tunnel:
                    open(request.target, context: context)
                }
            }
        }

        private func respond(context: ChannelHandlerContext, status: Int, close: Bool) {
            var headers = HTTPHeaders([("Content-Length", "0")])
            if status == 407 { headers.add(name: "Proxy-Authenticate", value: "Basic realm=\"loopback\"") }
            if close { headers.add(name: "Connection", value: "close") }
            let head = HTTPResponseHead(
                version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if close {
                let channel = context.channel
                done.whenComplete { _ in channel.close(promise: nil) }
            }
        }

        private func open(_ target: String, context: ChannelHandlerContext) {
            let parts = target.split(separator: ":")
            guard parts.count >= 2, let port = Int(parts.last!) else {
                respond(context: context, status: 400, close: true)
                return
            }
            let host = String(parts.dropLast().joined(separator: ":").filter { $0 != "[" && $0 != "]" })
            let inbound = context.channel
            let loop = context.eventLoop
            let bound = NIOLoopBound((self, context), eventLoop: loop)
            ClientBootstrap(group: loop).connect(host: host, port: port).whenComplete { result in
                let (handler, context) = bound.value
                switch result {
                case .failure:
                    handler.respond(context: context, status: 502, close: true)
                case .success(let outbound):
                    handler.state.withLockedValue {
                        $0.tunnels += 1
                        $0.channels[ObjectIdentifier(outbound)] = outbound
                    }
                    handler.respond(context: context, status: 200, close: false)
                    // The relay goes last; once the HTTP handlers are gone (the decoder last, handing it any
                    // bytes it held), the connection's bytes reach it raw.
                    do {
                        let pipeline = context.pipeline.syncOperations
                        try pipeline.addHandler(Relay(partner: outbound))
                        try outbound.pipeline.syncOperations.addHandler(Relay(partner: inbound))
                        pipeline.removeHandler(handler.encoder, promise: nil)
                        pipeline.removeHandler(handler, promise: nil)
                        pipeline.removeHandler(handler.decoder, promise: nil)
                    } catch {
                        inbound.close(promise: nil)
                        outbound.close(promise: nil)
                    }
                }
            }
        }
    }

    /// Passes every byte read to its partner, and closes the partner when its own side closes.
    private final class Relay: ChannelInboundHandler, RemovableChannelHandler, Sendable {
        typealias InboundIn = ByteBuffer

        private let partner: any Channel
        init(partner: any Channel) { self.partner = partner }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner.close(promise: nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
