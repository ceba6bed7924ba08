import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// Streams from outside this project, built at run time with lame, twolame, sox and byte surgery: chirper-play's
/// decode of each (through `StreamDecoder`, the player's path, in several chunkings) equals `mpg123 -s` of the
/// same bytes, sample for sample and in length, or fails with one clear line where mpg123 fails too.
enum StreamFamily {
    static let hasTools = StudySignals.hasLame && Fixtures.hasMPG123
    static let noTools: Comment = "skipped: lame and mpg123 (to build and check the fixtures) are not installed"

    /// The chunkings every fixture is fed in: whole, a byte at a time, odd sizes, random sizes.
    static let chunkings: [[Int]] = [[Int.max], [1], [7], [4093], randomSizes(count: 200, upTo: 3000, seed: 5)]

    /// Runs `tool` (found on PATH) with `arguments`; fails the test if it does not exit 0.
    static func run(_ tool: String, _ arguments: [String]) async throws {
        guard let path = PulseHarness.executable(named: tool) else { throw TestFailure("\(tool) missing") }
        guard try await Tool.run(path, arguments).status == 0 else { throw TestFailure("\(tool) \(arguments) failed") }
    }

    /// A tone (mono) or two tones (stereo, a different one per channel) as a 16-bit WAV file in `directory`.
    static func toneWAV(
        in directory: String, name: String, frequency: Double, seconds: Double, sampleRate: Int, channels: Int
    ) throws -> String {
        let frames = Int(seconds * Double(sampleRate))
        var samples: [Int16] = []
        samples.reserveCapacity(frames * channels)
        for frame in 0..<frames {
            for channel in 0..<channels {
                let f = frequency * (1 + 0.5 * Double(channel))
                samples.append(Int16((sin(2 * .pi * f * Double(frame) / Double(sampleRate)) * 12000).rounded()))
            }
        }
        let path = "\(directory)/\(name).wav"
        let wav = makeWAV(samples, encoding: .signed16, sampleRate: sampleRate, channels: channels, extraChunks: false)
        try Data(wav.bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// An MP3 made by lame from a generated tone with `options` (e.g. `-m m -b 64`).
    static func mp3(
        in directory: String, name: String, frequency: Double = 440, seconds: Double = 1, sampleRate: Int,
        channels: Int, options: [String]
    ) async throws -> [UInt8] {
        // Made off the cooperative pool: a second of samples, byte by byte, in a debug build.
        let wav = try await offThePool {
            try toneWAV(
                in: directory, name: name, frequency: frequency, seconds: seconds, sampleRate: sampleRate,
                channels: channels)
        }
        let out = "\(directory)/\(name).mp3"
        try await run("lame", ["--quiet"] + options + [wav, out])
        return try read(out)
    }

    /// A rate as lame's `--resample` takes it: 22050 → "22.05".
    static func kilohertz(_ rate: Int) -> String {
        rate % 1000 == 0 ? "\(rate / 1000)" : "\(Double(rate) / 1000)"
    }

    /// The line for a body that holds no MPEG frame in the first 64 KiB.
    static func noFrameLine(_ bytes: [UInt8]) -> String {
        let hex = bytes.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " ")
        return
            "unsupported audio format: bytes \(hex), and no MPEG audio frame in the first 64 KiB (not MP3, WAV or FLAC)"
    }

    static func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes `bytes` to `directory/name` and returns the path.
    static func write(_ bytes: [UInt8], in directory: String, name: String) throws -> String {
        let path = "\(directory)/\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Decodes `bytes` in every chunking: each gives the same formats and samples; returns the whole decode.
    static func decodeAllChunkings(_ bytes: [UInt8], _ label: String) async throws -> Decoded {
        let whole = try await decode(bytes, chunkSizes: [bytes.count])
        for sizes in chunkings.dropFirst() {
            let chunked = try await decode(bytes, chunkSizes: sizes)
            #expect(chunked.formats == whole.formats, "\(label): formats differ with chunk sizes \(sizes.prefix(2))")
            #expect(chunked.samples == whole.samples, "\(label): samples differ with chunk sizes \(sizes.prefix(2))")
        }
        return whole
    }

    /// The one line a decode fails with, the same in every chunking; nil if it does not fail.
    static func failureLine(_ bytes: [UInt8]) async -> String? {
        var lines: Set<String?> = []
        for sizes in chunkings {
            do {
                _ = try await decode(bytes, chunkSizes: sizes)
                lines.insert(nil)
            } catch {
                lines.insert(userMessage(for: error))
            }
        }
        #expect(lines.count == 1, "the verdict depends on the chunking: \(lines)")
        return lines.first ?? nil
    }

    /// Whether `mpg123 -s` refuses the file (exits non-zero or decodes nothing).
    static func mpg123Refuses(_ path: String) async -> Bool {
        guard let samples = try? await Fixtures.referenceDecode(path) else { return true }
        return samples.isEmpty
    }

    /// Records the first difference between two decodes, and their lengths if they differ.
    static func expectEqual(_ ours: [Int16], _ reference: [Int16], _ label: String) {
        #expect(ours.count == reference.count, "\(label): \(ours.count) samples, mpg123 \(reference.count)")
        let common = min(ours.count, reference.count)
        if let first = (0..<common).first(where: { ours[$0] != reference[$0] }) {
            Issue.record("\(label): first difference at sample \(first): \(ours[first]) vs \(reference[first])")
        }
    }
}

@Suite("Streams mpg123 plays: junk before the first frame", .heavyWork, .serialized)
struct ResyncTests {
    @Test(
        "zero padding, junk, text and broken tags before the first frame play as mpg123 plays them",
        .enabled(if: StreamFamily.hasTools, StreamFamily.noTools)
    )
    func junkBeforeFirstFrame() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let audio = try await StreamFamily.mp3(
            in: directory, name: "tone", seconds: 1.5, sampleRate: 44100, channels: 1, options: ["-b", "96"])
        let brokenSize = Array("ID3".utf8) + [3, 0, 0, 0x80, 0x81, 0x82, 0x83]  // size bytes not synchsafe
        let shortTag = Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, 20] + [UInt8](repeating: 0x41, count: 400)
        let cases: [(String, [UInt8])] = [
            ("1 zero byte", [0]),
            ("4 KiB of zeros", [UInt8](repeating: 0, count: 4096)),
            ("65,535 zeros (the most mpg123 skips)", [UInt8](repeating: 0, count: AudioSniffer.resyncLimit - 1)),
            ("random junk", randomBytes(3001, seed: 99)),
            ("text", Array(String(repeating: "not an mp3 header\n", count: 50).utf8)),
            ("a tag whose size is not synchsafe", brokenSize + [UInt8](repeating: 7, count: 300)),
            ("a tag shorter than it claims", shortTag),
            ("an ID3v1-style TAG block", Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)),
        ]
        for (label, junk) in cases {
            let bytes = junk + audio
            let path = try StreamFamily.write(bytes, in: directory, name: "junk.mp3")
            let reference = try await Fixtures.referenceDecode(path)
            #expect(!reference.isEmpty, "\(label): mpg123 plays it")
            let ours = try await StreamFamily.decodeAllChunkings(bytes, label)
            #expect(ours.formats == [PCMFormat(sampleRate: 44100, channels: 1)], "\(label)")
            StreamFamily.expectEqual(ours.samples, reference, label)
        }
    }

    @Test(
        "past 64 KiB of junk, or with no frames at all, it fails with one clear line, where mpg123 fails too",
        .enabled(if: StreamFamily.hasTools, StreamFamily.noTools)
    )
    func givesUpPastTheBound() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let audio = try await StreamFamily.mp3(
            in: directory, name: "tone", seconds: 1, sampleRate: 44100, channels: 1, options: ["-b", "96"])
        let cases: [(String, [UInt8])] = [
            ("65,536 zeros before the audio", [UInt8](repeating: 0, count: AudioSniffer.resyncLimit) + audio),
            ("100 KB of random bytes", randomBytes(100_000, seed: 2026)),
        ]
        for (label, bytes) in cases {
            let path = try StreamFamily.write(bytes, in: directory, name: "junk.mp3")
            #expect(await StreamFamily.mpg123Refuses(path), "\(label): mpg123 refuses it too")
            #expect(await StreamFamily.failureLine(bytes) == StreamFamily.noFrameLine(bytes), "\(label)")
        }
    }

    @Test("16-bit PCM and random bytes without a header do not pass for MPEG frames")
    func noFalseSyncInPCM() async throws {
        // Quiet noise around zero: full of 0xFF bytes (small negative samples), the classic false sync.
        var generator = SeededGenerator(seed: 4)
        var pcm: [UInt8] = []
        for _ in 0..<60000 {
            let sample = Int16.random(in: -300...300, using: &generator)
            pcm += le(UInt32(UInt16(bitPattern: sample)), bytes: 2)
        }
        let signal = chirpSignal(frames: 40000, sampleRate: 44100, channels: 2)
        let wav = makeWAV(signal, encoding: .signed16, sampleRate: 44100, channels: 2, extraChunks: false).bytes
        for (label, bytes) in [("noise PCM", pcm), ("a WAV without its RIFF header", Array(wav.dropFirst(44)))] {
            let line = await StreamFamily.failureLine(bytes)
            #expect(
                line?.hasPrefix("unsupported audio format: bytes ") == true, "\(label): \(String(describing: line))")
        }
    }
}

