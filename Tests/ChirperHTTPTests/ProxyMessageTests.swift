import AsyncHTTPClient
import ChirperHTTP
import Testing

private let plain = ProxyServer(host: "proxy.uni.example", port: 3128, variable: "HTTPS_PROXY")
private let withPassword = ProxyServer(
    host: "proxy.uni.example", port: 3128, username: "ada", password: "hunter2", variable: "https_proxy")

@Suite("A failure through a proxy is one line naming the proxy (host:port only) and what to do")
struct ProxyMessageTests {
    @Test("407 without credentials asks for them in the variable; with them, says they were refused")
    func authentication() {
        let failure = TransportFailure(HTTPClientError.proxyAuthenticationRequired)
        #expect(failure == .proxyAuthentication && !failure.isTransient)
        #expect(
            failure.message(host: "xeno-canto.org", proxy: plain)
                == "the proxy proxy.uni.example:3128 (HTTPS_PROXY) asks for a user name and password (HTTP 407); give them in HTTPS_PROXY as http://USER:PASSWORD@proxy.uni.example:3128"
        )
        let refused = failure.message(host: "xeno-canto.org", proxy: withPassword)
        #expect(
            refused
                == "the proxy proxy.uni.example:3128 (https_proxy) refused its user name and password (HTTP 407); check them in https_proxy"
        )
        #expect(!refused.contains("hunter2") && !refused.contains("ada"))
    }

    @Test("a proxy that will not tunnel to the host, that refuses connections or does not answer says so")
    func unreachable() {
        let tunnel = TransportFailure(
            RouteFailure(HTTPClientError.invalidProxyResponse, url: "https://a.example/x", proxy: plain))
        #expect(tunnel == .proxyRefusedTunnel)
        #expect(
            tunnel.message(host: "a.example", proxy: plain)
                == "the proxy proxy.uni.example:3128 (HTTPS_PROXY) would not open a connection to a.example; check that the proxy lets it through, or add a.example to NO_PROXY to go direct"
        )
        #expect(
            TransportFailure.refused.message(host: "xeno-canto.org", proxy: withPassword)
                == "could not connect to the proxy proxy.uni.example:3128 (https_proxy): connection refused; check https_proxy, or add xeno-canto.org to NO_PROXY to go direct"
        )
        #expect(
            TransportFailure.unknownHost.message(host: "xeno-canto.org", proxy: plain)
                == "could not find the proxy proxy.uni.example:3128 (HTTPS_PROXY): its name does not resolve; check HTTPS_PROXY"
        )
        #expect(TransportFailure(HTTPClientError.httpProxyHandshakeTimeout) == .proxyTimedOut)
        #expect(
            TransportFailure.proxyTimedOut.message(host: "xeno-canto.org", proxy: plain)
                == "could not reach the proxy proxy.uni.example:3128 (HTTPS_PROXY) in time; check HTTPS_PROXY and your connection"
        )
    }

    @Test("what goes wrong with the host itself is still said of the host, through a proxy or not")
    func hostFailures() {
        #expect(!TransportFailure.untrustedCertificate.concernsProxy(plain))
        #expect(
            TransportFailure.dropped.message(host: "xeno-canto.org", proxy: plain)
                == "the connection to xeno-canto.org dropped mid-reply")
        #expect(!TransportFailure.refused.concernsProxy(nil))
        #expect(
            TransportFailure.refused.message(host: "xeno-canto.org", proxy: nil)
                == "could not connect to xeno-canto.org: connection refused")
    }
}

@Suite("Redirects followed a hop at a time, as AsyncHTTPClient follows them")
struct RedirectTrailTests {
    @Test("a relative Location is resolved against the URL asked; another host is taken as given")
    func hops() throws {
        var trail = RedirectTrail(url: "https://xeno-canto.org/254462/download")
        #expect(try trail.follow(status: 302, location: "/sounds/XC254462.mp3"))
        #expect(trail.url == "https://xeno-canto.org/sounds/XC254462.mp3")
        #expect(try trail.follow(status: 307, location: "https://cdn.example/a.mp3"))
        #expect(trail.url == "https://cdn.example/a.mp3")
        #expect(RedirectTrail.host(of: trail.url) == "cdn.example")
    }

    @Test("a reply that is not a redirect to http(s) stands")
    func notFollowed() throws {
        var trail = RedirectTrail(url: "https://xeno-canto.org/a")
        #expect(try !trail.follow(status: 200, location: "/b"))
        #expect(try !trail.follow(status: 304, location: "/b"))
        #expect(try !trail.follow(status: 302, location: nil))
        #expect(try !trail.follow(status: 302, location: "ftp://xeno-canto.org/b"))
        #expect(trail.url == "https://xeno-canto.org/a")
    }

    @Test("ten hops are followed, the eleventh fails, and a cycle fails at once")
    func limits() throws {
        var trail = RedirectTrail(url: "https://a.example/0")
        for hop in 1...10 { #expect(try trail.follow(status: 302, location: "/\(hop)")) }
        #expect(throws: HTTPClientError.redirectLimitReached) { try trail.follow(status: 302, location: "/11") }
        var cycle = RedirectTrail(url: "https://a.example/0")
        #expect(try cycle.follow(status: 301, location: "/1"))
        #expect(throws: HTTPClientError.redirectCycleDetected) { try cycle.follow(status: 301, location: "/0") }
    }
}
