import ChirperCore

/// Where a recording's bytes come from: an HTTP(S) URL or a local file.
///
/// `open(from:)` may be called again with a later offset to resume after a dropped connection.
public protocol ByteSource: Sendable {
    /// Starts reading the recording at byte `offset` (0 for the start).
    func open(from offset: Int64) async throws -> any ByteReader
    /// Whether a read that ends early is worth resuming with `open(from:)` (a network source), or is
    /// simply the end (a local file).
    var canResume: Bool { get }
    /// The path of a local file that holds the whole recording now (a local file, a recording in the cache),
    /// which can be read in parallel pieces; nil while it must come over the network.
    var wholeLocalFile: String? { get }
    /// Whether what is read from it is kept on disk as it arrives (the play cache), so that reading earlier
    /// bytes again makes no request: the player then holds only a short window of them in memory.
    var keepsArrivedBytes: Bool { get }
}

extension ByteSource {
    public var canResume: Bool { false }
    public var wholeLocalFile: String? { nil }
    public var keepsArrivedBytes: Bool { false }
}

/// One read of a source, in order, chunk by chunk. Used by one task; `read` gives back-pressure (nothing
/// more is fetched until it is called again).
public protocol ByteReader: AnyObject {
    /// The length of the whole recording, if the server or file system says.
    var totalLength: Int64? { get }
    /// The next bytes, or `nil` at the end. Chunk sizes carry no meaning.
    func read() async throws -> [UInt8]?
    /// The server answered a request from a later byte with the whole body (it ignores `Range`): the reader
    /// skips to the offset itself, which takes as long as reading from the start.
    var rangeIgnored: Bool { get }
}

extension ByteReader {
    public var rangeIgnored: Bool { false }
}

/// Why a recording's bytes could not be read.
public enum ByteSourceError: UserFacingError, Hashable {
    /// A recording without an audio URL (xeno-canto hides restricted species' files).
    case noURL
    /// A URL whose scheme is not http or https.
    case unsupportedScheme(String)
    /// A URL that cannot be parsed.
    case badURL(String)
    /// The server answered with an error status.
    case httpStatus(Int, String)
    /// The server answered a resumed request from the wrong place.
    case badRange(String)
    /// Could not connect, or the connection failed: worth a reconnect.
    case network(String)
    /// The connection cannot work until the user changes something (the server's certificate is not
    /// trusted, or is for another host): the whole line, with its fix.
    case refused(String)
    /// A local file could not be opened or read.
    case file(path: String, reason: String)

    public var userMessage: String {
        switch self {
        case .noURL:
            return "no audio file for this recording (restricted species are not downloadable); pick another"
        case .unsupportedScheme(let scheme):
            return "refusing to fetch \(scheme): URLs; only http and https recordings are played"
        case .badURL(let url):
            return "bad audio URL \"\(url.prefix(80))\"; pick another recording"
        case .httpStatus(let code, let reason):
            return "the server answered HTTP \(code)\(reason.isEmpty ? "" : " \(reason)"); try again later"
        case .badRange(let detail):
            return "the server resumed the download wrongly (\(detail)); play it again"
        case .network(let detail):
            return "network error: \(detail); check the connection and play again"
        case .refused(let line):
            return line
        case .file(let path, let reason):
            return "cannot read \(path): \(reason)"
        }
    }
}

/// Makes the byte source for a play item's location.
public struct ByteSources: Sendable {
    private let make: @Sendable (AudioLocation) throws -> any ByteSource

    public init(_ make: @escaping @Sendable (AudioLocation) throws -> any ByteSource) {
        self.make = make
    }

    public func source(for location: AudioLocation) throws -> any ByteSource {
        try make(location)
    }
}
