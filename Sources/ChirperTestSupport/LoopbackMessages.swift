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
