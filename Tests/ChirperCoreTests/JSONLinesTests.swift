@testable import ChirperCore
import Testing

@Suite("--json: the pipe protocol as JSON lines")
struct JSONLinesTests {
    @Test("words are named per kind, pairs keep their keys, numbers are numbers, quoted text is a string")
    func shapes() {
        #expect(
            JSONLines.object(for: "playback: playing XC254462 position=12.4 duration=31.0 loop=12.0-15.0 muted")
                == #"{"type":"playback","state":"playing","id":"XC254462","xc":254462,"position":12.4,"duration":31.0,"loop":"12.0-15.0","muted":true}"#
        )
        #expect(
            JSONLines.object(for: #"row: n=1 id="XC1" en="A \"quoted\" \\ name" type="song" audio=yes"#)
                == #"{"type":"row","n":1,"id":"XC1","xc":1,"en":"A \"quoted\" \\ name","sound_type":"song","audio":true}"#
        )
        #expect(
            JSONLines.object(for: #"error: "unknown command 'x'""#)
                == #"{"type":"error","message":"unknown command 'x'"}"#)
        #expect(JSONLines.object(for: "sono: ░▒▓ █") == #"{"type":"sono","row":"░▒▓ █"}"#)
        #expect(
            JSONLines.object(for: "quiz: score right=14 asked=20")
                == #"{"type":"quiz","event":"score","right":14,"asked":20}"#)
        #expect(
            JSONLines.object(for: "queue: queued XC1,DEMO-02")
                == #"{"type":"queue","event":"queued","ids":["XC1","DEMO-02"]}"#
        )
        #expect(JSONLines.object(for: "queue: autoplay on") == #"{"type":"queue","event":"autoplay","autoplay":"on"}"#)
    }

    @Test("a quiz question's choices are an array of {n, en, sci}, whole, whatever their names hold")
    func quizChoices() throws {
        let presenter = Presenter(style: .script, sourceName: "the demo catalog")
        let species = [
            ("Synthetic chirp sequence", "Demo chirpus"), ("Synthetic \"trill\" ]} =x", "Demo trillans"),
        ].map { QuizDeck.Species(scientificName: $0.1, englishName: $0.0, genus: "Demo", recordings: []) }
        let line = try #require(presenter.quizQuestion(1, of: 1, choices: species).first)
        let object = JSONLines.object(for: line)
        #expect(
            object
                == #"{"type":"quiz","event":"question","n":1,"of":1,"mode":"choice","choices":[{"n":1,"en":"Synthetic chirp sequence","sci":"Demo chirpus"},{"n":2,"en":"Synthetic \"trill\" ]} =x","sci":"Demo trillans"}]}"#
        )
    }

    @Test("xc is a number beside an id only when the id is a xeno-canto number")
    func xcOnlyForXenoCanto() {
        #expect(
            JSONLines.object(for: #"quiz: answer right id="DEMO-01" species="Demo chirpus" skipped"#)
                == #"{"type":"quiz","event":"answer","verdict":"right","id":"DEMO-01","species":"Demo chirpus","skipped":true}"#
        )
        #expect(
            JSONLines.object(for: "attribution: DEMO-01 en=\"x\"") == #"{"type":"attribution","id":"DEMO-01","en":"x"}"#
        )
        #expect(JSONLines.object(for: #"quiz: answer wrong id="XC12""#).contains(#""id":"XC12","xc":12"#))
        #expect(!JSONLines.object(for: "cite: XCAB text=\"t\"").contains("xc"))
    }

    @Test("control characters that reach it are escaped; numbers JSON cannot hold stay strings")
    func escapes() {
        #expect(JSONLines.object(for: "info: note=\"a\u{7}b\u{85}c\"") == #"{"type":"info","note":"a\u0007b\u0085c"}"#)
        #expect(
            JSONLines.object(for: "list: paging next=007 rows=+5 total=1e3")
                == #"{"type":"list","state":"paging","next":"007","rows":"+5","total":1e3}"#)
    }
}
