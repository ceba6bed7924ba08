import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

private let key = "proxy-test-KEY-4711"

/// The demo catalogue's first sound (in the repository): what the `file` URL finally serves.
private let demoAudio: [UInt8] = {
    let path = ChirperBinary.packageRoot.appendingPathComponent("assets/demo/audio/demo-01.mp3").path
    return FileManager.default.contents(atPath: path).map { Array($0) } ?? []
}()

/// An HTTPS server in xeno-canto's shape: the API lists one recording whose `file` URL is `file()`; `/file`
/// redirects with a 302 to `audio()` (by default its own `/audio`), which serves the demo sound.
private func xenoCanto(
    tls: LoopbackTLS, file: @escaping @Sendable (String) -> String = { $0 + "/file" },
    audio: @escaping @Sendable (String) -> String = { $0 + "/audio" }
) async throws -> LoopbackServer {
    let base = NIOLockedValueBox("")
    let server = try await LoopbackServer.start(tls: tls) { request in
        switch request.path {
        case "/file": return .redirect(to: audio(base.withLockedValue { $0 }))
        case "/audio": return .file(demoAudio, contentType: "audio/mpeg", for: request)
        default:
            let file = file(base.withLockedValue { $0 })
            return .json(
                #"{"numRecordings": "1", "numSpecies": "1", "page": 1, "numPages": 1, "recordings": [{"id": "4711", "en": "Demo Wren", "gen": "Troglodytes", "sp": "troglodytes", "file": "\#(file)", "length": "0:04", "lic": "https://creativecommons.org/licenses/by-nc-sa/4.0/"}]}"#
            )
        }
    }
    base.withLockedValue { $0 = server.baseURL }
    return server
}

/// Runs chirper-play against `apiBase`'s API, trusting `ca`, with `environment` (the proxy variables).
private func run(_ apiBase: String, ca: String, _ input: [String], environment: [String: String]) async throws
    -> ChirperRun
{
    var env = environment
    env["XENO_CANTO_API_KEY"] = key
    return try await runChirper(
        ["--api-url", apiBase + "/api/3/recordings", "--output", "null", "--ca-file", ca], input: input,
        environment: env)
}

/// The pipe's list and playback lines, playback lines cut to their first three words.
private func states(_ run: ChirperRun) -> [String] {
    run.lines.compactMap { line in
        if line.hasPrefix("list: ") { return line }
        if line.hasPrefix("playback: ") { return line.split(separator: " ").prefix(3).joined(separator: " ") }
        return nil
    }
}

private let played = [
    #"list: loading query="en:wren""#, "list: populated rows=1 page=1/1 total=1", "playback: buffering XC4711",
    "playback: playing XC4711", "playback: idle",
]

@Suite(
    "Behind a proxy: HTTPS_PROXY, ALL_PROXY and NO_PROXY, through the program",
    .enabled(if: ChirperBinary.exists, "chirper-play is not built"))
struct ProxyTests {
    @Test("with HTTPS_PROXY set, the search and the play (and its redirect) go through the proxy's CONNECT tunnels")
    func tunnelled() async throws {
        let tls = try LoopbackTLS.make()
        let ca = try tls.writeCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let server = try await xenoCanto(tls: tls)
        let proxy = try await LoopbackProxy.start()
        let result = try await run(
            server.baseURL, ca: ca, ["search wren", "play 1", "wait"],
            environment: ["HTTPS_PROXY": "http://" + proxy.address])
        #expect(states(result) == played, "\(result.stdout)\n\(result.stderr)")
        #expect(server.requests.map(\.path) == ["/api/3/recordings", "/file", "/audio"])
        #expect(proxy.tunnels >= 1)
        #expect(proxy.plainRequests == 0)
        #expect(proxy.requests.allSatisfy { $0.method == "CONNECT" && $0.target == "127.0.0.1:\(server.port)" })
        #expect(server.connectionsAccepted == proxy.tunnels, "every connection the server saw came through a tunnel")
        await proxy.shutdown()
        await server.shutdown()
    }

