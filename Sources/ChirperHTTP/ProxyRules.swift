import AsyncHTTPClient
import FoundationEssentials

/// An HTTP proxy read from the environment: requests to https URLs go through it in a `CONNECT` tunnel
/// (AsyncHTTPClient tunnels http URLs too).
public struct ProxyServer: Sendable, Hashable {
    public var host: String
    public var port: Int
    /// From the proxy URL's `user:password@`, percent-decoded; sent as basic authorization, never printed.
    public var username: String?
    public var password: String?
    /// The variable it was read from (`https_proxy`, `ALL_PROXY` …), named in messages.
    public var variable: String

    public init(host: String, port: Int, username: String? = nil, password: String? = nil, variable: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.variable = variable
    }

    /// `host:port` (an IPv6 address in brackets): how messages name the proxy, without its user or password.
    public var address: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// Whether the proxy URL carried a user name (and so the proxy was sent credentials).
    public var hasCredentials: Bool { username != nil }

    /// AsyncHTTPClient's form of it.
    public var configuration: HTTPClient.Configuration.Proxy {
        .server(
            host: host, port: port,
            authorization: username.map { .basic(username: $0, password: password ?? "") })
    }

    /// curl's port for a proxy URL that names none.
    public static let defaultPort = 1080

    /// The proxy `value` names (`http://[user[:password]@]host[:port]`, or the same without `http://`), or why
    /// it cannot be used (a line for the user, with any password already hidden).
    public static func parse(_ value: String, variable: String) -> Result<ProxyServer, ProxyNotice> {
        let text = value.blankTrimmed
        let schemeEnd = text.firstRange(of: "://")
        let scheme = schemeEnd.map { text[..<$0.lowerBound].lowercased() } ?? "http"
        let shown = redacted(text)
        guard scheme == "http" else {
            let what =
                scheme == "https"
                ? "a proxy reached over HTTPS is not supported"
                : "a \(scheme) proxy is not supported"
            return .failure(ProxyNotice("\(variable)=\(shown): \(what) (give http://HOST:PORT); ignored"))
        }
        let rest = schemeEnd.map { String(text[$0.upperBound...]) } ?? text
        guard let components = URLComponents(string: "http://" + rest), let host = components.host, !host.isEmpty,
            components.path.isEmpty || components.path == "/", components.query == nil
        else {
            return .failure(
                ProxyNotice("\(variable)=\(shown) is not a proxy address (give http://HOST:PORT); ignored"))
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return .success(
            ProxyServer(
                host: bare, port: components.port ?? defaultPort,
                username: components.user.flatMap { $0.isEmpty ? nil : $0 }, password: components.password,
                variable: variable))
    }

    /// `value` with the password of its `user:password@` replaced by `***`.
    public static func redacted(_ value: String) -> String {
        let start = value.firstRange(of: "://")?.upperBound ?? value.startIndex
        guard let at = value[start...].lastIndex(of: "@") else { return value }
        guard let colon = value[start..<at].firstIndex(of: ":") else { return value }
        return String(value[..<value.index(after: colon)]) + "***" + String(value[at...])
    }
}

/// A proxy variable that could not be used: said once at start-up, on standard error.
public struct ProxyNotice: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Which proxy, if any, carries a request to a URL, from the variables curl reads: `https_proxy` then
/// `HTTPS_PROXY` for https URLs, `http_proxy` (lowercase only, as curl: a web server's CGI sets
/// `HTTP_PROXY` from a request's `Proxy:` header) for http URLs, `all_proxy` then `ALL_PROXY` for either,
/// and `no_proxy` then `NO_PROXY` for the hosts reached directly. The lowercase name wins; an empty value is
/// as if unset.
public struct ProxyRules: Sendable, Equatable {
    public var https: ProxyServer?
    public var http: ProxyServer?
    public var bypass: ProxyBypass

    /// No proxy: every request goes direct.
    public static let direct = ProxyRules(https: nil, http: nil, bypass: ProxyBypass(""))

    public init(https: ProxyServer?, http: ProxyServer?, bypass: ProxyBypass) {
        self.https = https
        self.http = http
        self.bypass = bypass
    }

    /// The rules `environment` sets, and a line for each proxy variable that could not be used (that
    /// scheme then falls back to the next variable, or goes direct).
    public static func resolve(environment: [String: String]) -> (rules: ProxyRules, notices: [String]) {
        var notices: [String] = []
        func first(_ names: [String]) -> ProxyServer? {
            for name in names {
                guard let value = environment[name], !value.blankTrimmed.isEmpty else { continue }
                switch ProxyServer.parse(value, variable: name) {
                case .success(let server): return server
                case .failure(let notice): notices.append(notice.description)
                }
            }
            return nil
        }
        let fallback = ["all_proxy", "ALL_PROXY"]
        let https = first(["https_proxy", "HTTPS_PROXY"] + fallback)
        let http = first(["http_proxy"] + fallback)
        let noProxy = [environment["no_proxy"], environment["NO_PROXY"]].compactMap { $0 }.first {
            !$0.blankTrimmed.isEmpty
        }
        // Each bad variable is said once, however many schemes read it.
        let unique = notices.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        return (ProxyRules(https: https, http: http, bypass: ProxyBypass(noProxy ?? "")), unique)
    }

    /// Whether any request may go through a proxy.
    public var anyProxy: Bool { https != nil || http != nil }

    /// The proxy for a request to `url`, or nil to go direct (no proxy for its scheme, its host is in
    /// `NO_PROXY`, or it is not an http(s) URL).
    public func proxy(for url: String) -> ProxyServer? {
        guard anyProxy, let components = URLComponents(string: url), let host = components.host else { return nil }
        let server: ProxyServer?
        switch components.scheme?.lowercased() {
        case "https": server = https
        case "http": server = http
        default: return nil
        }
        guard let server else { return nil }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        return bypass.matches(host: host, port: port) ? nil : server
    }
}
