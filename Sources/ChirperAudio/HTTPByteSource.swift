import AsyncHTTPClient
import ChirperCore
import ChirperHTTP
import FoundationEssentials
import NIOCore
import NIOHTTP1

/// Streams a recording over HTTP(S) with AsyncHTTPClient: the body arrives chunk by chunk with
/// back-pressure, redirects are followed (xeno-canto's `file` URLs redirect; each hop through its host's
/// proxy or direct, `HTTPRoutes`), and a read can start at a byte offset with `Range: bytes=N-` (a server that
/// ignores it and sends the whole body is handled by skipping).
public struct HTTPByteSource: ByteSource {
    public let url: String
    /// A dropped connection is resumed with `Range: bytes=N-`.
    public var canResume: Bool { true }
    private let routes: HTTPRoutes
    /// Time allowed until the response head arrives (the body has its own stall timeout in the player).
    private let headTimeout: TimeAmount

    /// Checks the URL: only `http` and `https` are accepted.
    public init(url: String, client: HTTPClient = .shared, headTimeout: TimeAmount = .seconds(30)) throws {
        try self.init(url: url, routes: HTTPRoutes(client: client), headTimeout: headTimeout)
    }

    /// Checks the URL; each request (and each redirect) goes through the client `routes` picks for its host.
    public init(url: String, routes: HTTPRoutes, headTimeout: TimeAmount = .seconds(30)) throws {
        try Self.validate(url)
        self.url = url
        self.routes = routes
        self.headTimeout = headTimeout
    }

    /// Throws unless `url` is an absolute http(s) URL with a host.
    public static func validate(_ url: String) throws {
        let trimmed = url.trimmingSpaces
        guard !trimmed.isEmpty else { throw ByteSourceError.noURL }
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased() else {
            throw ByteSourceError.badURL(url)
        }
        guard scheme == "http" || scheme == "https" else {
            throw ByteSourceError.unsupportedScheme(scheme)
        }
        guard let host = components.host, !host.isEmpty else { throw ByteSourceError.badURL(url) }
    }

    public func open(from offset: Int64) async throws -> any ByteReader {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: "chirper-play")
        // Byte offsets must mean the file's bytes: no transfer compression.
        request.headers.add(name: "Accept-Encoding", value: "identity")
        if offset > 0 {
            request.headers.add(name: "Range", value: "bytes=\(offset)-")
        }
        let response: HTTPClientResponse
        let arrivedFrom: String
        do {
            (response, arrivedFrom) = try await routes.execute(request, deadline: .now() + headTimeout)
        } catch {
            throw Self.translate(error, url: url)
        }
        var skip: Int64 = 0
        var total: Int64? = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
        switch response.status.code {
        case 200:
            // The whole body: skip to the offset ourselves.
            skip = offset
        case 206:
            guard let range = response.headers.first(name: "Content-Range").flatMap(ContentRange.init) else {
                throw ByteSourceError.badRange("206 without a usable Content-Range")
            }
            guard range.start <= offset else {
                throw ByteSourceError.badRange("asked for byte \(offset), got \(range.start)")
            }
            skip = offset - range.start
            total = range.total ?? total.map { $0 + range.start }
        case 416 where offset > 0:
            // Asked past the end: the recording was already complete.
            return EmptyByteReader(totalLength: offset)
        default:
            throw ByteSourceError.httpStatus(Int(response.status.code), response.status.reasonPhrase)
        }
        let ignored = response.status.code == 200 && offset > 0
        let bodyLength = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
        return HTTPByteReader(
            body: response.body, url: arrivedFrom, skip: skip, totalLength: total, bodyLength: bodyLength,
            rangeIgnored: ignored)
    }

    /// A transport failure as the player's error: a connection that failed (worth a reconnect), or one that
    /// cannot work until the user changes something (a certificate).
    static func translate(_ error: any Error, url: String) -> any Error {
        if error is CancellationError || error is ByteSourceError { return error }
        let failure = TransportFailure(error)
        let routed = error as? RouteFailure
        let host = routed?.host ?? URLComponents(string: url)?.host ?? "the server"
        let line = failure.message(host: host, proxy: routed?.proxy)
        switch failure {
        case .cancelled: return CancellationError()
        // A proxy that cannot be reached or refuses is a setting to change, not a drop to retry: its whole line.
        case _ where !failure.isTransient || failure.concernsProxy(routed?.proxy): return ByteSourceError.refused(line)
        default: return ByteSourceError.network(line)
        }
    }
}

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange: Hashable {
    var start: Int64
    var end: Int64
    var total: Int64?

    init?(_ header: String) {
        let text = header.trimmingSpaces
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-")
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), end >= start else {
            return nil
        }
        self.start = start
        self.end = end
        self.total = Int64(parts[1])
    }
}

final class HTTPByteReader: ByteReader {
    /// A reader dropped with at most this much of its body still to come reads the rest in the background
    /// (see `deinit`).
    static let drainLimit: Int64 = 256 * 1024

    private var iterator: HTTPClientResponse.Body.AsyncIterator
    /// The address asked for (its host names the server in messages).
    private let url: String
    private var skip: Int64
    let totalLength: Int64?
    let rangeIgnored: Bool
    /// Body bytes still to come, when the server said how many it sends; nil too once the body has ended or
    /// failed (nothing is left to read).
    private var bodyLeft: Int64?

    init(
        body: HTTPClientResponse.Body, url: String, skip: Int64, totalLength: Int64?, bodyLength: Int64?,
        rangeIgnored: Bool
    ) {
        self.iterator = body.makeAsyncIterator()
        self.url = url
        self.skip = skip
        self.totalLength = totalLength
        self.bodyLeft = bodyLength
        self.rangeIgnored = rangeIgnored
    }

    /// Dropped before the end of its body (a stop, another play, a seek): a short rest is read and thrown
    /// away in the background, so that the connection goes back to the client's pool and the next request to
    /// the host (usually the next `play`) needs no new TCP and TLS handshake. A longer rest is not worth its
    /// bandwidth: the request is cancelled and the connection closed, as before.
    deinit {
        guard let left = bodyLeft, left <= Self.drainLimit else { return }
        let rest = Rest(iterator)
        Task {
            while (try? await rest.iterator.next()) != nil {}
        }
    }

    /// The rest of a dropped body, handed to the task that reads it to the end.
    // @unchecked: the iterator is not Sendable (one task at a time may read it); after the hand-over in
    // `deinit` only the draining task touches it.
    private final class Rest: @unchecked Sendable {
        var iterator: HTTPClientResponse.Body.AsyncIterator
        init(_ iterator: HTTPClientResponse.Body.AsyncIterator) { self.iterator = iterator }
    }

    func read() async throws -> [UInt8]? {
        while true {
            let next: ByteBuffer?
            do {
                next = try await iterator.next()
            } catch {
                bodyLeft = nil
                throw HTTPByteSource.translate(error, url: url)
            }
            guard var buffer = next else {
                bodyLeft = nil
                return nil
            }
            bodyLeft = bodyLeft.map { $0 - Int64(buffer.readableBytes) }
            if skip > 0 {
                let dropped = min(Int64(buffer.readableBytes), skip)
                buffer.moveReaderIndex(forwardBy: Int(dropped))
                skip -= dropped
            }
            if buffer.readableBytes > 0 {
                return buffer.readBytes(length: buffer.readableBytes)
            }
        }
    }
}

final class EmptyByteReader: ByteReader {
    let totalLength: Int64?
    init(totalLength: Int64?) { self.totalLength = totalLength }
    func read() async throws -> [UInt8]? { nil }
}
