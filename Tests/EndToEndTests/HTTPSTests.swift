import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

private let key = "https-test-KEY-0815"

/// The real recording the HTTPS scenarios play (1.1 MB, 69.8 s): the size xeno-canto serves.
private let dunnock: [UInt8]? = {
    let path = ChirperBinary.packageRoot.path + "/../shared/xeno-canto/audio/XC34430-dunnock-44k-mono-cbr128.mp3"
    return FileManager.default.contents(atPath: path).map { Array($0) }
}()

private let noDunnock: Comment = "skipped: ../shared/xeno-canto/audio/XC34430-dunnock-44k-mono-cbr128.mp3 is absent"

/// An HTTPS server in xeno-canto's shape: the API at `/api/3/recordings` lists one recording whose `file` URL
/// (`/file`) redirects with a 302 to `/audio`, which serves `audio` and closes the connection beneath TLS (no
/// close_notify) the first time each of `cuts` is reached.
private func xenoCanto(tls: LoopbackTLS, audio: [UInt8], cuts: [Int] = []) async throws -> LoopbackServer {
    let base = NIOLockedValueBox("")
    let pending = NIOLockedValueBox(cuts.sorted())
    let server = try await LoopbackServer.start(tls: tls) { request in
        switch request.path {
        case "/file":
            return .redirect(to: "/audio")
        case "/audio":
            let start = request.header("range").flatMap { Int($0.dropFirst(6).dropLast()) } ?? 0
            let cut = pending.withLockedValue { cuts -> Int? in
                guard let index = cuts.firstIndex(where: { $0 > start }) else { return nil }
                return cuts.remove(at: index)
            }
            guard let cut else { return .file(audio, contentType: "audio/mpeg", for: request) }
            var headers = [("Content-Type", "audio/mpeg"), ("Accept-Ranges", "bytes")]
            if start > 0 { headers.append(("Content-Range", "bytes \(start)-\(audio.count - 1)/\(audio.count)")) }
            return LoopbackResponse(
                status: start > 0 ? 206 : 200, headers: headers,
                chunks: LoopbackResponse.chunked(Array(audio[start..<cut]), size: 16 * 1024),
                ending: .cut(declaredLength: audio.count - start))
        default:
            let file = base.withLockedValue { $0 } + "/file"
            return .json(
                #"{"numRecordings": "1", "numSpecies": "1", "page": 1, "numPages": 1, "recordings": [{"id": "34430", "en": "Dunnock", "gen": "Prunella", "sp": "modularis", "file": "\#(file)", "length": "1:09", "lic": "https://creativecommons.org/licenses/by-nc-nd/2.5/"}]}"#
            )
        }
    }
    base.withLockedValue { $0 = server.baseURL }
    return server
}

/// Runs chirper-play against `server`'s API with `input`, writing what it plays to a WAV file in a fresh folder.
private func run(
    _ server: LoopbackServer, _ input: [String], flags: [String] = [], environment: [String: String] = [:]
) async throws -> (run: ChirperRun, wav: Data?) {
    let wav = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-https-\(UUID()).wav").path
    defer { try? FileManager.default.removeItem(atPath: wav) }
    var env = environment
    env["XENO_CANTO_API_KEY"] = key
    let result = try await runChirper(
        ["--api-url", server.baseURL + "/api/3/recordings", "--output", "wav:" + wav] + flags, input: input,
        environment: env)
    return (result, FileManager.default.contents(atPath: wav))
}

@Suite(
    "HTTPS, as xeno-canto serves everything, through the program",
    .enabled(if: ChirperBinary.exists, "chirper-play is not built"))
struct HTTPSTests {
    @Test(
        "a certificate the client does not trust is one whole line with the fix; SSL_CERT_FILE and --ca-file trust it")
    func trust() async throws {
        let tls = try LoopbackTLS.make()
        let ca = try tls.writeCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let server = try await xenoCanto(tls: tls, audio: Array(repeating: 0, count: 10))
        let untrusted = try await run(server, ["search wren", "list"])
        #expect(
            untrusted.run.lines("list: error")
                == Array(
                    repeating:
                        #"list: error query="en:wren" message="the certificate of 127.0.0.1 is not trusted (unknown issuer, self-signed or expired); behind a proxy that inspects HTTPS, give its CA with --ca-file FILE or SSL_CERT_FILE""#,
                    count: 2), "once as it happened, once for list")
        #expect(untrusted.run.status == 0)
        #expect(server.requests.isEmpty, "nothing was sent to an untrusted server")

        let byVariable = try await run(server, ["search wren"], environment: ["SSL_CERT_FILE": ca])
        #expect(byVariable.run.lines("list: populated rows=1").count == 1, "\(byVariable.run.stdout)")
        let byFlag = try await run(server, ["search wren"], flags: ["--ca-file", ca])
        #expect(byFlag.run.lines("list: populated rows=1").count == 1, "\(byFlag.run.stdout)")
        for output in [untrusted.run, byVariable.run, byFlag.run] {
            #expect(!(output.stdout + output.stderr).contains(key), "the API key never appears")
        }
        await server.shutdown()
    }

    @Test("a certificate for another host says so; a CA file that cannot be used stops the start with one line")
    func wrongHostAndBadFile() async throws {
        let tls = try LoopbackTLS.make(names: ["xeno-canto.example"], addresses: [])
        let ca = try tls.writeCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let server = try await xenoCanto(tls: tls, audio: [])
        let wrongHost = try await run(server, ["search wren"], flags: ["--ca-file", ca])
        #expect(
            wrongHost.run.lines("list: error")
                == [
                    #"list: error query="en:wren" message="the certificate of 127.0.0.1 is for another host; check the address, or behind a proxy that inspects HTTPS give its CA with --ca-file FILE""#
                ])
        await server.shutdown()

        let missing = try await runChirper(["--ca-file", "/nonexistent/ca.pem"], input: [])
        #expect(missing.status != 0)
        #expect(
            missing.stderr.contains("--ca-file /nonexistent/ca.pem: no such file; give a PEM file of CA certificates"))
        let notPEM = try await runChirper(["--ca-file", ChirperBinary.packageRoot.path + "/README.md"], input: [])
        #expect(notPEM.status != 0)
        #expect(notPEM.stderr.contains("no PEM certificate could be read from it"))
    }

    @Test(
        "behind a 302 over HTTPS, a recording dropped at 300 kB, at byte 1 and in its last frame resumes to an identical WAV",
        .enabled(if: dunnock != nil, noDunnock))
    func dropsResume() async throws {
        let audio = try #require(dunnock)
        let tls = try LoopbackTLS.make()
        let ca = try tls.writeCA()
        defer { try? FileManager.default.removeItem(atPath: ca) }
        let commands = ["search dunnock", "play 1", "wait"]
        let whole = try await xenoCanto(tls: tls, audio: audio)
        let reference = try #require(try await run(whole, commands, flags: ["--ca-file", ca]).wav)
        await whole.shutdown()
        #expect(reference.count > 6_000_000, "69.8 s of 44.1 kHz mono")
        for cut in [300_000, 1, audio.count - 200] {
            let server = try await xenoCanto(tls: tls, audio: audio, cuts: [cut])
            let played = try await run(server, commands, flags: ["--ca-file", ca])
            #expect(played.wav == reference, "cut at \(cut): \(played.run.stdout)")
            #expect(played.run.lines("playback: failed").isEmpty)
            let audioRequests = server.requests.filter { $0.path == "/audio" }.map { $0.header("range") }
            #expect(audioRequests.count == 2 && audioRequests[0] == nil, "one resume: \(audioRequests)")
            await server.shutdown()
        }
    }
}
