import ChirperTestSupport
import ChirperAudio
import ChirperCore
import Foundation
import Testing

/// Seeking under the decoders, without a sound server: the offset to fetch from, and where the first
/// samples decoded from there are in the recording (read from a tone whose frequency tells the time). Landing
/// on the sample for every kind of stream is `SampleExactSeekTests`.
@Suite("Seeking: feedseek offsets and WAV arithmetic", .heavyWork)
struct SeekTests {
    static let rate = 44100
    static let seconds = 40.0
    static let target = 30.0

    /// Decodes `bytes` fed from `offset` on into `decoder`, in 16 KiB pieces.
    static func feed(_ decoder: StreamDecoder, _ bytes: [UInt8], from offset: Int, to end: Int? = nil) throws -> [Int16]
    {
        var samples: [Int16] = []
        var start = offset
        let stop = end ?? bytes.count
        while start < stop {
            let piece = min(stop, start + 16384)
            for item in try bytes[start..<piece].withUnsafeBytes({ try decoder.feed($0) }) {
                if case .samples(let more) = item { samples += more }
            }
            start = piece
        }
        return samples
    }

    /// Encodes the stepped tone with `options`, decodes it straight, then again with a seek after feeding
    /// `feedFraction` of it; returns the seek point and where the output really starts.
    static func seekInMP3(
        options: [String], feedFraction: Double = 0.1, targetSeconds: Double = target, id3Bytes: Int = 0
    ) async throws -> (
        point: StreamSeekPoint, start: Int, fed: Int64
    ) {
        let signal = StudySignals.steppedTone(seconds: seconds, sampleRate: rate)
        var mp3 = try await StudySignals.encodeMP3(signal, sampleRate: rate, options: options)
        if id3Bytes > 0 {
            // An ID3v2.4 tag of `id3Bytes` zero bytes in front (as cover art would be): sizes are syncsafe.
            let size = (0..<4).map { UInt8((id3Bytes >> (7 * (3 - $0))) & 0x7F) }
            mp3 = Array("ID3".utf8) + [4, 0, 0] + size + [UInt8](repeating: 0, count: id3Bytes) + mp3
        }
        let id3Bytes = id3Bytes > 0 ? id3Bytes + 10 : 0
        let reference = try feed(StreamDecoder(expectedLength: Int64(mp3.count)), mp3, from: 0)
        let decoder = StreamDecoder(expectedLength: Int64(mp3.count))
        _ = try feed(decoder, mp3, from: 0, to: id3Bytes + Int(Double(mp3.count - id3Bytes) * feedFraction))
        let fed = decoder.bodyBytesFed
        let point = try #require(
            try decoder.seekMP3(toFrame: SeekPlan(sampleRate: rate).frame(atSeconds: targetSeconds)))
        let output = try feed(decoder, mp3, from: Int(point.bodyOffset))
        _ = try decoder.finish()  // a forward seek is not a truncated file
        let start = try #require(StudySignals.startFrame(of: output, reference: reference, sampleRate: rate))
        // Cross-check, independent of the tone: what is left to play tells where it started.
        let fromEnd = reference.count - output.count
        let off = Double(start - SeekPlan(sampleRate: rate).frame(atSeconds: targetSeconds)) / 1152
        print("\(options): seek to \(targetSeconds) s landed \(off) frames off (by the count left: \(fromEnd))")
        return (point, start, fed)
    }

    @Test(
        "an ID3v2 tag in front: the offset counts it, so Range fetches the right byte",
        .enabled(if: StudySignals.hasLame, StudySignals.noLame))
    func behindTag() async throws {
        let result = try await Self.seekInMP3(options: ["-b", "128"], id3Bytes: 70_000)
        let targetFrame = Int(Self.target) * Self.rate
        #expect(result.point.bodyOffset > 70_010 + 400_000)
        #expect(result.point.accurate)
        #expect(result.start == targetFrame, "landed at \(result.start), wanted \(targetFrame)")
    }

    @Test(
        "inside what was already fed, the seek is exact and needs no new request",
        .enabled(if: StudySignals.hasLame, StudySignals.noLame))
    func insideFed() async throws {
        for options in [["-b", "128"], ["-V", "4"]] {
            let result = try await Self.seekInMP3(options: options, feedFraction: 0.8, targetSeconds: 10)
            #expect(result.point.bodyOffset < result.fed, "feed again from held bytes")
            #expect(result.point.accurate)
            #expect(abs(result.start - 10 * Self.rate) <= 64, "\(options): landed at \(result.start)")
        }
    }

    @Test("a WAV seek decodes from the computed offset sample-exactly, and no trailing chunk plays as sound")
    func wav() throws {
        for channels in [1, 2] {
            let mono = StudySignals.steppedTone(seconds: 4, sampleRate: 22050)
            let signal = channels == 1 ? mono : mono.flatMap { [$0, $0 / 2] }
            let file = makeWAV(signal, encoding: .signed16, sampleRate: 22050, channels: channels)
            let location = try #require(WAVDataLocation(header: Array(file.bytes.prefix(4096))))
            let frame = SeekPlan(sampleRate: 22050).frame(atSeconds: 2.7)
            let offset = location.byteOffset(atFrame: frame)
            let decoder = WAVDecoder()
            var samples: [Int16] = []
            for bytes in [location.resumeHeader(atFrame: frame), Array(file.bytes[offset...])] {
                for item in try decoder.feed(bytes) {
                    if case .samples(let more) = item { samples += more }
                }
            }
            try decoder.finish()
            #expect(samples == Array(file.expected[(frame * channels)...]))
        }
    }
}