@Suite("Streams mpg123 plays: the format changes mid-stream", .heavyWork, .serialized)
struct FormatChangeTests {
    /// Two pieces joined: (name, rate, channels, lame options) each.
    struct Joint: Sendable, CustomStringConvertible {
        var parts: [(rate: Int, channels: Int, options: [String])]
        var description: String { parts.map { "\($0.rate) Hz \($0.channels) ch" }.joined(separator: " + ") }
    }

    static let joints: [Joint] = [
        Joint(parts: [(44100, 1, ["-m", "m", "-b", "96"]), (44100, 2, ["-m", "j", "-b", "128"])]),
        Joint(parts: [(44100, 2, ["-m", "s", "-b", "128"]), (44100, 1, ["-m", "m", "-b", "64"])]),
        Joint(parts: [(44100, 1, ["-m", "m", "-b", "96"]), (22050, 1, ["-m", "m", "-b", "48"])]),
        Joint(parts: [(22050, 2, ["-m", "j", "-b", "64"]), (48000, 1, ["-m", "m", "-b", "96"])]),
        Joint(parts: [
            (16000, 1, ["-m", "m", "-b", "32"]), (16000, 2, ["-m", "j", "-b", "48"]),
            (8000, 1, ["-m", "m", "-b", "16"]),
        ]),
    ]

