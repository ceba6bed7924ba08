import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// Seeks land on the sample asked for: for each kind of stream, 20 seeks to random times, some inside what
/// was fed (libmpg123's frame index) and some beyond it (a new request), each compared with `mpg123 -s`'s
/// decoding of the whole file, from the first sample after the seek to the last.
@Suite("Seeking to the sample: the decoding from a seek equals mpg123 -s's from the target on", .heavyWork)
struct SampleExactSeekTests {
    struct Kind: CustomTestStringConvertible, Sendable {
        var label: String
        var rate: Int
        var channels: Int
        var options: [String]
        /// Whether the landing is exact beyond what was fed (no VBR stream is: its TOC only places it near).
        var exactBeyond: Bool
        var testDescription: String { label }
    }

    static let kinds = [
        Kind(
            label: "CBR 128 kbit/s mono, LAME Info header", rate: 44100, channels: 1, options: ["-b", "128"],
            exactBeyond: true),
        Kind(
            label: "CBR 160 kbit/s joint stereo", rate: 44100, channels: 2, options: ["-b", "160"], exactBeyond: true),
        Kind(
            label: "CBR without any header", rate: 44100, channels: 1, options: ["-b", "128", "-t"], exactBeyond: true),
        Kind(label: "MPEG-2 22.05 kHz CBR", rate: 22050, channels: 1, options: ["-b", "48"], exactBeyond: true),
        Kind(label: "MPEG-2.5 11.025 kHz CBR", rate: 11025, channels: 1, options: ["-b", "24"], exactBeyond: true),
        Kind(label: "MPEG-2.5 8 kHz CBR stereo", rate: 8000, channels: 2, options: ["-b", "24"], exactBeyond: true),
        Kind(label: "VBR with a Xing TOC", rate: 44100, channels: 1, options: ["-V", "4"], exactBeyond: false),
        Kind(
            label: "VBR without any header", rate: 44100, channels: 1, options: ["-V", "4", "-t"], exactBeyond: false),
    ]

    static let seconds = 12.0

    /// A stepped tone whose steps also differ per channel: no stretch of it repeats, so a sequence that equals
    /// the reference from the target on can only start at the target.
    static func signal(_ kind: Kind) -> [Int16] {
        let mono = StudySignals.steppedTone(seconds: seconds, sampleRate: kind.rate)
        guard kind.channels == 2 else { return mono }
        return mono.enumerated().flatMap { index, value in
            [value, Int16(truncatingIfNeeded: (Int(value) * 3 / 4) ^ (index & 7))]
        }
    }

    /// Feeds `bytes[from..<to]` in pieces of random sizes (as the network hands them over).
    static func feed(
        _ decoder: StreamDecoder, _ bytes: [UInt8], from: Int, to end: Int? = nil, random: inout SeededRandom
    ) throws -> [Int16] {
        var samples: [Int16] = []
        var start = from
        let stop = end ?? bytes.count
        while start < stop {
            let piece = min(stop, start + Int.random(in: 1...20_000, using: &random))
            for item in try bytes[start..<piece].withUnsafeBytes({ try decoder.feed($0) }) {
                if case .samples(let more) = item { samples += more }
            }
            start = piece
        }
        return samples
    }

    /// How many frames after `target` the output really starts (negative: before), found by matching its first
    /// samples against the reference within ten MPEG frames either side. Samples may differ by one: after a
    /// seek libmpg123's synthesis starts its ring buffer elsewhere, and the float sums round differently.
    static func landing(of output: [Int16], in reference: [Int16], channels: Int, near target: Int) -> Int? {
        let probe = Array(output.prefix(4096 * channels))
        guard !probe.isEmpty else { return nil }
        return (0...46080).lazy.flatMap { [$0, -$0] }.first { offset in
            let start = (target + offset) * channels
            guard start >= 0, start + probe.count <= reference.count else { return false }
            return reference[start..<(start + probe.count)].elementsEqual(probe) { abs(Int($0) - Int($1)) <= 1 }
        }
    }