    @Test("NO_PROXY sends the host direct (the proxy is never asked); ALL_PROXY is the fallback, lowercase wins")
    func bypassed() async throws {
        let tls = try LoopbackTLS.make()
        let ca = try tls.writeCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let server = try await xenoCanto(tls: tls)
        let proxy = try await LoopbackProxy.start()
        let direct = try await run(
            server.baseURL, ca: ca, ["search wren", "play 1", "wait"],
            environment: ["HTTPS_PROXY": proxy.address, "NO_PROXY": "example.org,127.0.0.1"])
        #expect(states(direct) == played, "\(direct.stdout)\n\(direct.stderr)")
        #expect(proxy.requests.isEmpty)
        #expect(server.requests.count == 3)

        let fallback = try await run(
            server.baseURL, ca: ca, ["search wren"],
            environment: ["ALL_PROXY": proxy.address, "no_proxy": "example.org", "NO_PROXY": "127.0.0.1"])
        #expect(fallback.lines("list: populated rows=1").count == 1, "\(fallback.stdout)\n\(fallback.stderr)")
        #expect(proxy.tunnels == 1, "ALL_PROXY carried the search; no_proxy, not NO_PROXY, was read")
        await proxy.shutdown()
        await server.shutdown()
    }

    @Test(
        "a redirect to a host in NO_PROXY leaves the proxy: the search and the file URL tunnel, the audio goes direct")
    func redirectLeavesProxy() async throws {
        let tls = try LoopbackTLS.make()
        let ca = try tls.writeCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let audioHost = try await xenoCanto(tls: tls)
        let audioBase = audioHost.baseURL
        // The API and the file URL by the name `localhost`, the audio by its address (xeno-canto's file URLs
        // redirect).
        let api = try await xenoCanto(
            tls: tls, file: { $0.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/file" },
            audio: { _ in audioBase + "/audio" })
        let apiBase = api.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let proxy = try await LoopbackProxy.start()
        let result = try await run(
            apiBase, ca: ca, ["search wren", "play 1", "wait"],
            environment: ["https_proxy": "http://" + proxy.address, "no_proxy": "127.0.0.1"])
        #expect(states(result) == played, "\(result.stdout)\n\(result.stderr)")
        #expect(api.requests.map(\.path) == ["/api/3/recordings", "/file"])
        #expect(audioHost.requests.map(\.path) == ["/audio"])
        #expect(proxy.tunnels >= 1)
        #expect(proxy.requests.allSatisfy { $0.target == "localhost:\(api.port)" }, "\(proxy.requests)")
        await proxy.shutdown()
        await api.shutdown()
        await audioHost.shutdown()
    }

    @Test("a play whose audio host the proxy will not reach fails in one line naming the proxy; the search stays")
    func playRefused() async throws {
        let tls = try LoopbackTLS.make()
        let ca = try tls.writeCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        // The API by its address, in NO_PROXY; the file URL by the name `localhost`, through the proxy.
        let server = try await xenoCanto(
            tls: tls, file: { $0.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/file" })
        let proxy = try await LoopbackProxy.start { _ in .status(403) }
        let result = try await run(
            server.baseURL, ca: ca, ["search wren", "play 1", "wait", "list"],
            environment: ["HTTPS_PROXY": proxy.address, "NO_PROXY": "127.0.0.1"])
        #expect(result.lines("list: populated rows=1").count == 2, "found, then listed again after the failure")
        #expect(
            result.lines("playback: failed")
                == [
                    #"playback: failed XC4711 reason="the proxy \#(proxy.address) (HTTPS_PROXY) would not open a connection to localhost; check that the proxy lets it through, or add localhost to NO_PROXY to go direct""#
                ], "\(result.stdout)")
        #expect(proxy.requests.map(\.target) == ["localhost:\(server.port)"], "tried once: not a drop to retry")
        #expect(server.requests.map(\.path) == ["/api/3/recordings"])
        #expect(result.lines("row: n=1").count == 2)
        await proxy.shutdown()
        await server.shutdown()
    }

    @Test("the proxy's credentials are sent as basic authorization and never printed; a 407 says what to do")
    func credentials() async throws {
        let tls = try LoopbackTLS.make()
        let ca = try tls.writeCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let server = try await xenoCanto(tls: tls)
        let expected = "Basic " + Data("ada:s3cret pw".utf8).base64EncodedString()
        let proxy = try await LoopbackProxy.start { $0.authorization == expected ? .tunnel : .status(407) }
        let accepted = try await run(
            server.baseURL, ca: ca, ["search wren"],
            environment: ["HTTPS_PROXY": "http://ada:s3cret%20pw@" + proxy.address])
        #expect(accepted.lines("list: populated rows=1").count == 1, "\(accepted.stdout)\n\(accepted.stderr)")

        let none = try await run(server.baseURL, ca: ca, ["search wren"], environment: ["HTTPS_PROXY": proxy.address])
        #expect(
            none.lines("list: error")
                == [
                    #"list: error query="en:wren" message="the proxy \#(proxy.address) (HTTPS_PROXY) asks for a user name and password (HTTP 407); give them in HTTPS_PROXY as http://USER:PASSWORD@\#(proxy.address)""#
                ])
        let wrong = try await run(
            server.baseURL, ca: ca, ["search wren"], environment: ["https_proxy": "ada:hunter2@" + proxy.address])
        #expect(
            wrong.lines("list: error")
                == [
                    #"list: error query="en:wren" message="the proxy \#(proxy.address) (https_proxy) refused its user name and password (HTTP 407); check them in https_proxy""#
                ])
        for output in [accepted, none, wrong] {
            let text = output.stdout + output.stderr
            #expect(!text.contains("s3cret") && !text.contains("hunter2") && !text.contains(key))
        }
        #expect(server.connectionsAccepted == 1, "only the accepted tunnel reached the server")
        await proxy.shutdown()
        await server.shutdown()
    }