    @Test(
        "joined streams play to the end in the first part's format, as mpg123 -s forced to that format",
        .enabled(if: StreamFamily.hasTools, StreamFamily.noTools),
        arguments: joints
    )
    func oneFormatForTheWholeTrack(joint: Joint) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var bytes: [UInt8] = []
        var seconds = 0.0
        for (index, part) in joint.parts.enumerated() {
            // `-t`: no Info frame, as in files joined with cat.
            bytes += try await StreamFamily.mp3(
                in: directory, name: "part\(index)", frequency: 300 + 200 * Double(index), seconds: 1,
                sampleRate: part.rate, channels: part.channels,
                options: ["-t", "--resample", StreamFamily.kilohertz(part.rate)]
                    + part.options)
            seconds += 1
        }
        let path = try StreamFamily.write(bytes, in: directory, name: "joined.mp3")
        let first = joint.parts[0]
        let ours = try await StreamFamily.decodeAllChunkings(bytes, joint.description)
        #expect(ours.formats == [PCMFormat(sampleRate: first.rate, channels: first.channels)])
        let forced = try await Fixtures.referenceDecode(
            path,
            options: ["-r", "\(first.rate)", "--resample", "NtoM", first.channels == 1 ? "--mono" : "--stereo"])
        StreamFamily.expectEqual(ours.samples, forced, "\(joint) against mpg123 -s forced to the first format")
        // To the end: every part is there, at the first part's rate (within a few frames of padding).
        let played = PCMFormat(sampleRate: first.rate, channels: first.channels).seconds(ofSamples: ours.samples.count)
        // Each part without gapless information carries the encoder's delay and padding (up to 0.15 s at 8 kHz).
        let slack = 0.15 * Double(joint.parts.count)
        #expect(played >= seconds && played < seconds + slack, "\(joint): \(played) s of \(seconds) s")
    }
}

/// MPEG audio from other encoders and in every variant mpg123 plays, each a single format.
enum MPEGFamily {
    /// One fixture: how to build it, and a label.
    struct Fixture: Sendable, CustomStringConvertible {
        var description: String
        var rate: Int
        var channels: Int
        var build: @Sendable (_ directory: String) async throws -> [UInt8]
    }

    static let hasTwolame = PulseHarness.executable(named: "twolame") != nil

    /// Layer III by lame at `rate` (MPEG-1, 2 or 2.5 by the rate), `options` added.
    static func lame(_ label: String, rate: Int, channels: Int, _ options: [String]) -> Fixture {
        Fixture(description: label, rate: rate, channels: channels) { directory in
            try await StreamFamily.mp3(
                in: directory, name: "lame", sampleRate: rate, channels: channels,
                options: ["--resample", StreamFamily.kilohertz(rate), "-m", channels == 1 ? "m" : "j"] + options)
        }
    }

