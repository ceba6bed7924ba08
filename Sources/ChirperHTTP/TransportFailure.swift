import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#endif

/// The one funnel for what can go wrong between chirper-play and a web server (AsyncHTTPClient, NIO and
/// NIOSSL's errors): each failure becomes a case, and each case one whole line saying what happened and what
/// to do. The search client and the audio reader both describe their transport failures through it.
public enum TransportFailure: Equatable, Sendable {
    /// The server's certificate does not lead to a trusted CA (unknown issuer, self-signed, expired).
    case untrustedCertificate
    /// The certificate is valid but names another host.
    case wrongHost
    /// TLS could not be set up for another reason (protocol, cipher, a broken handshake).
    case tls(String)
    /// The connection ended or was reset before the reply did.
    case dropped
    /// No answer in time (`connecting`: not even a connection).
    case timedOut(connecting: Bool)
    case refused
    case unknownHost
    case tooManyRedirects
    case cancelled
    /// The proxy answered 407: it wants a user name and password, or refused those it was given.
    case proxyAuthentication
    /// The proxy would not open a tunnel to the host (any answer to `CONNECT` but 2xx and 407).
    case proxyRefusedTunnel
    /// The proxy did not answer the tunnel's `CONNECT` in time.
    case proxyTimedOut
    /// Anything else, described as the library did (cut to a line).
    case other(String)

