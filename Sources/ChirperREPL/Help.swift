import Foundation
import ChirperCore

/// The `help` text.
enum Help {
    static func lines(topic: String?, script: Bool) -> [String] {
        guard let topic else {
            let width = CommandParser.commands.map(\.usage.count).max() ?? 0
            return ["Commands:"]
                + CommandParser.commands.map { command in
                    let aliases = command.aliases.isEmpty ? "" : " (also \(command.aliases.joined(separator: ", ")))"
                    return "  " + command.usage.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                        + command.summary + aliases
                }
                + [
                    "Search words look up English names; tags narrow it down: search wren cnt:spain q:A",
                    "help tags lists the search tags; Ctrl-C stops playback; Ctrl-D or quit leaves.",
                ]
        }
        if topic == "tags" {
            return [
                "Search tags (xeno-canto API v3; quote values with spaces: cnt:\"united kingdom\"):",
                "  en: English name      gen: genus          sp: species or \"genus species\"   ssp: subspecies",
                "  fam: family           grp: birds, grasshoppers, bats, frogs, \"land mammals\", soundscape",
                "  cnt: country          loc: locality       area: africa america asia australia europe",
                "  rec: recordist        type: song, call, \"alarm call\", \"flight call\" …",
                "  q: quality A-E, q:\">C\" (A, B)   len: seconds, len:\"<30\", len:10-20   since: days or a date",
                "  year: month: sex: stage: method: seen: playback: also: rmk: nr: lic: smp: box: lat: lon:",
                "Words without a tag search English names: search common blackbird",
            ]
        }
        if let command = CommandParser.commands.first(where: { $0.name == topic || $0.aliases.contains(topic) }) {
            return ["\(command.usage): \(command.summary)"]
        }
        return ["no help for '\(TerminalText.sanitize(String(topic.prefix(30))))'; help lists the commands"]
    }
}
