import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

@testable import ChirperAudio

extension Sonogram {
    /// Why `other` is not this picture to within the rounding of a decoder (levels within 1 %, the contrast
    /// range within 0.05 dB); nil when it is.
    fileprivate func alike(_ other: Sonogram) -> String? {
        guard rows == other.rows, columns == other.columns, duration == other.duration,
            startTime == other.startTime, fftSize == other.fftSize, hop == other.hop
        else { return "another shape: \(columns)×\(rows) \(duration) s against \(other.columns)×\(other.rows)" }
        guard abs(floorDB - other.floorDB) < 0.05, abs(ceilingDB - other.ceilingDB) < 0.05 else {
            return "another range: \(floorDB)…\(ceilingDB) dB against \(other.floorDB)…\(other.ceilingDB)"
        }
        let worst = zip(levels, other.levels).map { abs($0 - $1) }.max() ?? 0
        return worst <= 0.01 ? nil : "a level differs by \(worst)"
    }
}

/// Long recordings generated with sox and lame into a temporary folder.
private enum LongFixtures {
    static let hasTools = PulseHarness.executable(named: "sox") != nil && PulseHarness.executable(named: "lame") != nil
    static let noTools: Comment = "skipped: sox and lame (to generate the long fixtures) are not installed"

    /// The kinds of stream: sox's synth effects (one per channel), rate, channels and lame's options. The last
    /// has no Info header (lame writes none in a frame of 144 bytes): its length is an estimate, so it is not split.
    typealias Kind = (name: String, synth: String, rate: Int, channels: Int, lame: String)

    static let kinds: [Kind] = [
        (
            "CBR 128, 44.1 kHz stereo, sweep and pink noise", "synth 150 sine 200-12000 pinknoise vol 0.4", 44_100, 2,
            "-b 128"
        ),
        ("CBR 64, MPEG-2 22.05 kHz mono, sweep", "synth 130 sine 300-9000 vol 0.5", 22_050, 1, "-b 64"),
        ("CBR 96, 48 kHz mono, sweep", "synth 100 sine 200-12000 vol 0.4", 48_000, 1, "-b 96"),
        (
            "CBR 64, MPEG-2 24 kHz stereo, two sweeps", "synth 100 sine 200-11000 sine 300-9000 vol 0.4", 24_000, 2,
            "-b 64 -m s"
        ),
        ("CBR 16, MPEG-2.5 8 kHz mono, sweep", "synth 200 sine 100-3900 vol 0.5", 8000, 1, "-b 16"),
    ]

    static let vbr: Kind = ("VBR, 44.1 kHz stereo", "synth 130 sine 200-12000 pinknoise vol 0.4", 44_100, 2, "-V 5")

    /// `body` given the path of a file of `kind`, made in a temporary folder that is removed after it.
    static func withFile<T>(_ kind: Kind, _ body: (String) async throws -> T) async throws -> T {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wav = directory + "/long.wav"
        let path = directory + "/long.mp3"
        for command in [
            "sox -q -D -r \(kind.rate) -c \(kind.channels) -n -b 16 \(wav) \(kind.synth)",
            "lame --quiet \(kind.lame) \(wav) \(path)",
        ] {
            guard try await Tool.shell(command).status == 0 else { throw TestFailure("failed: \(command)") }
        }
        return try await body(path)
    }

    /// The whole file decoded in one piece, mixed to mono, as the sonogram decodes it.
    static func wholeDecoding(_ bytes: [UInt8]) throws -> [Int16] {
        let decoder = StreamDecoder(expectedLength: Int64(bytes.count), mixToMono: true)
        return samples(try decoder.feed(bytes) + decoder.finish())
    }

    static func samples(_ outputs: [DecodedAudio]) -> [Int16] {
        outputs.flatMap { output -> [Int16] in
            if case .samples(let samples) = output { return samples }
            return []
        }
    }

    /// WAV files as recorders write them: sox's synth effects, rate, channels, and sox's sample options.
    typealias WAVKind = (name: String, synth: String, rate: Int, channels: Int, samples: String)