    public init(_ error: any Error) {
        if let routed = error as? RouteFailure {
            self.init(routed.error)
            return
        }
        if error is CancellationError {
            self = .cancelled
            return
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: self = .cancelled
            case .deadlineExceeded, .readTimeout, .writeTimeout: self = .timedOut(connecting: false)
            case .connectTimeout: self = .timedOut(connecting: true)
            case .remoteConnectionClosed, .bodyLengthMismatch, .uncleanShutdown: self = .dropped
            case .redirectLimitReached, .redirectCycleDetected: self = .tooManyRedirects
            case .proxyAuthenticationRequired: self = .proxyAuthentication
            case .invalidProxyResponse: self = .proxyRefusedTunnel
            case .httpProxyHandshakeTimeout: self = .proxyTimedOut
            default: self = Self.described(error)
            }
            return
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            self = .wrongHost
            return
        }
        if let error = error as? NIOSSLError {
            switch error {
            case .uncleanShutdown:
                self = .dropped
            case .handshakeFailed(let inner):
                let text = String(describing: inner)
                self = text.contains("CERTIFICATE_VERIFY_FAILED") ? .untrustedCertificate : .tls(Self.shortTLS(text))
            default:
                // e.g. failedToLoadCertificate: a trust file NIOSSL could not read.
                self = .tls(String(String(describing: error).prefix(80)))
            }
            return
        }
        // The host's name did not resolve (no network, no DNS server, or no such name): NIO says so in its
        // connection error, with nothing tried after the lookups.
        if let error = error as? NIOConnectionError, error.connectionErrors.isEmpty,
            error.dnsAError != nil || error.dnsAAAAError != nil
        {
            self = .unknownHost
            return
        }
        if error is SocketAddressError.UnknownHost {
            self = .unknownHost
            return
        }
        if let error = error as? HTTPParserError, error == .invalidEOFState {
            self = .dropped
            return
        }
        if let error = error as? IOError, [ECONNRESET, EPIPE, ECONNABORTED].contains(error.errnoCode) {
            self = .dropped
            return
        }
        self = Self.described(error)
    }

    /// Worth trying again by itself (a reconnect): not a certificate to fix, nor a cancelled request.
    public var isTransient: Bool {
        switch self {
        case .untrustedCertificate, .wrongHost, .tls, .cancelled, .tooManyRedirects, .proxyAuthentication,
            .proxyRefusedTunnel:
            false
        case .dropped, .timedOut, .refused, .unknownHost, .other, .proxyTimedOut: true
        }
    }

    /// Whether, through `proxy`, this is about the proxy itself (it cannot be reached, or it refused) rather
    /// than about the host: its line names the proxy and its variable, and says the whole fix.
    public func concernsProxy(_ proxy: ProxyServer?) -> Bool {
        guard proxy != nil else { return false }
        switch self {
        case .refused, .unknownHost, .timedOut(connecting: true), .proxyAuthentication, .proxyRefusedTunnel,
            .proxyTimedOut:
            return true
        default:
            return false
        }
    }

    /// One line: what happened with `host` (reached through `proxy`, if any), and what to do. A proxy is named
    /// by its host and port only, never its user name or password.
    public func message(host: String, proxy: ProxyServer?) -> String {
        guard let proxy, concernsProxy(proxy) else { return message(host: host) }
        let named = "the proxy \(proxy.address) (\(proxy.variable))"
        switch self {
        case .refused:
            return "could not connect to \(named): connection refused; check \(proxy.variable), "
                + "or add \(host) to NO_PROXY to go direct"
        case .unknownHost:
            return "could not find \(named): its name does not resolve; check \(proxy.variable)"
        case .proxyAuthentication where proxy.hasCredentials:
            return "\(named) refused its user name and password (HTTP 407); check them in \(proxy.variable)"
        case .proxyAuthentication:
            return "\(named) asks for a user name and password (HTTP 407); give them in \(proxy.variable) "
                + "as http://USER:PASSWORD@\(proxy.address)"
        case .proxyRefusedTunnel:
            return "\(named) would not open a connection to \(host); check that the proxy lets it through, "
                + "or add \(host) to NO_PROXY to go direct"
        default:
            return "could not reach \(named) in time; check \(proxy.variable) and your connection"
        }
    }

    /// One line: what happened with `host`, and what to do.
    public func message(host: String) -> String {
        switch self {
        case .untrustedCertificate:
            return "the certificate of \(host) is not trusted (unknown issuer, self-signed or expired); "
                + "behind a proxy that inspects HTTPS, give its CA with --ca-file FILE or SSL_CERT_FILE"
        case .wrongHost:
            return "the certificate of \(host) is for another host; check the address, "
                + "or behind a proxy that inspects HTTPS give its CA with --ca-file FILE"
        case .tls(let detail):
            return "could not set up HTTPS with \(host) (\(detail)); check the address and your connection"
        case .dropped:
            return "the connection to \(host) dropped mid-reply"
        case .timedOut(let connecting):
            return connecting ? "could not reach \(host) in time" : "\(host) did not answer in time"
        case .refused:
            return "could not connect to \(host): connection refused"
        case .unknownHost:
            return "could not find \(host): its name does not resolve (no network, or a wrong address)"
        case .tooManyRedirects:
            return "\(host) redirected too many times"
        case .cancelled:
            return "the request was cancelled"
        case .proxyAuthentication:
            return "a proxy asked for a user name and password (HTTP 407)"
        case .proxyRefusedTunnel:
            return "a proxy would not open a connection to \(host)"
        case .proxyTimedOut:
            return "a proxy did not answer in time"
        case .other(let detail):
            return "could not talk to \(host) (\(detail))"
        }
    }

    private static func described(_ error: any Error) -> TransportFailure {
        let text = String(describing: error)
        if text.contains("refused") || text.contains("ECONNREFUSED") || text.contains("errno: 111") {
            return .refused
        }
        if text.lowercased().contains("resolve") || text.contains("NXDOMAIN") || text.contains("getaddrinfo") {
            return .unknownHost
        }
        return .other(String(text.prefix(120)))
    }

    /// BoringSSL's error stack as its reasons only (`WRONG_VERSION_NUMBER`), not its numbers and file names.
    private static func shortTLS(_ text: String) -> String {
        let reasons = text.split(whereSeparator: { !($0.isUppercase || $0.isNumber || $0 == "_") })
            .filter { $0.count > 3 && $0.contains("_") && !$0.hasSuffix("_") && $0.first?.isLetter == true }
        let unique = reasons.reduce(into: [Substring]()) { if !$0.contains($1) { $0.append($1) } }
        return unique.isEmpty ? "TLS handshake failed" : unique.prefix(2).joined(separator: ", ").lowercased()
    }
}
