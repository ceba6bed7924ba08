import ChirperCore
import Testing

@Suite("What the terminal says it can draw")
struct TerminalGraphicsTests {
    @Test("kitty answers OK to its query; a sixel terminal lists 4 in its device attributes; the cell size is read")
    func replies() {
        let kitty = TerminalGraphicsSupport.parse(Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;20;10t\u{1B}[?62;22c".utf8))
        #expect(kitty.complete)
        #expect(
            kitty.support
                == TerminalGraphicsSupport(kitty: true, sixel: false, cellWidth: 10, cellHeight: 20, answered: true))
        let foot = TerminalGraphicsSupport.parse(Array("\u{1B}[?62;4;22c".utf8))
        #expect(foot.support.sixel && !foot.support.kitty && foot.complete)
        let plain = TerminalGraphicsSupport.parse(Array("\u{1B}_Gi=31;ENOTSUPPORTED\u{1B}\\\u{1B}[?1;2c".utf8))
        #expect(!plain.support.kitty && !plain.support.sixel && plain.support.answered)
        // Until the device attributes arrive, the wait goes on.
        #expect(!TerminalGraphicsSupport.parse(Array("\u{1B}_Gi=31;OK\u{1B}\\".utf8)).complete)
    }

    @Test("auto takes kitty, then sixel, then half-blocks; a terminal that never answered is said once")
    func resolve() {
        #expect(TerminalGraphicsSupport(kitty: true, sixel: true, answered: true).resolve(.auto).0 == .kitty)
        #expect(TerminalGraphicsSupport(sixel: true, answered: true).resolve(.auto).0 == .sixel)
        let silent = TerminalGraphicsSupport.none.resolve(.auto)
        #expect(silent.0 == nil && silent.notice?.contains("100 ms") == true)
        #expect(TerminalGraphicsSupport(answered: true).resolve(.auto) == (nil, nil))
        #expect(TerminalGraphicsSupport(answered: true).resolve(.sixel).0 == .sixel)
        #expect(TerminalGraphicsSupport(kitty: true, answered: true).resolve(.blocks) == (nil, nil))
    }
}
