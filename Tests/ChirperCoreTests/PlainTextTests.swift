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
}