    /// Layer II by twolame at `rate` (MPEG-1 at 32–48 kHz, MPEG-2 at 16–24 kHz).
    static func twolame(_ label: String, rate: Int, channels: Int, kbps: Int) -> Fixture {
        Fixture(description: label, rate: rate, channels: channels) { directory in
            let wav = try StreamFamily.toneWAV(
                in: directory, name: "tone", frequency: 440, seconds: 1, sampleRate: rate, channels: channels)
            let out = directory + "/layer2.mp3"
            try await StreamFamily.run(
                "twolame", ["--quiet", "-b", "\(kbps)", "-m", channels == 1 ? "m" : "j", wav, out])
            return try StreamFamily.read(out)
        }
    }

    /// Layer I: no encoder in Debian writes it, so the frames are built here (random allocations, scale
    /// factors and samples in the low subbands: a valid bitstream that decodes to noise).
    static func layerOne(_ label: String, rateIndex: Int, channels: Int, frames: Int) -> Fixture {
        let rate = [44100, 48000, 32000][rateIndex]
        return Fixture(description: label, rate: rate, channels: channels) { _ in
            layerOneFrames(rateIndex: rateIndex, channels: channels, frames: frames)
        }
    }

    static func layerOneFrames(rateIndex: Int, channels: Int, frames: Int) -> [UInt8] {
        var generator = SeededGenerator(seed: 1)
        let rate = [44100, 48000, 32000][rateIndex]
        let bitrateIndex = 8  // 256 kb/s
        let frameSize = (12 * 256_000 / rate) * 4
        var bytes: [UInt8] = []
        for _ in 0..<frames {
            var bits = BitWriter()
            bits.put(0xFFF, 12)
            bits.put(1, 1)  // MPEG-1
            bits.put(3, 2)  // Layer I
            bits.put(1, 1)  // no CRC
            bits.put(UInt32(bitrateIndex), 4)
            bits.put(UInt32(rateIndex), 2)
            bits.put(0, 2)  // no padding, private bit
            bits.put(channels == 1 ? 3 : 0, 2)  // mono or stereo
            bits.put(0, 6)  // mode extension, copyright, original, emphasis
            var allocation = [[Int]](repeating: [Int](repeating: 0, count: 32), count: channels)
            for subband in 0..<32 {
                for channel in 0..<channels {
                    allocation[channel][subband] = subband < 8 ? Int.random(in: 1...5, using: &generator) : 0
                    bits.put(UInt32(allocation[channel][subband]), 4)
                }
            }
            for subband in 0..<32 {
                for channel in 0..<channels where allocation[channel][subband] > 0 {
                    bits.put(UInt32.random(in: 8...40, using: &generator), 6)
                }
            }
            for _ in 0..<12 {
                for subband in 0..<32 {
                    for channel in 0..<channels where allocation[channel][subband] > 0 {
                        let width = allocation[channel][subband] + 1
                        // A sample of all ones is forbidden in Layer I.
                        bits.put(UInt32.random(in: 0..<(1 << width) - 1, using: &generator), width)
                    }
                }
            }
            var frame = bits.bytes
            frame += [UInt8](repeating: 0, count: frameSize - frame.count)
            bytes += frame
        }
        return bytes
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        private var used = 0

        mutating func put(_ value: UInt32, _ width: Int) {
            for shift in stride(from: width - 1, through: 0, by: -1) {
                if used % 8 == 0 { bytes.append(0) }
                if (value >> UInt32(shift)) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(used % 8) }
                used += 1
            }
        }
    }

    static let fixtures: [Fixture] = {
        var list: [Fixture] = []
        // Every rate of MPEG-1 (32, 44.1, 48 kHz), MPEG-2 (16, 22.05, 24) and MPEG-2.5 (8, 11.025, 12).
        for (index, rate) in [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000].enumerated() {
            let channels = index % 2 == 0 ? 1 : 2
            list.append(lame("Layer III \(rate) Hz \(channels) ch", rate: rate, channels: channels, ["-b", "32"]))
        }
        list.append(lame("Layer III VBR 44100 Hz 2 ch", rate: 44100, channels: 2, ["-V", "4"]))
        list.append(lame("CRC-protected 44100 Hz 2 ch", rate: 44100, channels: 2, ["-p", "-b", "128"]))
        list.append(lame("CRC-protected 22050 Hz 1 ch", rate: 22050, channels: 1, ["-p", "-b", "32"]))
        list.append(lame("CRC-protected 8000 Hz 1 ch", rate: 8000, channels: 1, ["-p", "-b", "16"]))
        list.append(
            lame("free format 320 kb/s 44100 Hz 2 ch", rate: 44100, channels: 2, ["--freeformat", "-b", "320"]))
        list.append(
            lame("free format 400 kb/s 48000 Hz 2 ch", rate: 48000, channels: 2, ["--freeformat", "-b", "400"]))
        list.append(lame("free format 40 kb/s 16000 Hz 1 ch", rate: 16000, channels: 1, ["--freeformat", "-b", "40"]))
        list.append(layerOne("Layer I 44100 Hz 1 ch (built here)", rateIndex: 0, channels: 1, frames: 120))
        list.append(layerOne("Layer I 32000 Hz 2 ch (built here)", rateIndex: 2, channels: 2, frames: 90))
        return list
    }()

    static let layerTwoFixtures: [Fixture] = [
        twolame("Layer II 48000 Hz 2 ch", rate: 48000, channels: 2, kbps: 192),
        twolame("Layer II 44100 Hz 1 ch", rate: 44100, channels: 1, kbps: 96),
        twolame("Layer II 32000 Hz 2 ch", rate: 32000, channels: 2, kbps: 128),
        twolame("Layer II 24000 Hz 1 ch", rate: 24000, channels: 1, kbps: 64),
        twolame("Layer II 22050 Hz 2 ch", rate: 22050, channels: 2, kbps: 96),
        twolame("Layer II 16000 Hz 1 ch", rate: 16000, channels: 1, kbps: 32),
    ]

    /// Decodes `bytes` (as served, named .mp3) and compares with `mpg123 -s` of the same bytes.
    static func expectAsMPG123(_ fixture: Fixture, bytes: [UInt8], directory: String, label: String) async throws {
        let path = try StreamFamily.write(bytes, in: directory, name: "served.mp3")
        let reference = try await Fixtures.referenceDecode(path)
        #expect(!reference.isEmpty, "\(label): mpg123 plays it")
        let ours = try await StreamFamily.decodeAllChunkings(bytes, label)
        #expect(ours.formats == [PCMFormat(sampleRate: fixture.rate, channels: fixture.channels)], "\(label)")
        StreamFamily.expectEqual(ours.samples, reference, label)
    }
}