    /// What one seek gave.
    struct Outcome: Sendable {
        var what: String
        var target: Int
        /// The seek needed bytes that had not been fed (a new request, in the player).
        var beyond: Bool
        /// The stream was known to be CBR: by an Info header, or a second of frames at one rate.
        var knownCBR: Bool
        var point: StreamSeekPoint
        /// Frames from the target to where the output really starts (nil: nowhere near).
        var landing: Int?
        var outputFrames: Int
        /// The largest difference from the reference's samples from the target on (nil: lengths differ).
        var worst: Int?
        var finishError: String?
    }

    /// 20 seeks (or one to each of `targets`), each on a fresh decoder fed a random part of `mp3` first, in
    /// random pieces.
    static func seeks(_ kind: Kind, mp3: [UInt8], reference: [Int16], targets: [Int]? = nil) throws -> [Outcome] {
        let channels = kind.channels
        let total = reference.count / channels
        let frameLength = kind.rate >= 32000 ? 1152 : 576
        let hasInfoHeader = mp3.prefix(200).firstRange(of: Array("Info".utf8)) != nil
        var random = SeededRandom(seed: UInt64(kind.rate * 31 + kind.options.count))
        var outcomes: [Outcome] = []
        for round in 0..<(targets?.count ?? 20) {
            let drawn = Int.random(in: 0..<(total - 1), using: &random)
            let target = targets?[round] ?? drawn
            // Half the seeks go beyond what was fed, half inside it; some after only the first frames.
            let fraction = round % 5 == 0 ? 0.004 : Double.random(in: 0.02...0.98, using: &random)
            let decoder = StreamDecoder(expectedLength: Int64(mp3.count))
            // The player seeks once the format is known: feed on until the first samples.
            var fed = Int(Double(mp3.count) * fraction)
            var before = try feed(decoder, mp3, from: 0, to: fed, random: &random)
            while before.isEmpty && fed < mp3.count {
                before += try feed(decoder, mp3, from: fed, to: min(mp3.count, fed + 512), random: &random)
                fed = min(mp3.count, fed + 512)
            }
            guard let point = try decoder.seekMP3(toFrame: target) else { throw TestFailure("no MP3 decoder") }
            let output = try feed(decoder, mp3, from: Int(point.bodyOffset), random: &random)
            var finishError: String?
            do { _ = try decoder.finish() } catch { finishError = "\(error)" }
            let tail = reference[(target * channels)...]
            outcomes.append(
                Outcome(
                    what: "\(kind.label): seek \(round) to frame \(target) of \(total) after \(fed) bytes",
                    target: target,
                    beyond: point.bodyOffset >= Int64(fed),
                    // A stream without an Info header is taken for CBR once 38 frames (a second of MPEG-1) share
                    // a rate.
                    knownCBR: kind.exactBeyond && (hasInfoHeader || before.count / channels >= 38 * frameLength),
                    point: point,
                    landing: landing(of: output, in: reference, channels: channels, near: target),
                    outputFrames: output.count / channels,
                    worst: output.count == tail.count
                        ? zip(output, tail).map { abs(Int($0) - Int($1)) }.max() ?? 0 : nil,
                    finishError: finishError))
        }
        return outcomes
    }

