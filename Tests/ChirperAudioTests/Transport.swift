import AsyncHTTPClient
import ChirperAudio
import ChirperHTTP
import ChirperTestSupport

extension Transport {
    /// The HTTP client the player streams with: the program's own set-up, trusting the run's CA over HTTPS.
    var client: HTTPClient { self == .https ? Self.trustingClient : .shared }

    var sources: ByteSources { .live(httpClient: client) }

    private static let trustingClient = HTTPClients.streaming(trust: TLSTrust(base: .system, caFiles: [caFile]))
}