@Suite("Streams mpg123 plays: the MPEG family", .heavyWork, .serialized)
struct MPEGFamilyTests {
    @Test(
        "every MPEG version and rate, VBR, CRC-protected, free-format and Layer I streams decode as mpg123 -s",
        .enabled(if: StreamFamily.hasTools, StreamFamily.noTools),
        arguments: MPEGFamily.fixtures
    )
    func decodesAsMPG123(fixture: MPEGFamily.Fixture) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = try await fixture.build(directory)
        try await MPEGFamily.expectAsMPG123(fixture, bytes: bytes, directory: directory, label: fixture.description)
        // The same stream behind junk: the sniffer finds its first frame (free format and Layer I included).
        let junk = randomBytes(777, seed: 13) + [UInt8](repeating: 0, count: 100)
        try await MPEGFamily.expectAsMPG123(
            fixture, bytes: junk + bytes, directory: directory, label: fixture.description + " behind junk")
    }

    @Test(
        "Layer II files served as .mp3 (MPEG-1 and MPEG-2 rates) decode as mpg123 -s",
        .enabled(if: StreamFamily.hasTools && MPEGFamily.hasTwolame, "skipped: twolame, lame or mpg123 missing"),
        arguments: MPEGFamily.layerTwoFixtures
    )
    func layerTwo(fixture: MPEGFamily.Fixture) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = try await fixture.build(directory)
        try await MPEGFamily.expectAsMPG123(fixture, bytes: bytes, directory: directory, label: fixture.description)
        let junk = [UInt8](repeating: 0, count: 1000)
        try await MPEGFamily.expectAsMPG123(
            fixture, bytes: junk + bytes, directory: directory, label: fixture.description + " behind zeros")
    }
}

/// WAV files as other programs write them, checked against sox.
enum WAVFamily {
    static let hasSox = PulseHarness.executable(named: "sox") != nil
    static let noSox: Comment = "skipped: sox (the reference WAV reader) is not installed"