    @Test(
        "seeks into the first frames land on the sample, in streams with and without a header to count from",
        .enabled(if: StudySignals.hasLame, StudySignals.noLame), arguments: [kinds[0], kinds[2], kinds[3], kinds[7]])
    func earlySeeks(kind: Kind) async throws {
        let (mp3, reference) = try await Self.encode(kind)
        let total = reference.count / kind.channels
        let frame = kind.rate >= 32000 ? 1152 : 576
        let targets = [0, 1, 300, 529, 1000, frame - 1, frame, frame + 700, 3 * frame + 5, 9 * frame, 17 * frame + 1]
        let outcomes = try await offThePool { try Self.seeks(kind, mp3: mp3, reference: reference, targets: targets) }
        for outcome in outcomes {
            let what = outcome.what
            // Inside what was fed, or anywhere in a CBR stream: exact (a VBR stream's guesses are covered above).
            guard outcome.point.accurate else {
                #expect(outcome.beyond && !outcome.knownCBR, "\(what): said it was an estimate")
                continue
            }
            #expect(outcome.point.frame == outcome.target, "\(what): said it landed at \(outcome.point.frame)")
            #expect(outcome.outputFrames == total - outcome.target, "\(what): \(outcome.outputFrames) frames out")
            #expect(
                outcome.worst.map { $0 <= 1 } ?? false,
                "\(what): a sample differs by \(outcome.worst.map(String.init) ?? "?"), landing \(String(describing: outcome.landing))"
            )
        }
    }

    /// `kind`'s signal encoded by lame, and mpg123 -s's decoding of it. The signal is made off the cooperative
    /// pool: made on it, the kinds' signals (seconds each in a debug build) held both of a two-core machine's
    /// pool threads for 15 s at the start of a test run, and the player's tests meanwhile timed out as stalled.
    static func encode(_ kind: Kind) async throws -> (mp3: [UInt8], reference: [Int16]) {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wav = try await offThePool {
            makeWAV(
                Self.signal(kind), encoding: .signed16, sampleRate: kind.rate, channels: kind.channels,
                extraChunks: false)
        }
        try Data(wav.bytes).write(to: URL(fileURLWithPath: directory + "/in.wav"))
        try await StreamFamily.run(
            "lame", ["--quiet"] + kind.options + [directory + "/in.wav", directory + "/out.mp3"])
        return (
            try StreamFamily.read(directory + "/out.mp3"), try await Fixtures.referenceDecode(directory + "/out.mp3")
        )
    }

    @Test(
        "20 seeks to random times, inside and beyond what was fed: the first sample is the target's, the tail the reference's",
        .enabled(if: StudySignals.hasLame, StudySignals.noLame), arguments: kinds)
    func randomSeeks(kind: Kind) async throws {
        let (mp3, reference) = try await Self.encode(kind)
        let total = reference.count / kind.channels
        let frameLength = kind.rate >= 32000 ? 1152 : 576
        let outcomes = try await offThePool { try Self.seeks(kind, mp3: mp3, reference: reference) }
        var errors: [Int] = []
        for outcome in outcomes {
            let what = outcome.what
            #expect(outcome.finishError == nil, "\(what): \(outcome.finishError ?? "")")
            if !outcome.beyond || outcome.knownCBR {
                #expect(outcome.point.accurate, "\(what): said it was an estimate")
            }
            if outcome.point.accurate {
                #expect(outcome.point.frame == outcome.target, "\(what): said it landed at \(outcome.point.frame)")
                #expect(
                    outcome.landing == 0,
                    "\(what): landed \(outcome.landing.map(String.init) ?? "nowhere near") frames off")
                #expect(
                    outcome.outputFrames == total - outcome.target,
                    "\(what): \(outcome.outputFrames) frames out, \(total - outcome.target) expected")
                #expect(
                    outcome.worst.map { $0 <= 1 } ?? false,
                    "\(what): a sample differs by \(outcome.worst.map(String.init) ?? "?")")
            } else {
                // A VBR stream without a header gives nothing to place a frame by but the mean frame size of
                // the first frames: no bound is promised, only that the position is said to be a guess.
                guard kind.label != "VBR without any header" else { continue }
                let landing = try #require(outcome.landing, "\(what): landed nowhere near")
                errors.append(landing)
                // Wherever it landed, it plays on to the recording's end, without the encoder's padding.
                #expect(outcome.outputFrames == total - outcome.target - landing, "\(what): the end moved")
            }
        }
        if !errors.isEmpty {
            print("\(kind.label): estimated landings off by \(errors) frames")
            // The TOC has one entry per 1 % of the recording, and libmpg123 reads straight lines between them:
            // a landing is within one step of the target (a whole MPEG frame early or late, as frames are).
            #expect(errors.allSatisfy { abs($0) <= total / 100 + frameLength }, "\(errors)")
        }
    }
}
