import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// FLAC files made by sox and flac, decoded by chirper-play and by `flac -d`, compared sample for sample.
@Suite("Decoding FLAC with libFLAC", .heavyWork, .enabled(if: ReferenceDecoders.available, ReferenceDecoders.missing))
struct FLACDecoderTests {
    typealias Tools = ReferenceDecoders

    /// A FLAC file of `seconds` at `rate`, `channels` wide, `bits` deep, in `folder`.
    static func makeFLAC(in folder: String, rate: Int, channels: Int, bits: Int, seconds: Double = 1.5) async throws
        -> String
    {
        let wav = "\(folder)/\(rate)-\(channels)-\(bits).wav"
        let path = "\(folder)/\(rate)-\(channels)-\(bits).flac"
        try await Tools.makeWAV(
            wav, rate: rate, channels: channels, encoding: ["-e", "signed", "-b", "\(bits)"], seconds: seconds)
        try await Tools.encodeFLAC(wav, path)
        return path
    }

    @Test(
        "a FLAC decodes to flac -d's samples exactly, 8 to 24 bits, mono to 8 channels, 8 to 384 kHz, however it is split",
        arguments: [(44100, 2, 16), (48000, 1, 24), (8000, 1, 8), (96000, 4, 16), (384_000, 8, 24), (22050, 3, 24)])
    func matchesFlac(rate: Int, channels: Int, bits: Int) async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try await Self.makeFLAC(in: folder, rate: rate, channels: channels, bits: bits)
        // More than two channels play one at a time: the first by default.
        let reference = try await Tools.flac16(path, channel: channels > 2 ? 1 : nil)
        let (decoded, decoder) = try Tools.decode(try Tools.bytes(path))
        let played = channels > 2 ? 1 : channels
        #expect(decoded.formats == [PCMFormat(sampleRate: rate, channels: played)])
        #expect(decoded.samples == reference, "\(Tools.firstDifference(decoded.samples, reference))")
        #expect(decoder.channelChoice == ChannelChoice(fileChannels: channels, played: channels > 2 ? 1 : nil))
        #expect(decoder.duration == 1.5)
        #expect(decoder.durationIsExact)
        #expect(decoder.damage == nil)
    }

    @Test("the channel asked for is the one played, and one the file does not have is refused in one line")
    func channelChoice() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try await Self.makeFLAC(in: folder, rate: 48000, channels: 4, bits: 16)
        let bytes = try Tools.bytes(path)
        let reference = try await Tools.flac16(path, channel: 3)
        let (decoded, decoder) = try Tools.decode(bytes, channel: 3)
        #expect(decoded.samples == reference, "\(Tools.firstDifference(decoded.samples, reference))")
        #expect(decoder.channelChoice?.description == "channel 3 of 4")
        #expect(throws: FLACDecoderError("this recording has no channel 5: it has 4; choose 1 to 4")) {
            _ = try Tools.decode(bytes, channel: 5)
        }
    }

    @Test("a seek in a FLAC lands on the sample asked for, through libFLAC in the file or again from the start")
    func seekIsSampleExact() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try await Self.makeFLAC(in: folder, rate: 32000, channels: 2, bits: 24, seconds: 25)
        let bytes = try Tools.bytes(path)
        let whole = try Tools.decode(bytes).decoded.samples
        var generator = SeededGenerator(seed: 53)
        for local in [true, false] {
            for _ in 0..<6 {
                let target = Int.random(in: 0..<(25 * 32000), using: &generator)
                let decoder = StreamDecoder(expectedLength: Int64(bytes.count))
                _ = try decoder.feed(Array(bytes.prefix(bytes.count / 3)))
                let point = try #require(try decoder.seekFLAC(toFrame: target, localFile: local ? path : nil))
                #expect(point.frame == target)
                #expect(point.accurate)
                var after = Decoded()
                after.append(try decoder.feed(Array(bytes[Int(point.bodyOffset)...])))
                after.append(try decoder.finish())
                let expected = Array(whole[(target * 2)...])
                #expect(
                    after.samples == expected,
                    "local \(local), frame \(target): \(Tools.firstDifference(after.samples, expected))")
            }
        }
    }

    @Test("a seek to 1:30:00 in a 2-hour FLAC reads a few frames of the file, not the file, and lands on the sample")
    func seekInLongFile() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let wav = "\(folder)/night.wav"
        let path = "\(folder)/night.flac"
        // Two hours at 8 kHz: a quiet tone under sox's dither, so the frames are not all alike.
        try await Tools.run(
            Tools.sox, ["-n", "-r", "8000", "-c", "1", "-b", "16", wav, "synth", "7200", "sine", "440", "gain", "-30"])
        try await Tools.encodeFLAC(wav, path)
        try FileManager.default.removeItem(atPath: wav)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let target = 5400 * 8000
        let started = ContinuousClock.now
        let landing = try #require(try FLACDecoder.seeking(file: path, toFrame: target, channel: nil))
        let took = started.duration(to: .now)
        print("seek to 1:30:00 in a \(size)-byte FLAC read \(landing.bytesRead) bytes in \(took) (not a check)")
        #expect(size > 8 << 20)
        #expect(landing.bytesRead < 512 << 10, "read \(landing.bytesRead) of \(size) bytes")
        #expect(landing.frame == target)
        // The second after the target, as `flac -d --skip` decodes it.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        try file.seek(toOffset: UInt64(landing.byteOffset))
        let next = [UInt8](try file.read(upToCount: 64 << 10) ?? Data())
        try file.close()
        var decoded = Decoded()
        decoded.append(try landing.decoder.feed(next))
        let second = "\(folder)/second.flac.wav"
        try await Tools.run(Tools.flac, ["-d", "-s", "-f", "--skip=\(target)", "--until=+8000", "-o", second, path])
        let reference = try await Tools.sox16(second)
        #expect(reference.count == 8000)
        let mine = Array(decoded.samples.prefix(8000))
        #expect(mine == reference, "\(Tools.firstDifference(mine, reference))")
    }

    @Test("FLAC is told by its signature, and a body that is neither MP3, WAV nor FLAC says which three are played")
    func sniffed() {
        #expect(AudioSniffer.sniff(Array("fLaC".utf8), isComplete: false) == .container(.flac))
        #expect(AudioSniffer.sniff(Array("fLa".utf8), isComplete: false) == .needMore)
        #expect(UnsupportedAudioFormat(found: "Ogg audio").userMessage.hasSuffix("(not MP3, WAV or FLAC)"))
    }
}

