import Foundation
import Testing

@testable import ChirperCore

@Suite("Plain-Swift text helpers")
struct PlainTextTests {
    @Test(
        "trimmingSpaces trims what Foundation's trimmingCharacters(in: .whitespaces) trims, and keeps line breaks",
        arguments: [
            "", " ", "\t", "play 3", "  play 3 \t", "\u{00A0}play\u{3000}", "play 3\u{200B}", "\u{2002}a b\u{202F}",
            "\nplay 3\n", " \r\n ", "\u{FEFF}x", "é ", " 🐦 ",
        ])
    func matchesFoundation(_ text: String) {
        #expect(text.trimmingSpaces == text.trimmingCharacters(in: .whitespaces))
        #expect(Substring(text).trimmingSpaces == text.trimmingCharacters(in: .whitespaces))
    }

    @Test("trimmingSpaces and Foundation agree on every scalar of the first planes, at either end")
    func everyScalarAtEitherEnd() {
        var disagreements: [String] = []
        for value in UInt32(0)...0x3100 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "\(scalar)x\(scalar)"
            if text.trimmingSpaces != text.trimmingCharacters(in: .whitespaces) {
                disagreements.append("U+" + String(value, radix: 16, uppercase: true))
            }
        }
        #expect(disagreements == [])
    }

    @Test(
        "foldingCaseAndAccents folds a name as Foundation's folding(options: [.caseInsensitive, .diacriticInsensitive])",
        arguments: [
            "Pīpīwharauroa", "Rouge-gorge familier", "Grünfink", "Ñandú", "Ørn", "Straße", "Čáp bílý",
            "Élanion blanc", "Œdicnème criard", "İstanbul", "Ångström", "Hoàng anh", "Zwergschnäpper", "Łabędź",
            "ﬁnch", "Ἀθηνᾶ", "ÿ", "Ç", "e\u{301}", "Common Chiffchaff",
        ])
    func foldsAsFoundation(_ name: String) {
        let foundation = name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
        #expect(name.foldingCaseAndAccents == foundation)
    }

    @Test("padded(toLength:) cuts or pads with spaces as Foundation's padding(toLength:withPad:startingAt:)")
    func paddedAsFoundation() {
        for text in ["", "a", "search", "play <n>", "éé"] {
            for length in 0...9 {
                #expect(
                    text.padded(toLength: length) == text.padding(toLength: length, withPad: " ", startingAt: 0),
                    "\(text) to \(length)")
            }
        }
    }

    @Test("padded(toLength:) counts characters, where Foundation counts UTF-16 units and can cut one in half")
    func paddedCountsCharacters() {
        #expect("🐦x".padded(toLength: 1) == "🐦")
        #expect("🐦x".padded(toLength: 4) == "🐦x  ")
        #expect("e\u{301}".padded(toLength: 2) == "e\u{301} ")
        #expect("🐦x".padding(toLength: 1, withPad: " ", startingAt: 0) != "🐦")
    }

    @Test("String(cFormat:) writes the program's figures as String(format:), halves and negatives included")
    func numbersAsFoundation() {
        for value in [0, 0.05, 0.125, 0.25, 1.0005, 2.25, 2.5, 12.345, 99.95, -0.05, -3.75, 1e6 / 3] {
            for format in ["%.1f", "%.3f", "%.1fs", "%5.1f"] {
                #expect(String(cFormat: format, value) == String(format: format, value), "\(format) \(value)")
            }
        }
        for number in [0, 7, 42, 255] {
            #expect(String(cFormat: "%02d", number) == String(format: "%02d", number))
            #expect(String(cFormat: "%02X", UInt8(number)) == String(format: "%02X", UInt8(number)))
        }
        #expect(String(cFormat: "%.3f", 1e300).count > 300)
    }
}