    /// `sox -D FILE -t raw -e signed-integer -b 16 -L -`: the file as 16-bit samples, without dither (sox rounds
    /// deeper samples); nil when sox refuses the file.
    static func soxDecode(_ path: String) async throws -> [Int16]? {
        guard let sox = PulseHarness.executable(named: "sox") else { throw TestFailure("sox missing") }
        let result = try await Tool.run(
            sox, ["-D", "-t", "wav", path, "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-"],
            captureOutput: true)
        guard result.status == 0 else { return nil }
        return result.output.withUnsafeBytes { raw in
            (0..<raw.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    /// A WAV file of `payload` (sample bytes as they are stored) with a plain or extensible fmt chunk.
    static func file(tag: UInt32, bits: Int, channels: Int, rate: Int, extensible: Bool, payload: [UInt8]) -> [UInt8] {
        let bytesPerSample = bits / 8
        var format = le(extensible ? 0xFFFE : tag, bytes: 2) + le(UInt32(channels), bytes: 2)
        format += le(UInt32(rate), bytes: 4) + le(UInt32(rate * channels * bytesPerSample), bytes: 4)
        format += le(UInt32(channels * bytesPerSample), bytes: 2) + le(UInt32(bits), bytes: 2)
        if extensible {
            format += le(22, bytes: 2) + le(UInt32(bits), bytes: 2) + le(channels == 1 ? 0x4 : 0x3, bytes: 4)
            format += le(tag, bytes: 4) + [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        let body = Array("WAVE".utf8) + chunk("fmt ", format) + chunk("data", payload)
        return Array("RIFF".utf8) + le(UInt32(body.count), bytes: 4) + body
    }

    /// Inserts `extra` (whole chunks) right before the `data` chunk, fixing the RIFF size.
    static func insertBeforeData(_ wav: [UInt8], _ extra: [UInt8]) -> [UInt8] {
        guard let at = (12..<wav.count - 4).first(where: { Array(wav[$0..<$0 + 4]) == Array("data".utf8) }) else {
            return wav
        }
        var bytes = Array(wav[..<at]) + extra + Array(wav[at...])
        bytes.replaceSubrange(4..<8, with: le(UInt32(bytes.count - 8), bytes: 4))
        return bytes
    }

    /// Full-range samples that land on and between 16-bit steps, so rounding and clipping are exercised.
    static func randomPayload(bits: Int, float: Bool, count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var bytes: [UInt8] = []
        for index in 0..<count {
            if float {
                // Some past full scale (sox clips them), some exactly half a 16-bit step apart (ties).
                let value: Double =
                    index % 5 == 0
                    ? (Double(Int.random(in: -65536...65536, using: &generator)) + 0.5) / 65536
                    : Double.random(in: -1.2...1.2, using: &generator)
                if bits == 32 {
                    bytes += le(Float(value).bitPattern, bytes: 4)
                } else {
                    let pattern = value.bitPattern
                    bytes += le(UInt32(truncatingIfNeeded: pattern), bytes: 4)
                    bytes += le(UInt32(truncatingIfNeeded: pattern >> 32), bytes: 4)
                }
            } else {
                bytes += le(UInt32.random(in: 0...UInt32.max, using: &generator), bytes: bits / 8)
            }
        }
        return bytes
    }

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var bytes: [UInt8]
    }

    static let cases: [Case] = {
        var list: [Case] = []
        for encoding in WAVEncoding.allCases {
            for channels in [1, 2] {
                let signal = chirpSignal(frames: 6000, sampleRate: 22050, channels: channels)
                // LIST and junk chunks before fmt, fact before data, an id3 chunk after it.
                let wav = makeWAV(signal, encoding: encoding, sampleRate: 22050, channels: channels)
                list.append(Case(description: "\(encoding) \(channels) ch with extra chunks", bytes: wav.bytes))
            }
        }
        let plain = makeWAV(
            chirpSignal(frames: 5000, sampleRate: 44100, channels: 2), encoding: .signed16, sampleRate: 44100,
            channels: 2, extraChunks: false)
        let info = chunk("LIST", Array("INFOINAM".utf8) + le(9, bytes: 4) + Array("a title\0\0\0".utf8))
        list.append(
            Case(description: "LIST chunk between fmt and data", bytes: WAVFamily.insertBeforeData(plain.bytes, info)))
        list.append(
            Case(
                description: "a cue, LIST and odd-sized chunk before data",
                bytes: WAVFamily.insertBeforeData(
                    plain.bytes, chunk("cue ", le(0, bytes: 4)) + info + chunk("odd ", [1]))
            ))
        for (bits, float, extensible) in [
            (24, false, false), (32, false, false), (32, false, true), (32, true, false), (64, true, false),
            (32, true, true), (24, false, true),
        ] {
            let payload = randomPayload(bits: bits, float: float, count: 8000, seed: UInt64(bits))
            let name = "full-range \(bits)-bit \(float ? "float" : "integer")\(extensible ? " (extensible)" : "")"
            let bytes = file(
                tag: float ? 3 : 1, bits: bits, channels: 2, rate: 48000, extensible: extensible, payload: payload)
            list.append(Case(description: name, bytes: bytes))
        }
        let eightBit = file(
            tag: 1, bits: 8, channels: 1, rate: 8000, extensible: false, payload: randomBytes(4001, seed: 8))
        list.append(Case(description: "full-range 8-bit unsigned, odd length", bytes: eightBit))
        // G.711: every byte value, so the whole table is compared.
        let everyByte = (0..<1024).map { UInt8(truncatingIfNeeded: $0 * 37) }
        for (tag, name) in [(UInt32(6), "A-law"), (7, "mu-law")] {
            for extensible in [false, true] {
                let bytes = file(tag: tag, bits: 8, channels: 2, rate: 8000, extensible: extensible, payload: everyByte)
                list.append(Case(description: "\(name)\(extensible ? " (extensible)" : ""), every byte", bytes: bytes))
            }
        }
        return list
    }()
}

@Suite("WAV files sox plays", .heavyWork, .serialized)
struct WAVFamilyTests {
    @Test(
        "extra chunks, WAVE_FORMAT_EXTENSIBLE, 8-bit, 24/32-bit integer, float, A-law and mu-law WAV decode as sox -D does",
        .enabled(if: WAVFamily.hasSox, WAVFamily.noSox),
        arguments: WAVFamily.cases
    )
    func decodesAsSox(wav: WAVFamily.Case) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try StreamFamily.write(wav.bytes, in: directory, name: "served.wav")
        let reference = try #require(try await WAVFamily.soxDecode(path), "\(wav): sox plays it")
        let ours = try await StreamFamily.decodeAllChunkings(wav.bytes, wav.description)
        #expect(ours.formats.count == 1, "\(wav)")
        StreamFamily.expectEqual(ours.samples, reference, wav.description)
    }

    @Test(
        "a WAV cut inside its header or without a fmt chunk fails with one line, where sox fails too",
        .enabled(if: WAVFamily.hasSox, WAVFamily.noSox)
    )
    func failsWhereSoxFails() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wav = WAVFamily.file(
            tag: 1, bits: 16, channels: 1, rate: 8000, extensible: false, payload: randomBytes(2000, seed: 3))
        let noFormat = Array("RIFF".utf8) + le(4 + 8 + 8, bytes: 4) + Array("WAVE".utf8) + chunk("data", [1, 2, 3, 4])
        let cases: [(String, [UInt8], String)] = [
            ("cut inside fmt", Array(wav.prefix(30)), "the file ends inside its fmt chunk"),
            ("no fmt chunk", noFormat, "the data chunk comes before the fmt chunk"),
        ]
        for (label, bytes, reason) in cases {
            let path = try StreamFamily.write(bytes, in: directory, name: "bad.wav")
            #expect(try await WAVFamily.soxDecode(path) == nil, "\(label): sox refuses it too")
            #expect(
                await StreamFamily.failureLine(bytes) == "cannot play this WAV file: \(reason); try another recording",
                "\(label)")
        }
    }
}

@Suite("Streams mpg123 plays: through the player to one WAV file", .serialized)
struct StreamFamilyPlayerTests {
    /// Plays `bytes` (a local file) with `--output wav:PATH`; returns the finished state and the file written.
    static func play(_ bytes: [UInt8], name: String, in directory: String) async throws -> (PlaybackState, [UInt8]) {
        let source = try StreamFamily.write(bytes, in: directory, name: name)
        let out = directory + "/out.wav"
        // The stall watch is a wall-clock rule, not this scenario's: a loaded machine may starve the pipeline.
        let player = Player(sink: try OutputChoice(parsing: "wav:" + out).makeSink(), clocks: .unwatched())
        player.play(PlayItem(label: "XC1", location: .local(path: source)))
        let state = try await player.waitFor("the end") { $0.isIdle || $0.failureReason != nil }
        #expect(player.runningPipelines == 0)
        return (state, (try? StreamFamily.read(out)) ?? [])
    }

