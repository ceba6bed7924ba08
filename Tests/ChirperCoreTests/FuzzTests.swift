import ChirperTestSupport
import Foundation
import Testing

@testable import ChirperCore

/// A small seeded generator, so a failing case can be reproduced from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Bytes of a page that is valid to start with.
private func seedPage() throws -> [UInt8] {
    let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("assets/demo/catalog.json")
    return Array(try Data(contentsOf: demo))
}

/// One random mutation: flip, insert, delete, splice in a nasty token, or cut.
private func mutate(_ bytes: [UInt8], using generator: inout SplitMix64) -> [UInt8] {
    var bytes = bytes
    let tokens: [[UInt8]] = [
        Array("null".utf8), Array("[[[[[[[[".utf8), Array("\"\\u001b[2J\"".utf8), Array("{\"id\":{}}".utf8),
        Array("1e999".utf8), [0xFF, 0xFE, 0x00], Array("\"javascript:alert(1)\"".utf8), Array("\"../../x\"".utf8),
    ]
    for _ in 0..<Int.random(in: 1...8, using: &generator) where !bytes.isEmpty {
        let at = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
        case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: at)
        case 2: bytes.remove(at: at)
        case 3: bytes.insert(contentsOf: tokens.randomElement(using: &generator)!, at: at)
        default: bytes = Array(bytes.prefix(at))
        }
    }
    return bytes
}

@Suite("Randomised inputs (bounded)", .heavyWork)
struct FuzzTests {
    @Test("mutated pages decode or fail with a reason; whatever decodes is shown harmlessly")
    func pageDecoder() throws {
        let seed = try seedPage()
        var generator = SplitMix64(state: 0xC41_C0FFEE)
        let presenter = Presenter(style: .script, sourceName: "fuzz")
        var decoded = 0
        for _ in 0..<400 {
            let bytes = mutate(seed, using: &generator)
            do {
                let page = try PageDecoder.decode(bytes)
                decoded += 1
                for recording in page.recordings {
                    if case .playable(.remote(let url)) = recording.audio {
                        #expect(url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://"))
                    }
                }
                for line in presenter.rows(page.recordings, from: 0) {
                    #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
                }
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        #expect(decoded > 0, "some mutations keep the page valid; otherwise this test shows nothing")
    }
}
