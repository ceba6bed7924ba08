import ChirperTestSupport
import ChirperCore
import ChirperAudio
import Foundation
import Testing

// Serialized: these are long synchronous CPU loops; one at a time leaves a core for the timing-sensitive tests.
@Suite("Decoding real MP3s", .heavyWork, .serialized)
struct MP3DecodingTests {
    // Every recording, fed 1 byte, 7 bytes, 4 KiB and random sizes at a time, decodes to exactly the
    // samples of a whole-file feed: the decoder does not depend on how the network splits the body.
    @Test(
        "MP3 decoding is independent of chunking (1, 7, 4096, random sizes)",
        .enabled(if: Fixtures.hasRecordings, Fixtures.noRecordings),
        arguments: Fixtures.mp3Names
    )
    func chunkingIndependence(name: String) async throws {
        let bytes = try Fixtures.bytes(name)
        let whole = try await decode(bytes, chunkSizes: [bytes.count])
        #expect(!whole.samples.isEmpty)
        #expect(whole.formats.count == 1)
        for sizes in [[1], [7], [4096], randomSizes(count: 500, upTo: 9000, seed: UInt64(bytes.count))] {
            let chunked = try await decode(bytes, chunkSizes: sizes)
            #expect(chunked.formats == whole.formats, "formats differ with chunk sizes \(sizes.prefix(3))")
            #expect(chunked.samples.count == whole.samples.count, "sample count differs with \(sizes.prefix(3))")
            #expect(chunked.samples == whole.samples, "samples differ with chunk sizes \(sizes.prefix(3))")
        }
    }

    // Our decode is the reference decoder's (`mpg123 -s`, same library, same gapless trimming): the same
    // number of samples, bit for bit.
    @Test(
        "decoding matches mpg123 -s bit for bit",
        .enabled(if: Fixtures.hasRecordings, Fixtures.noRecordings),
        .enabled(if: Fixtures.hasMPG123, Fixtures.noMPG123),
        arguments: Fixtures.mp3Names
    )
    func matchesReference(name: String) async throws {
        let ours = try await decode(try Fixtures.bytes(name), chunkSizes: [16 * 1024])
        let reference = try await Fixtures.referenceDecode(Fixtures.path(name))
        #expect(ours.samples.count == reference.count)
        let common = min(ours.samples.count, reference.count)
        if let first = (0..<common).first(where: { ours.samples[$0] != reference[$0] }) {
            Issue.record("first difference at sample \(first): \(ours.samples[first]) vs \(reference[first])")
        }
    }

    @Test(
        "the format and duration come from the stream (rate, channels, Info/Xing length)",
        .enabled(if: Fixtures.hasRecordings, Fixtures.noRecordings)
    )
    func formatAndDuration() async throws {
        let expectations: [(String, Int, Int, ClosedRange<Double>)] = [
            ("XC178978", 16000, 1, 6.9...7.1),
            ("XC344046", 48000, 1, 7.0...7.2),
            ("XC373562", 44100, 1, 12.7...12.8),
            ("XC794002", 48000, 2, 20.7...20.9),
            ("XC5168", 22050, 1, 4.4...4.8),
        ]
        for (id, rate, channels, durationRange) in expectations {
            guard let name = Fixtures.named(id) else { continue }
            let bytes = try Fixtures.bytes(name)
            let decoder = StreamDecoder(expectedLength: Int64(bytes.count))
            let output = try decoder.feed(bytes)
            guard case .format(let format, let duration) = output.first else {
                Issue.record("\(id): no format first")
                continue
            }
            #expect(format == PCMFormat(sampleRate: rate, channels: channels), "\(id)")
            #expect(
                duration.map { durationRange.contains($0) } == true, "\(id): duration \(String(describing: duration))")
            #expect(decoder.container == .mp3)
        }
    }

    @Test(
        "an MP3 cut in half is reported as cut short (its Info header gives the length)",
        .enabled(if: Fixtures.hasRecordings, Fixtures.noRecordings)
    )
    func truncatedMP3() async throws {
        guard let name = Fixtures.named("XC178978") else { return }
        let bytes = try Fixtures.bytes(name)
        let half = Array(bytes.prefix(bytes.count / 2))
        await #expect(throws: TruncatedAudio.self) { try await decode(half, chunkSizes: [4096]) }
        // Cut inside the ID3 tag: nothing decodes and nothing fails here (the machine reports "no audio").
        let tagOnly = try await decode(Array(bytes.prefix(3000)), chunkSizes: [512])
        #expect(tagOnly.samples.isEmpty)
    }

    @Test(
        "a huge ID3v2 tag is skipped as it streams past and does not change the audio",
        .enabled(if: Fixtures.hasRecordings, Fixtures.noRecordings)
    )
    func hugeID3Tag() async throws {
        guard let name = Fixtures.named("XC5168") else { return }
        let original = try Fixtures.bytes(name)
        let size = 3_000_000
        let synchsafe: [UInt8] = [
            UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F),
        ]
        let tag = Array("ID3".utf8) + [4, 0, 0] + synchsafe + [UInt8](repeating: 0, count: size)
        let decoded = try await decode(tag + original, chunkSizes: [65536])
        let plain = try await decode(original, chunkSizes: [65536])
        #expect(decoded.samples == plain.samples)
    }
}

