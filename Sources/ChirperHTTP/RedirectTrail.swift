import AsyncHTTPClient
import FoundationEssentials

/// The redirects of one request, followed a hop at a time as AsyncHTTPClient follows them (at most ten, no
/// cycle, only to http and https): the URL to ask next, and when to stop.
public struct RedirectTrail: Sendable {
    public static let limit = 10

    /// The URL to ask now.
    public private(set) var url: String
    private var visited: [String]

    public init(url: String) {
        self.url = url
        self.visited = [url]
    }

    /// Moves on to the `Location` of a redirect and returns true, or returns false for a reply that is not one
    /// to follow (not 301, 302, 303, 307 or 308; no `Location`; not an http(s) URL: the reply stands).
    /// Throws AsyncHTTPClient's own errors for too many hops and for a cycle.
    public mutating func follow(status: Int, location: String?) throws -> Bool {
        guard [301, 302, 303, 307, 308].contains(status), let location, !location.isEmpty,
            let base = URL(string: url), let next = URL(string: location, relativeTo: base)?.absoluteString,
            let scheme = URLComponents(string: next)?.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return false }
        guard visited.count <= Self.limit else { throw HTTPClientError.redirectLimitReached }
        guard !visited.contains(next) else { throw HTTPClientError.redirectCycleDetected }
        visited.append(next)
        url = next
        return true
    }

    /// The host of `url`, as messages name it.
    public static func host(of url: String) -> String? {
        URLComponents(string: url)?.host
    }
}
