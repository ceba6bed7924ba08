import AsyncHTTPClient
import ChirperAudio
import ChirperHTTP
import ChirperTestSupport
import Testing

/// How a test's recording reaches the player: plain HTTP on loopback, or HTTPS (as xeno-canto serves every
/// recording) with a CA made for the test run, trusted the way a user trusts a proxy's CA: its PEM file given
/// as `--ca-file`, through the same `TLSTrust` and client set-up as the program.
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case http, https

    var testDescription: String { rawValue.uppercased() }

    /// The server's certificate, for `LoopbackServer.start(tls:)`; nil over plain HTTP.
    var tls: LoopbackTLS? { self == .https ? Self.authority.tls : nil }

    /// The HTTP client the player streams with.
    var client: HTTPClient { self == .https ? Self.authority.client : .shared }

    var sources: ByteSources { .live(httpClient: client) }

    /// One CA, certificate and trusting client for the whole run (made on first use).
    private static let authority: (tls: LoopbackTLS, client: HTTPClient) = {
        do {
            let tls = try LoopbackTLS.make()
            let client = HTTPClients.streaming(trust: TLSTrust(base: .system, caFiles: [try tls.writeCA()]))
            return (tls, client)
        } catch {
            fatalError("could not make the test CA: \(error)")
        }
    }()
}