    @Test(
        "a stream behind junk that turns mono and changes rate plays to the end into one WAV equal to mpg123's",
        .enabled(if: StreamFamily.hasTools && WAVFamily.hasSox, "skipped: lame, mpg123 or sox missing")
    )
    func joinedStreamToOneFile() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var bytes = [UInt8](repeating: 0, count: 5000)
        for (index, (rate, channels)) in [(44100, 2), (22050, 1), (44100, 1)].enumerated() {
            bytes += try await StreamFamily.mp3(
                in: directory, name: "part\(index)", frequency: 300 + 150 * Double(index), sampleRate: rate,
                channels: channels,
                options: ["-t", "--resample", StreamFamily.kilohertz(rate), "-m", channels == 1 ? "m" : "j"])
        }
        let path = try StreamFamily.write(bytes, in: directory, name: "reference.mp3")
        let reference = try await Fixtures.referenceDecode(
            path, options: ["-r", "44100", "--resample", "NtoM", "--stereo"])
        let (state, written) = try await Self.play(bytes, name: "joined.mp3", in: directory)
        #expect(state.failureReason == nil)
        // One valid WAV: sox reads it, with the whole stream in the first part's format.
        let soxRead = try #require(try await WAVFamily.soxDecode(directory + "/out.wav"), "sox reads the file")
        StreamFamily.expectEqual(soxRead, reference, "the WAV written, read by sox, against mpg123")
        let ours = try await decode(written, chunkSizes: [4096])
        #expect(ours.formats == [PCMFormat(sampleRate: 44100, channels: 2)])
        #expect(written.count == 44 + reference.count * 2)
        #expect(Array(written[4..<8]) == le(UInt32(written.count - 8), bytes: 4))
    }

