import ChirperAudio
import ChirperCore
import ChirperSystem
import ChirperTestSupport
import Foundation
import Testing

/// FLAC files damaged by the test, played through as `flac -F` plays them: a damaged frame is silence in its
/// place, every other frame is the file's own, and the outcome does not depend on how the bytes arrive.
@Suite(
    "Playing a damaged FLAC", .heavyWork, .enabled(if: ReferenceDecoders.available, ReferenceDecoders.missing))
struct FLACDamageTests {
    typealias Tools = ReferenceDecoders

    /// As the player feeds a download (16 KiB), as the scenarios feed (mixed), in small pieces, and whole.
    static let piecings = [[16 << 10], [4096, 7, 65536, 1000], [333], [1 << 20]]

    /// The stereo 44.1 kHz sweep the scenarios damage (frames of 4096), in a folder of its own that the caller
    /// removes: its bytes, its clean decoding and where each frame starts.
    struct Sweep {
        let folder: String
        let path: String
        let bytes: [UInt8]
        let whole: [Int16]
        let offsets: [Int]

        init(seconds: Double = 6) async throws {
            folder = try Fixtures.temporaryDirectory()
            path = try await FLACDecoderTests.makeFLAC(
                in: folder, rate: 44100, channels: 2, bits: 16, seconds: seconds)
            bytes = try Tools.bytes(path)
            whole = try Tools.decode(bytes).decoded.samples
            offsets = try await Tools.frameOffsets(path)
        }

        /// The bytes with `count` of them from `start` on XORed with 0x5A.
        func damaged(from start: Int, count: Int) -> [UInt8] {
            var damaged = bytes
            for index in start..<(start + count) { damaged[index] ^= 0x5A }
            return damaged
        }
    }

    @Test(
        "a damaged frame is silence in its place and every other frame plays exactly, whatever the damage and however the bytes arrive",
        arguments: [
            ("inside a frame's body", 36, 46, 3),
            ("a frame's header", 38, 0, 3),
            ("across the boundary of two frames", 38, -100, 200),
            ("three frames long", 20, 500, 9000),
            ("the first frame", 0, 10, 24),
        ])
    func damagedFrames(place: String, frame: Int, from: Int, length: Int) async throws {
        let sweep = try await Sweep()
        defer { try? FileManager.default.removeItem(atPath: sweep.folder) }
        let (whole, offsets) = (sweep.whole, sweep.offsets)
        let start = offsets[frame] + from
        let bytes = sweep.damaged(from: start, count: length)
        let touched = Set((0..<(offsets.count - 1)).filter { offsets[$0] < start + length && offsets[$0 + 1] > start })
        let block = 4096 * 2
        var first: [Int16]?
        for pieces in Self.piecings {
            let (decoded, decoder) = try Tools.decode(bytes, pieces: pieces)
            try #require(
                decoded.samples.count == whole.count, "\(place), pieces \(pieces): the frames keep their time")
            let lost = Set(
                stride(from: 0, to: whole.count, by: block).map { $0 / block }.filter { index in
                    let range = (index * block)..<min(whole.count, (index + 1) * block)
                    return decoded.samples[range] != whole[range]
                })
            #expect(lost == touched, "\(place), pieces \(pieces)")
            for index in lost {
                let range = (index * block)..<min(whole.count, (index + 1) * block)
                #expect(decoded.samples[range].allSatisfy { $0 == 0 })
            }
            if let first { #expect(decoded.samples == first, "\(place): pieces \(pieces) decode otherwise") }
            first = first ?? decoded.samples
            let damage = try #require(decoder.damage)
            #expect(damage.frames == touched.count, "\(place), pieces \(pieces): the frames played as silence")
            #expect(abs(damage.firstAt - Double(touched.min() ?? 0) * 4096 / 44100) < 0.01, "\(damage)")
            #expect(damage.notice.hasPrefix("this FLAC file has"))
        }
        // flac -F loses no frame that is played here. libFLAC 1.4.2 also silences the frame after a gap (its
        // silence is written into that frame's buffer; mended in 1.4.3), and keeps no time for a first frame lost.
        let damaged = "\(sweep.folder)/damaged.flac"
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let reference = try await Tools.flac16(damaged, throughErrors: true)
        if frame > 0, let first {
            try #require(reference.count == whole.count, "\(place): flac -F keeps the length")
            let alike = (0..<(whole.count / block)).filter { index in
                let range = (index * block)..<((index + 1) * block)
                return reference[range] == whole[range]
            }
            #expect(
                alike.allSatisfy {
                    first[($0 * block)..<(($0 + 1) * block)] == whole[($0 * block)..<(($0 + 1) * block)]
                })
        }
    }

    @Test(
        "a frame libFLAC abandons without a word (flac -F stops there) is silence in its place, and the frame after it plays"
    )
    func silentlyAbandonedFrame() async throws {
        let path = Fixtures.packageRoot + "/Tests/ChirperAudioTests/Fixtures/abandoned-frame.flac"
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let reference = try await Tools.flac16(path, throughErrors: true)
        #expect(reference.count == 4096 * 2, "flac -F decodes the first frame only")
        // Its three frames are the stream's frames 19 to 21 (cut from a longer one): each plays at its own time,
        // after 19 frames of silence where the stream's first frames would be.
        let block = 4096 * 2
        // Fed as the player feeds a file, 16 KiB at a time, and in small pieces.
        for pieces in [[16 << 10], [1000, 7]] {
            let (decoded, decoder) = try Tools.decode(bytes, pieces: pieces)
            let damage = try #require(decoder.damage)
            #expect(damage.frames >= 1)
            #expect(decoded.samples.count == 22 * block)
            #expect(decoded.samples.prefix(19 * block).allSatisfy { $0 == 0 })
            #expect(Array(decoded.samples[(19 * block)..<(20 * block)]) == reference)
            #expect(decoded.samples[(20 * block)..<(21 * block)].allSatisfy { $0 == 0 }, "the abandoned frame")
            #expect(decoded.samples.suffix(block).contains { $0 != 0 })
        }
    }
}

