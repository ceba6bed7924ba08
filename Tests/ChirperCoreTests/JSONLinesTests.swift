import ChirperCore
import Testing

@Suite("--json: the pipe protocol as JSON lines")
struct JSONLinesTests {
    @Test("words are named per kind, pairs keep their keys, numbers are numbers, quoted text is a string")
    func shapes() {
        #expect(
            JSONLines.object(for: "playback: playing XC254462 position=12.4 duration=31.0 loop=12.0-15.0 muted")
                == #"{"type":"playback","state":"playing","id":"XC254462","xc":254462,"position":12.4,"duration":31.0,"loop":"12.0-15.0","args":["muted"]}"#
        )
        #expect(
            JSONLines.object(for: #"row: n=1 id="XC1" en="A \"quoted\" \\ name" type="song" audio=yes"#)
                == #"{"type":"row","n":1,"id":"XC1","en":"A \"quoted\" \\ name","sound_type":"song","audio":true}"#)
        #expect(
            JSONLines.object(for: #"error: "unknown command 'x'""#)
                == #"{"type":"error","message":"unknown command 'x'"}"#)
        #expect(JSONLines.object(for: "sono: ░▒▓ █") == #"{"type":"sono","row":"░▒▓ █"}"#)
        #expect(JSONLines.object(for: "quiz: score 14/20") == #"{"type":"quiz","event":"score","args":["14/20"]}"#)
    }

    @Test("control characters that reach it are escaped; numbers JSON cannot hold stay strings")
    func escapes() {
        #expect(JSONLines.object(for: "info: note=\"a\u{7}b\u{85}c\"") == #"{"type":"info","note":"a\u0007b\u0085c"}"#)
        #expect(
            JSONLines.object(for: "list: paging next=007 rows=+5 total=1e3")
                == #"{"type":"list","state":"paging","next":"007","rows":"+5","total":1e3}"#)
    }
}
