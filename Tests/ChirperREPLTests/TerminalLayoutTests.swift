import Testing

@testable import ChirperREPL

@Suite("Rows cut to the terminal's width")
struct TerminalLayoutTests {
    @Test("a row that fits comes back as it is, its colour sequences with it")
    func fits() {
        let row = "\u{1B}[1m▶ playing XC254462 Eurasian Wren 0:01 / 0:12 [##---] buf 1.9 s\u{1B}[0m"
        #expect(TerminalLayout.clip(row, columns: 99) == row)
        #expect(TerminalLayout.clip("abcd", columns: 4) == "abcd")
    }

    @Test("a row too wide is cut at its last column; the sequences before the cut stay")
    func cut() {
        #expect(TerminalLayout.clip("\u{1B}[31mabcdef\u{1B}[0m", columns: 4) == "\u{1B}[31mabcd")
        #expect(TerminalLayout.clip("abcde", columns: 4) == "abcd")
    }

    @Test("control characters and escapes other than CSI are dropped, also from a row that would fit")
    func controls() {
        #expect(TerminalLayout.clip("a\u{7}b\u{1B}]0;title\u{7}c", columns: 80) == "ab0;titlec")
        #expect(TerminalLayout.clip("a\u{9B}b\rc", columns: 80) == "abc")
    }
}
