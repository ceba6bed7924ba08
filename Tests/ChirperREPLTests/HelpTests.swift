import ChirperCore
import Testing

@Suite("help, wrapped to the terminal")
struct HelpTests {
    @Test(
        "on a terminal each description wraps at a space under itself, within the width; in a pipe one line each",
        arguments: [110, 80, 60])
    func wrapsWithHangingIndent(columns: Int) async {
        let terminal = ScriptedConsole(["help", "help seek"], interactive: true, width: columns)
        #expect(await runREPL(terminal, ScriptedPlayer([])) == 0)
        let pipe = ScriptedConsole(["help", "help seek"])
        #expect(await runREPL(pipe, ScriptedPlayer([])) == 0)
        let wrapped = terminal.printed
        let whole = pipe.printed
        #expect(whole.count == CommandParser.commands.count + 3 + 5, "one line per command in a pipe")
        for line in wrapped {
            #expect(line.count < columns, "\(line.count) columns: \(line)")
        }
        // Nothing is lost or cut mid-word: the words of the wrapped lines are the words of the whole ones.
        func words(_ lines: [String]) -> [Substring] { lines.flatMap { $0.split(separator: " ") } }
        #expect(words(wrapped) == words(whole))
        #expect(wrapped.count > whole.count, "some descriptions are longer than \(columns) columns")
        // A continued description starts under its own first word, never in the first column.
        let usageWidth = CommandParser.commands.map(\.usage.count).max()!
        let hanging = columns - (usageWidth + 4) >= 30 ? usageWidth + 4 : 6
        let commandRows = wrapped.prefix { !$0.hasPrefix("Search words") }.dropFirst()
        #expect(commandRows.allSatisfy { $0.hasPrefix("  ") })
        let continued = commandRows.filter { $0.prefix(hanging).allSatisfy { $0 == " " } }
        #expect(!continued.isEmpty)
        for row in continued { #expect(row.dropFirst(hanging).first != " ", "hanging indent of \(hanging): \(row)") }
    }
}