@Suite("Decoding WAV", .heavyWork)
struct WAVDecodingTests {
    @Test(
        "each PCM encoding decodes to the expected 16-bit samples, whatever the chunking",
        arguments: WAVEncoding.allCases)
    func encodings(encoding: WAVEncoding) async throws {
        for (rate, channels) in [(8000, 1), (44100, 2)] {
            let signal = chirpSignal(frames: 3000, sampleRate: rate, channels: channels)
            let wav = makeWAV(signal, encoding: encoding, sampleRate: rate, channels: channels)
            let whole = try await decode(wav.bytes, chunkSizes: [wav.bytes.count])
            #expect(whole.formats == [PCMFormat(sampleRate: rate, channels: channels)])
            #expect(whole.samples == wav.expected, "\(encoding) \(rate) Hz \(channels) ch")
            for sizes in [[1], [7], [4096], randomSizes(count: 300, upTo: 700, seed: 3)] {
                let chunked = try await decode(wav.bytes, chunkSizes: sizes)
                #expect(chunked == whole, "\(encoding) with chunk sizes \(sizes.prefix(3))")
            }
        }
    }

    @Test("a header that promises more data than arrives plays what arrives, without error")
    func lyingLength() async throws {
        let signal = chirpSignal(frames: 1000, sampleRate: 22050, channels: 1)
        for declared: UInt32 in [10_000_000, 0xFFFF_FFFF, 0] {
            let wav = makeWAV(signal, encoding: .signed16, sampleRate: 22050, channels: 1, declaredDataSize: declared)
            let decoded = try await decode(wav.bytes, chunkSizes: [333])
            #expect(decoded.samples == wav.expected, "declared \(declared)")
        }
        // Cut in the middle of a sample frame: the partial frame is dropped.
        let stereo = makeWAV(
            chirpSignal(frames: 100, sampleRate: 8000, channels: 2), encoding: .signed24, sampleRate: 8000, channels: 2,
            extraChunks: false)
        let cut = Array(stereo.bytes.dropLast(4))
        let decoded = try await decode(cut, chunkSizes: [5])
        #expect(decoded.samples == Array(stereo.expected.dropLast(2)))
    }