    @Test("a proxy that refuses the tunnel, or is not there, is one line naming it; a bad variable is one notice")
    func proxyFailures() async throws {
        let tls = try LoopbackTLS.make()
        let ca = try tls.writeCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let server = try await xenoCanto(tls: tls)
        let forbidding = try await LoopbackProxy.start { _ in .status(403) }
        let refused = try await run(
            server.baseURL, ca: ca, ["search wren"], environment: ["HTTPS_PROXY": forbidding.address])
        #expect(
            refused.lines("list: error")
                == [
                    #"list: error query="en:wren" message="the proxy \#(forbidding.address) (HTTPS_PROXY) would not open a connection to 127.0.0.1; check that the proxy lets it through, or add 127.0.0.1 to NO_PROXY to go direct""#
                ])
        // A port nothing listens on any more.
        let gone = forbidding.address
        await forbidding.shutdown()
        let unreachable = try await run(
            server.baseURL, ca: ca, ["search wren"], environment: ["HTTPS_PROXY": "http://" + gone])
        #expect(
            unreachable.lines("list: error")
                == [
                    #"list: error query="en:wren" message="could not connect to the proxy \#(gone) (HTTPS_PROXY): connection refused; check HTTPS_PROXY, or add 127.0.0.1 to NO_PROXY to go direct""#
                ])
        #expect(server.requests.isEmpty)

        let bad = try await run(
            server.baseURL, ca: ca, ["search wren"],
            environment: ["HTTPS_PROXY": "socks5://ada:hunter2@127.0.0.1:1"])
        #expect(
            bad.stderr.contains(
                "chirper-play: HTTPS_PROXY=socks5://ada:***@127.0.0.1:1: a socks5 proxy is not supported (give http://HOST:PORT); ignored"
            ), "\(bad.stderr)")
        #expect(!bad.stderr.contains("hunter2"))
        #expect(bad.lines("list: populated rows=1").count == 1, "an unusable proxy variable is ignored: direct")
        await server.shutdown()
    }
}
