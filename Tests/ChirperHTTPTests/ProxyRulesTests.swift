import ChirperHTTP
import Testing

/// The proxy for `url` under `environment`, as `host:port` (nil: direct).
private func proxy(_ environment: [String: String], for url: String = "https://xeno-canto.org/api/3/recordings")
    -> String?
{
    ProxyRules.resolve(environment: environment).rules.proxy(for: url)?.address
}

@Suite("Which proxy a request goes through, read from the environment as curl reads it")
struct ProxyRulesTests {
    @Test("no proxy variable: every request goes direct")
    func none() {
        #expect(proxy([:]) == nil)
        #expect(ProxyRules.resolve(environment: ["PATH": "/usr/bin"]).rules == .direct)
    }

    @Test("https URLs take https_proxy before HTTPS_PROXY, then all_proxy before ALL_PROXY")
    func httpsOrder() {
        let all: [String: String] = [
            "https_proxy": "low:1", "HTTPS_PROXY": "up:2", "all_proxy": "all:3", "ALL_PROXY": "ALL:4",
        ]
        #expect(proxy(all) == "low:1")
        #expect(proxy(all.filter { $0.key != "https_proxy" }) == "up:2")
        #expect(proxy(all.filter { !$0.key.hasPrefix("https") && !$0.key.hasPrefix("HTTPS") }) == "all:3")
        #expect(proxy(["ALL_PROXY": "ALL:4"]) == "ALL:4")
        #expect(proxy(["https_proxy": "", "HTTPS_PROXY": "up:2"]) == "up:2", "an empty value is as if unset")
    }

    @Test("http URLs take http_proxy only in lowercase (HTTP_PROXY can be set by a web request), then all_proxy")
    func httpOrder() {
        let url = "http://xeno-canto.org/sounds/1.png"
        #expect(proxy(["http_proxy": "low:1"], for: url) == "low:1")
        #expect(proxy(["HTTP_PROXY": "up:2"], for: url) == nil)
        #expect(proxy(["HTTP_PROXY": "up:2", "ALL_PROXY": "all:3"], for: url) == "all:3")
        #expect(proxy(["HTTPS_PROXY": "secure:5"], for: url) == nil, "HTTPS_PROXY is for https URLs only")
        #expect(proxy(["http_proxy": "low:1"]) == nil, "nor http_proxy for https URLs")
    }

    @Test("a proxy URL without a scheme is http://; without a port it is 1080, as curl has it")
    func addressForms() throws {
        let rules = ProxyRules.resolve(environment: ["HTTPS_PROXY": "proxy.uni.example"]).rules
        let server = try #require(rules.https)
        #expect(server.host == "proxy.uni.example" && server.port == 1080 && server.username == nil)
        #expect(server.variable == "HTTPS_PROXY")
        #expect(proxy(["HTTPS_PROXY": "http://proxy.uni.example:3128/"]) == "proxy.uni.example:3128")
        #expect(proxy(["HTTPS_PROXY": "HTTP://[fd00::1]:8080"]) == "[fd00::1]:8080")
    }

    @Test("user:password in the proxy URL is decoded for basic authorization, and never shown")
    func credentials() throws {
        let rules = ProxyRules.resolve(environment: ["https_proxy": "http://ada:s%40cret@proxy:8080"]).rules
        let server = try #require(rules.https)
        #expect(server.username == "ada" && server.password == "s@cret" && server.hasCredentials)
        #expect(server.address == "proxy:8080")
        #expect(ProxyServer.redacted("http://ada:s%40cret@proxy:8080") == "http://ada:***@proxy:8080")
        #expect(ProxyServer.redacted("ada:pw@proxy:8080") == "ada:***@proxy:8080")
        #expect(ProxyServer.redacted("http://proxy:8080") == "http://proxy:8080")
    }

    @Test("a proxy that cannot be used is one notice (password hidden) and the next variable is used")
    func unusable() {
        let (rules, notices) = ProxyRules.resolve(environment: [
            "https_proxy": "https://ada:hunter2@secure-proxy:443", "ALL_PROXY": "socks5h://socks:1080",
            "http_proxy": "http://",
        ])
        #expect(rules == .direct)
        #expect(
            notices == [
                "https_proxy=https://ada:***@secure-proxy:443: a proxy reached over HTTPS is not supported (give http://HOST:PORT); ignored",
                "ALL_PROXY=socks5h://socks:1080: a socks5h proxy is not supported (give http://HOST:PORT); ignored",
                "http_proxy=http:// is not a proxy address (give http://HOST:PORT); ignored",
            ])
        #expect(!notices.joined().contains("hunter2"))
        let fallback = ProxyRules.resolve(environment: ["https_proxy": "ftp://x:21", "HTTPS_PROXY": "good:8080"])
        #expect(fallback.rules.https?.address == "good:8080")
        #expect(fallback.notices.count == 1)
    }

    @Test("NO_PROXY (or no_proxy, which wins) sends its hosts direct")
    func bypassed() {
        let proxied: [String: String] = ["HTTPS_PROXY": "proxy:3128"]
        #expect(proxy(proxied.merging(["NO_PROXY": "xeno-canto.org"]) { $1 }) == nil)
        #expect(proxy(proxied.merging(["NO_PROXY": "example.org"]) { $1 }) == "proxy:3128")
        #expect(
            proxy(proxied.merging(["no_proxy": "example.org", "NO_PROXY": "xeno-canto.org"]) { $1 }) == "proxy:3128")
        #expect(proxy(proxied.merging(["no_proxy": "*"]) { $1 }) == nil)
    }

    @Test(
        "a NO_PROXY entry matches its name and every name under it, an address or its network, a port if given",
        arguments: [
            ("*", "anything.example", 443, true),
            ("example.org", "example.org", 443, true),
            ("example.org", "www.example.org", 443, true),
            ("example.org", "badexample.org", 443, false),
            (".example.org", "example.org", 443, true),
            (".example.org", "a.b.example.org", 443, true),
            ("EXAMPLE.org", "Example.ORG.", 443, true),
            ("localhost", "localhost", 80, true),
            ("localhost", "127.0.0.1", 80, false),
            ("127.0.0.1", "127.0.0.1", 80, true),
            ("127.0.0.1", "127.0.0.2", 80, false),
            ("10.0.0.0/8", "10.20.30.40", 443, true),
            ("10.0.0.0/8", "11.0.0.1", 443, false),
            ("192.168.1.0/24", "192.168.1.77", 443, true),
            ("::1", "[::1]", 443, true),
            ("[fd00::]/8", "fd12::5", 443, true),
            ("example.org:8443", "example.org", 8443, true),
            ("example.org:8443", "example.org", 443, false),
            (" a.example , b.example ", "b.example", 443, true),
            ("a.example b.example", "b.example", 443, true),
            ("", "example.org", 443, false),
            (",,", "example.org", 443, false),
        ])
    func entries(list: String, host: String, port: Int, matches: Bool) {
        #expect(ProxyBypass(list).matches(host: host, port: port) == matches)
    }

    @Test("only http(s) URLs with a host are proxied")
    func otherURLs() {
        let rules = ProxyRules.resolve(environment: ["ALL_PROXY": "proxy:3128"]).rules
        #expect(rules.proxy(for: "file:///tmp/a.mp3") == nil)
        #expect(rules.proxy(for: "not a url") == nil)
        #expect(rules.proxy(for: "http://127.0.0.1:8080/a")?.address == "proxy:3128")
    }
}
