import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// WAV files made by sox in every sample encoding, 1 to 8 channels, 8 to 384 kHz, decoded by chirper-play and
/// by `sox -D … -b 16`, compared sample for sample.
@Suite(
    "Decoding WAV of every encoding, 1 to 8 channels", .heavyWork,
    .enabled(if: ReferenceDecoders.available, ReferenceDecoders.missing))
struct WAVFormatTests {
    typealias Tools = ReferenceDecoders

    static let encodings: [[String]] = [
        ["-e", "unsigned", "-b", "8"], ["-e", "signed", "-b", "16"], ["-e", "signed", "-b", "24"],
        ["-e", "signed", "-b", "32"], ["-e", "floating-point", "-b", "32"], ["-e", "floating-point", "-b", "64"],
    ]

    @Test(
        "a WAV decodes to sox's samples exactly, in every encoding, mono to 8 channels (one played alone), 8 to 384 kHz",
        arguments: [(8000, 1), (44100, 2), (96000, 3), (384_000, 8)])
    func matchesSox(rate: Int, channels: Int) async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var extensible = 0
        for encoding in Self.encodings {
            let path = "\(folder)/\(encoding.joined()).wav"
            try await Tools.makeWAV(path, rate: rate, channels: channels, encoding: encoding, seconds: 0.5)
            let bytes = try Tools.bytes(path)
            if bytes[20] == 0xFE && bytes[21] == 0xFF { extensible += 1 }
            let reference = try await Tools.sox16(path, channel: channels > 2 ? 1 : nil)
            let (decoded, decoder) = try Tools.decode(bytes)
            #expect(decoded.formats == [PCMFormat(sampleRate: rate, channels: channels > 2 ? 1 : channels)])
            #expect(
                decoded.samples == reference, "\(encoding): \(Tools.firstDifference(decoded.samples, reference))")
            #expect(decoder.channelChoice == ChannelChoice(fileChannels: channels, played: channels > 2 ? 1 : nil))
        }
        // sox writes WAVE_FORMAT_EXTENSIBLE for integers of more than 16 bits, and for every integer encoding
        // of more than two channels (floats stay plain).
        #expect(extensible == (channels > 2 ? 4 : 2))
    }

    @Test("the channel asked for plays alone: the last of 8, or the right of a stereo pair")
    func channelAskedFor() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (channels, chosen) in [(8, 8), (2, 2)] {
            let path = "\(folder)/\(channels).wav"
            try await Tools.makeWAV(path, rate: 48000, channels: channels, encoding: ["-e", "signed", "-b", "24"])
            let reference = try await Tools.sox16(path, channel: chosen)
            let (decoded, decoder) = try Tools.decode(try Tools.bytes(path), channel: chosen)
            #expect(decoded.formats == [PCMFormat(sampleRate: 48000, channels: 1)])
            #expect(decoded.samples == reference, "\(Tools.firstDifference(decoded.samples, reference))")
            #expect(decoder.channelChoice?.description == "channel \(chosen) of \(channels)")
        }
    }

    @Test(
        "a WAV cut short, or whose data chunk claims more than the file, plays what is there and lasts that long")
    func cutShort() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/whole.wav"
        try await Tools.makeWAV(path, rate: 44100, channels: 2, encoding: ["-e", "signed", "-b", "24"], seconds: 2)
        let whole = try Tools.bytes(path)
        let reference = try await Tools.sox16(path)
        let dataStart = try #require(WAVDataLocation(header: Array(whole.prefix(4096)))).dataStart
        // Cut inside a sample frame: the partial frame is dropped.
        let cut = Array(whole.prefix(dataStart + 6 * 30000 + 4))
        var huge = cut
        for (index, byte) in [0xF0, 0xFF, 0xFF, 0x7F].enumerated() { huge[dataStart - 4 + index] = UInt8(byte) }
        for bytes in [cut, huge] {
            let (decoded, decoder) = try Tools.decode(bytes)
            #expect(decoded.samples == Array(reference.prefix(2 * 30000)))
            #expect(decoder.duration == 30000.0 / 44100)
        }
    }
}

/// The player plays the channel its item names, against a sink whose speaker the test moves.
@Suite("Player: one channel of many", .enabled(if: ReferenceDecoders.available, ReferenceDecoders.missing))
struct PlayerChannelTests {
    @Test("a 4-channel WAV plays its first channel alone, or the one the item names, to the sink")
    func channelReachesTheSink() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/four.wav"
        try await ReferenceDecoders.makeWAV(
            path, rate: 16000, channels: 4, encoding: ["-e", "signed", "-b", "16"], seconds: 1)
        for channel in [nil, 3] {
            let reference = try await ReferenceDecoders.sox16(path, channel: channel ?? 1)
            let sink = GatedSink()
            let player = Player(sink: sink, sources: .live(), clocks: .unwatched())
            player.play(PlayItem(label: "four.wav", location: .local(path: path), channel: channel))
            try await player.waitFor("the whole second queued") { _ in
                sink.outputs.first.map { $0.samples.count >= reference.count } ?? false
            }
            #expect(sink.outputs.first?.format == PCMFormat(sampleRate: 16000, channels: 1))
            let played = sink.outputs.first?.samples ?? []
            #expect(
                ReferenceDecoders.firstDifference(played, reference) == "equal",
                "channel \(String(describing: channel))")
            await player.shutdown()
        }
    }
}