/// The player's `seek` on a FLAC of one's own, against a sink whose speaker the test moves.
@Suite("Player: seeking a FLAC on disk", .enabled(if: ReferenceDecoders.available, ReferenceDecoders.missing))
struct FLACPlayerSeekTests {
    @Test("a seek in a FLAC on disk: the new output starts on the sample asked for, decoded from the seek's frame")
    func seekLandsOnTheSample() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try await FLACDecoderTests.makeFLAC(in: folder, rate: 22050, channels: 2, bits: 16, seconds: 30)
        let whole = try ReferenceDecoders.decode(try ReferenceDecoders.bytes(path)).decoded.samples
        let sink = GatedSink()
        let player = Player(sink: sink, sources: .live(), clocks: .unwatched())
        player.play(PlayItem(label: "own.flac", location: .local(path: path)))
        try await player.waitFor("playing") { $0.isPlaying }
        #expect(player.seek(.absolute(20.5)) == nil)
        try await player.waitFor("buffered at 20.5 s on a second output") { state in
            state.progress?.position == 20.5 && sink.outputs.count == 2 && (state.progress?.buffered ?? 0) >= 1
        }
        let after = sink.outputs[1].samples
        let expected = Array(whole[(22050 * 41)...].prefix(after.count))
        #expect(after.count >= 22050 * 2)
        #expect(after == expected, "\(ReferenceDecoders.firstDifference(after, expected))")
        await player.shutdown()
    }
}
