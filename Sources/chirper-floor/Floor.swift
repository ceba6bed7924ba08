// `make bench`'s floor: what the stack chirper-play stands on costs before chirper-play does anything.
// It makes the HTTP client chirper-play makes (AsyncHTTPClient, the same configuration), fetches one page of
// the API and then the audio at the second URL, and reads its body to the end, keeping none of it: no list,
// no decoder, no sound server, no REPL. It says `page` and `audio` (the first bytes) as they arrive, on
// standard output unbuffered; with `--first` it stops at the audio's first bytes.
//
//     chirper-floor PAGE-URL AUDIO-URL [--first]
import AsyncHTTPClient
import ChirperHTTP
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a line at once (a pipe would hold `print`'s lines to the end).
func say(_ line: String, to descriptor: Int32 = STDOUT_FILENO) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(descriptor, bytes.baseAddress, bytes.count) }
}

@main
enum Floor {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3 else {
            say("usage: chirper-floor PAGE-URL AUDIO-URL [--first]", to: STDERR_FILENO)
            exit(2)
        }
        HTTPClients.runOnOneEventLoop()
        let client = HTTPClients.streaming(trust: .system)
        do {
            let page = try await client.execute(HTTPClientRequest(url: arguments[1]), timeout: .seconds(15))
            guard page.status == .ok else { throw FloorError.status(page.status.code, arguments[1]) }
            var pageBytes = 0
            for try await chunk in page.body { pageBytes += chunk.readableBytes }
            say("page \(pageBytes) bytes")
            let audio = try await client.execute(HTTPClientRequest(url: arguments[2]), timeout: .seconds(15))
            guard audio.status == .ok else { throw FloorError.status(audio.status.code, arguments[2]) }
            var audioBytes = 0
            var arrived = false
            for try await chunk in audio.body {
                if !arrived { say("audio") }
                arrived = true
                audioBytes += chunk.readableBytes
                if arguments.contains("--first") { break }
            }
            say("end \(audioBytes) bytes")
        } catch {
            say("error \(error)", to: STDERR_FILENO)
            try? await client.shutdown()
            exit(1)
        }
        try? await client.shutdown()
    }
}

/// A reply that is not the page or the recording: the floor would measure the wrong thing.
enum FloorError: Error {
    case status(UInt, String)
}