    static let wavKinds: [WAVKind] = [
        ("16-bit 48 kHz mono, sweep and pink noise", "synth 95 sine 200-12000 pinknoise vol 0.4", 48_000, 1, "-b 16"),
        ("24-bit 44.1 kHz stereo, two sweeps", "synth 80 sine 200-11000 sine 300-9000 vol 0.4", 44_100, 2, "-b 24"),
        ("32-bit float 48 kHz stereo, sweep", "synth 85 sine 2000-20000 vol 0.5", 48_000, 2, "-e float -b 32"),
        ("16-bit 22.05 kHz, 4 channels (the first drawn)", "synth 85 sine 300-10000 vol 0.5", 22_050, 4, "-b 16"),
        ("8-bit 8 kHz mono, an odd number of bytes", "synth 85.0001 sine 100-3900 vol 0.5", 8000, 1, "-b 8"),
    ]

    /// `body` given the path of a WAV file of `kind`, with a `LIST` chunk after its audio, as recorders append
    /// one; made in a temporary folder that is removed after it.
    static func withWAV<T>(_ kind: WAVKind, _ body: (String) async throws -> T) async throws -> T {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plain = directory + "/plain.wav"
        let command = "sox -q -D -r \(kind.rate) -c \(kind.channels) -n \(kind.samples) \(plain) \(kind.synth)"
        guard try await Tool.shell(command).status == 0 else { throw TestFailure("failed: \(command)") }
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: plain)))
        if bytes.count % 2 == 1 { bytes.append(0) }  // the pad byte of an odd data chunk
        let list = Array("INFOICMT".utf8) + [6, 0, 0, 0] + Array("field".utf8) + [0]
        bytes += Array("LIST".utf8) + [UInt8(list.count), 0, 0, 0] + list
        let riff = bytes.count - 8
        bytes.replaceSubrange(4..<8, with: (0..<4).map { UInt8(truncatingIfNeeded: riff >> (8 * $0)) })
        let path = directory + "/long.wav"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try await body(path)
    }

    /// The pictures to compare: the whole recording, and a zoomed window and band.
    static let shapes = [
        SonogramShape(columns: 72, rows: 16),
        SonogramShape(
            columns: 300, rows: 120, maxFrequency: 9000, minFrequency: 2000, window: TimeSpan(start: 20, end: 110)),
    ]
}

// Serialized: each case decodes minutes of audio on several threads at once, and a run of them together held the
// machine from the player tests beside them for 20 s.
@Suite(
    "A long recording decoded in parallel pieces", .serialized, .heavyWork,
    .enabled(if: LongFixtures.hasTools, LongFixtures.noTools))
struct SonogramPiecesTests {
    @Test(
        "pieces that start anywhere (inside a frame, at a frame, after the head) join into the whole decoding, every sample in place (within one step)",
        arguments: LongFixtures.kinds.indices)
    func joinedPiecesEqualTheWhole(kind: Int) async throws {
        let bytes = try await LongFixtures.withFile(LongFixtures.kinds[kind]) { path in
            try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        }
        // Decoded off the cooperative pool: minutes of audio in a debug build.
        let (whole, joined, short) = try await offThePool { () -> ([Int16], [Int16], [Int]) in
            let whole = try LongFixtures.wholeDecoding(bytes)
            let head = Array(bytes.prefix(SonogramPieces.headBytes))
            var random = SeededGenerator(seed: UInt64(kind) + 31)
            let chosen =
                [1, 575, 576, 1151, 1152, 1153, 20_000]
                + (0..<9).map { _ in Int.random(in: 30_000..<whole.count, using: &random) }
            let starts = [0] + Set(chosen).sorted()
            var joined: [Int16] = []
            var short: [Int] = []
            for (index, start) in starts.enumerated() {
                let end = index + 1 < starts.count ? starts[index + 1] : whole.count
                let decoder = try SonogramPieces.decoder(head: head, fileLength: Int64(bytes.count), from: start)
                var piece: [Int16] = []
                var at = Int(decoder.offset)
                while piece.count < end - start, at < bytes.count {
                    let chunk = Array(bytes[at..<min(bytes.count, at + 8192)])
                    piece += try decoder.feed(chunk).joined()
                    at += chunk.count
                }
                if piece.count < end - start { piece += try decoder.finish().joined() }
                if piece.count < end - start { short.append(start) }
                joined += piece.prefix(end - start)
            }
            return (whole, joined, short)
        }
        #expect(short.isEmpty, "pieces from \(short) end early")
        // Every sample in place, within one step of libmpg123's rounding (see `SonogramPieces.decoder`).
        #expect(joined.count == whole.count)
        let differing = joined.indices.filter { $0 < whole.count && joined[$0] != whole[$0] }
        let largest = differing.map { abs(Int(joined[$0]) - Int(whole[$0])) }.max() ?? 0
        #expect(largest <= 1, "a sample differs by \(largest)")
        #expect(differing.count * 1000 <= whole.count, "\(differing.count) of \(whole.count) samples differ")
    }