    @Test(
        "a 24-bit extensible WAV with chunks before data plays into a WAV equal to sox -D's",
        .enabled(if: WAVFamily.hasSox, WAVFamily.noSox)
    )
    func deepWAVToFile() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wav = makeWAV(
            chirpSignal(frames: 30000, sampleRate: 32000, channels: 2), encoding: .extensible24, sampleRate: 32000,
            channels: 2)
        let bytes = WAVFamily.insertBeforeData(
            wav.bytes, chunk("LIST", Array("INFOICMT".utf8) + le(2, bytes: 4) + [65, 0]))
        let source = try StreamFamily.write(bytes, in: directory, name: "reference.wav")
        let reference = try #require(try await WAVFamily.soxDecode(source))
        let (state, _) = try await Self.play(bytes, name: "deep.wav", in: directory)
        #expect(state.failureReason == nil)
        let written = try #require(try await WAVFamily.soxDecode(directory + "/out.wav"), "sox reads the file")
        StreamFamily.expectEqual(written, reference, "the WAV written against sox -D")
    }

    @Test("a WAV whose second fmt chunk changes the format part-way fails with one line instead of stopping silently")
    func formatChangeInWAVFails() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = WAVFamily.file(
            tag: 1, bits: 16, channels: 1, rate: 8000, extensible: false, payload: randomBytes(16000, seed: 1))
        let second = WAVFamily.file(
            tag: 1, bits: 16, channels: 2, rate: 16000, extensible: false, payload: randomBytes(16000, seed: 2))
        // The second file's fmt and data chunks appended inside the first RIFF.
        var bytes = first + Array(second.dropFirst(12))
        bytes.replaceSubrange(4..<8, with: le(UInt32(bytes.count - 8), bytes: 4))
        let (state, _) = try await Self.play(bytes, name: "changing.wav", in: directory)
        #expect(
            state.failureReason
                == "cannot play this WAV file: a second fmt chunk changes the format; try another recording")
    }
}

@Suite("Streams mpg123 plays: seeking behind junk", .heavyWork)
struct ResyncSeekTests {
    @Test(
        "junk before the first frame: a seek's body offset counts it, inside and beyond what was fed",
        .enabled(if: StudySignals.hasLame, StudySignals.noLame),
        arguments: [0.1, 0.8]
    )
    func seekBehindJunk(feedFraction: Double) async throws {
        let rate = SeekTests.rate
        let signal = StudySignals.steppedTone(seconds: 40, sampleRate: rate)
        let junk = [UInt8](repeating: 0, count: 3000) + randomBytes(5001, seed: 21)
        let mp3 = junk + (try await StudySignals.encodeMP3(signal, sampleRate: rate, options: ["-b", "128"]))
        let reference = try SeekTests.feed(StreamDecoder(expectedLength: Int64(mp3.count)), mp3, from: 0)
        let decoder = StreamDecoder(expectedLength: Int64(mp3.count))
        _ = try SeekTests.feed(decoder, mp3, from: 0, to: Int(Double(mp3.count) * feedFraction))
        let target = SeekPlan(sampleRate: rate).frame(atSeconds: 20)
        let point = try #require(try decoder.seekMP3(toFrame: target))
        #expect(point.bodyOffset > Int64(junk.count))
        let output = try SeekTests.feed(decoder, mp3, from: Int(point.bodyOffset))
        _ = try decoder.finish()
        let start = try #require(StudySignals.startFrame(of: output, reference: reference, sampleRate: rate))
        #expect(abs(start - target) <= 1152, "landed at \(start), wanted \(target)")
    }
}