    @Test("broken or unsupported WAVs fail with a reason instead of crashing")
    func unsupported() async throws {
        let signal = chirpSignal(frames: 10, sampleRate: 8000, channels: 1)
        var adpcm = makeWAV(signal, encoding: .signed16, sampleRate: 8000, channels: 1, extraChunks: false).bytes
        adpcm[20] = 2  // format tag 2 = ADPCM
        await #expect(throws: WAVDecoderError("ADPCM (0x2) samples are not read")) {
            try await decode(adpcm, chunkSizes: [7])
        }
        var surround = makeWAV(signal, encoding: .signed16, sampleRate: 8000, channels: 1, extraChunks: false).bytes
        surround[22] = 9
        await #expect(throws: WAVDecoderError("9 channels are not read (1 to 8 are)")) {
            try await decode(surround, chunkSizes: [64])
        }
        let dataFirst = Array("RIFF".utf8) + le(100, bytes: 4) + Array("WAVE".utf8) + chunk("data", [1, 2, 3, 4])
        await #expect(throws: WAVDecoderError("the data chunk comes before the fmt chunk")) {
            try await decode(dataFirst, chunkSizes: [1])
        }
        let headerOnly = Array("RIFF".utf8) + le(100, bytes: 4) + Array("WAVE".utf8)
        await #expect(throws: WAVDecoderError("the file has no fmt chunk")) {
            try await decode(headerOnly, chunkSizes: [3])
        }
    }
}

@Suite("Sniffing the format by content", .heavyWork)
struct SnifferTests {
    private func failure(_ bytes: [UInt8], chunkSize: Int? = nil) async -> String? {
        do {
            _ = try await decode(bytes, chunkSizes: [chunkSize ?? bytes.count])
            // An empty body produces nothing and no error from the decoder; the player reports it.
            return bytes.isEmpty ? "empty" : nil
        } catch {
            return userMessage(for: error)
        }
    }

    @Test("audio signatures are recognised: ID3, MPEG frame sync, RIFF/WAVE")
    func signatures() throws {
        #expect(AudioSniffer.sniff(Array("ID3".utf8) + [4, 0], isComplete: false) == .container(.mp3))
        #expect(AudioSniffer.sniff([0xFF, 0xFB, 0x90, 0x64], isComplete: false) == .container(.mp3))
        #expect(AudioSniffer.sniff([0xFF, 0xF3, 0x48, 0xC4], isComplete: false) == .container(.mp3))  // MPEG-2
        #expect(
            AudioSniffer.sniff(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8), isComplete: false)
                == .container(.wav))
        #expect(AudioSniffer.sniff(Array("RIF".utf8), isComplete: false) == .needMore)
        #expect(AudioSniffer.sniff([0xFF], isComplete: false) == .needMore)
    }

    @Test("what is not audio is named: empty body, HTML page, JSON, Ogg, other RIFF, text, raw bytes")
    func descriptions() {
        let cases: [([UInt8], String)] = [
            ([], "an empty body"),
            (Array("<!DOCTYPE html><html><body>Not found</body></html>".utf8), "an HTML page"),
            (Array("\n  <html lang=en>".utf8), "an HTML page"),
            (Array(#"{"error": "client_error"}"#.utf8), "JSON text"),
            (Array("OggS".utf8) + [UInt8](repeating: 0, count: 60), "Ogg audio"),
            (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("AVI LIST".utf8), "a RIFF file of type AVI "),
            (Array("Forbidden".utf8), "text starting \"Forbidden\""),
            ([0x00, 0x01, 0x02, 0xFE, 0x80, 0x81, 0x82, 0x83, 0x84], "bytes 00 01 02 FE 80 81 82 83"),
        ]
        for (bytes, found) in cases {
            #expect(AudioSniffer.sniff(bytes, isComplete: true) == .unsupported(UnsupportedAudioFormat(found: found)))
        }
    }

    @Test("the verdict on a non-audio body does not depend on chunking")
    func chunkingIndependentVerdict() async {
        let html = Array(
            "<!doctype html><html><head><title>xeno-canto</title></head><body>maintenance</body></html>".utf8)
        let random = randomBytes(5000, seed: 42)
        for body in [html, random, Array("short".utf8)] {
            let whole = await failure(body)
            #expect(whole?.hasPrefix("unsupported audio format:") == true, "\(String(describing: whole))")
            for size in [1, 7, 4096] {
                #expect(await failure(body, chunkSize: size) == whole, "chunk size \(size)")
            }
        }
        #expect(await failure(html) == "unsupported audio format: an HTML page (not MP3, WAV or FLAC)")
    }
}