    @Test(
        "the sonogram drawn from parallel pieces is the one drawn in one piece (whole, and a zoomed window)",
        arguments: LongFixtures.kinds.indices)
    func piecesDrawTheSamePicture(kind: Int) async throws {
        try await LongFixtures.withFile(LongFixtures.kinds[kind]) { path in
            try await expectSamePictures(path: path, split: kind < LongFixtures.kinds.count - 1)
        }
    }

    @Test(
        "a WAV is drawn from parallel pieces, the picture drawn in one piece to the bit (whole, and a zoomed window)",
        arguments: LongFixtures.wavKinds.indices)
    func wavPiecesDrawTheSamePicture(kind: Int) async throws {
        try await LongFixtures.withWAV(LongFixtures.wavKinds[kind]) { path in
            try await expectSamePictures(path: path, split: true, exactly: true)
        }
    }

    @Test("a WAV whose data chunk claims more than the file holds is not split, and its picture is the one-piece one")
    func truncatedWAVIsNotSplit() async throws {
        try await LongFixtures.withWAV(LongFixtures.wavKinds[0]) { path in
            let whole = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            try Data(whole.prefix(whole.count * 3 / 4)).write(to: URL(fileURLWithPath: path))
            try await expectSamePictures(path: path, split: false, exactly: true)
        }
    }

    @Test("cancelled while its pieces decode, the sonogram stops with CancellationError")
    func cancelled() async throws {
        try await LongFixtures.withFile(LongFixtures.kinds[0]) { path in
            let pieces = SonogramPieces(
                path: path, shape: LongFixtures.shapes[0], pieces: 4, makeTransform: { try RealFFT(size: $0) })
            let drawing = Task { try await pieces.sonogram() }
            drawing.cancel()
            await #expect(throws: CancellationError.self) { _ = try await drawing.value }
        }
    }

    @Test("a VBR recording is not split (its seeks land on estimates), and its picture is the one-piece one")
    func variableBitRateIsNotSplit() async throws {
        try await LongFixtures.withFile(LongFixtures.vbr) { path in
            try await expectSamePictures(path: path, split: false)
        }
    }

    @Test(
        "a real recording (XC34430, 1:09, CBR) is drawn from two pieces, the same picture",
        .enabled(if: Fixtures.named("XC34430") != nil, Fixtures.noRecordings))
    func realRecording() async throws {
        let window = SonogramShape(
            columns: 200, rows: 80, maxFrequency: 9000, minFrequency: 2000, window: TimeSpan(start: 5, end: 66))
        try await expectSamePictures(
            path: Fixtures.path(Fixtures.named("XC34430") ?? ""), split: true, shapes: [LongFixtures.shapes[0], window])
    }

    /// Each shape drawn in one piece and in up to four, by the reader the REPL uses.
    /// `exactly`: the pictures are equal to the bit (a WAV's pieces decode the very samples the whole decoding
    /// does), not only alike to within a decoder's rounding.
    private func expectSamePictures(
        path: String, split: Bool, exactly: Bool = false, shapes: [SonogramShape] = LongFixtures.shapes
    ) async throws {
        let sources = ByteSources { _ in FileByteSource(path: path) }
        let item = PlayItem(label: "T", location: .local(path: path))
        for shape in shapes {
            let one = try await SonogramReader(sources: sources, pieces: 1).sonogram(of: item, shape: shape)
            let pieces = SonogramPieces(
                path: path, shape: shape, pieces: 4, makeTransform: { try RealFFT(size: $0) })
            let drawn = try await pieces.sonogram()
            #expect((drawn != nil) == split, "split: \(drawn != nil)")
            let viaReader = try await SonogramReader(sources: sources, pieces: 4).sonogram(of: item, shape: shape)
            for picture in [viaReader] + (drawn.map { [$0] } ?? []) {
                let same = picture.alike(one)
                #expect(same == nil, "\(same ?? "")")
                if exactly { #expect(picture == one, "not the one-piece picture to the bit") }
            }
        }
    }
}