extension FLACDamageTests {
    @Test(
        "a frame cut out whole (no error from libFLAC) is silence in its place, the frame after it plays, and it is said"
    )
    func frameCutOut() async throws {
        let sweep = try await Sweep()
        defer { try? FileManager.default.removeItem(atPath: sweep.folder) }
        let (clean, whole, offsets) = (sweep.bytes, sweep.whole, sweep.offsets)
        let bytes = Array(clean[..<offsets[30]]) + Array(clean[offsets[31]...])
        let block = 4096 * 2
        for pieces in Self.piecings {
            let (decoded, decoder) = try Tools.decode(bytes, pieces: pieces)
            try #require(decoded.samples.count == whole.count, "pieces \(pieces): the frames keep their time")
            let cut = (30 * block)..<(31 * block)
            #expect(decoded.samples[cut].allSatisfy { $0 == 0 }, "pieces \(pieces)")
            #expect(decoded.samples[..<cut.lowerBound] == whole[..<cut.lowerBound], "pieces \(pieces)")
            #expect(decoded.samples[cut.upperBound...] == whole[cut.upperBound...], "pieces \(pieces): after the gap")
            let damage = try #require(decoder.damage, "pieces \(pieces)")
            #expect(abs(damage.firstAt - 30 * 4096 / 44100) < 0.01, "\(damage)")
        }
    }

    @Test("a stream that is garbage after its header, fed and never ended, is held in flat memory")
    func garbageIsNotHeld() async throws {
        let sweep = try await Sweep(seconds: 1)
        defer { try? FileManager.default.removeItem(atPath: sweep.folder) }
        let head = Array(sweep.bytes[..<sweep.offsets[1]])
        let decoder = StreamDecoder(channel: nil)
        _ = try decoder.feed(head)
        var generator = SeededGenerator(seed: 53)
        var most = 0
        for _ in 0..<(24 << 20) / (16 << 10) {
            let piece = (0..<(16 << 10)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try decoder.feed(piece)
            most = max(most, decoder.heldBytes)
        }
        #expect(most < 4 << 20, "\(most) bytes held of 24 MiB of garbage")
        #expect(decoder.damage != nil)
    }

    @Test("after a seek lands near the end of a frame, a damaged frame after it is a whole block of silence")
    func damageAfterASeek() async throws {
        let sweep = try await Sweep()
        defer { try? FileManager.default.removeItem(atPath: sweep.folder) }
        let (path, whole, offsets) = (sweep.path, sweep.whole, sweep.offsets)
        // Frame 21's header damaged; the seek lands 6 samples before the end of frame 20.
        let bytes = sweep.damaged(from: offsets[21], count: 3)
        let target = 21 * 4096 - 6
        let decoder = StreamDecoder(expectedLength: Int64(bytes.count))
        _ = try decoder.feed(Array(bytes.prefix(offsets[2])))
        let point = try #require(try decoder.seekFLAC(toFrame: target, localFile: path))
        #expect(point.frame == target)
        var after = Decoded()
        after.append(try decoder.feed(Array(bytes[Int(point.bodyOffset)...])))
        after.append(try decoder.finish())
        let expected = Array(whole[(target * 2)...])
        try #require(after.samples.count == expected.count, "the frames after the seek keep their time")
        #expect(after.samples[12..<(12 + 4096 * 2)].allSatisfy { $0 == 0 })
        #expect(after.samples[(12 + 4096 * 2)...] == expected[(12 + 4096 * 2)...])
    }
}

extension FLACDamageTests {
    @Test(
        "the damage is told as it is met, not with the next figures: a track that ends at once still says it, and damage in its last frames too",
        arguments: [30, 63])
    func damageIsToldAtOnce(frame: Int) async throws {
        let sweep = try await Sweep()
        defer { try? FileManager.default.removeItem(atPath: sweep.folder) }
        let damaged = sweep.damaged(from: sweep.offsets[frame] + 100, count: 24)
        let server = try await LoopbackServer.start { .file(damaged, contentType: "audio/flac", for: $0) }
        // The progress clock never moves: only what is news is published, and the null sink plays at once.
        let player = Player(sink: NullSink(), clocks: .unwatched(progress: ManualClock()))
        let updates = player.stateUpdates()
        player.play(PlayItem(label: "DAMAGED", location: .remote(server.baseURL + "/damaged.flac")))
        var told: FLACDamage?
        var played = false
        while let state = await updates.next() {
            if let damage = state.progress?.damage, state.isPlaying { told = damage }
            played = played || state.isPlaying
            if played, state.isIdle { break }
        }
        let damage = try #require(told, "no playing state told the damage")
        #expect(abs(damage.firstAt - Double(frame * 4096) / 44100) < 0.01, "\(damage)")
        #expect(damage.frames == 1)
        await player.shutdown()
        await server.shutdown()
    }
}
