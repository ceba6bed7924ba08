import ChirperAudio
import ChirperCore

extension FuzzTarget {
    /// What the network and the disk hand the audio side: the sniffer, the WAV parser, the whole stream decoder
    /// (ID3 skipping, libmpg123's feed, the gapless cut, seeks), fed in pieces of random sizes.
    static let audioTargets: [FuzzTarget] = [
        FuzzTarget(name: "sniffer", summary: "the format sniffer's 64 KiB resync, fed a growing prefix") { input in
            var reader = FuzzInput(input)
            var pieces = FuzzPieces(seed: reader.byte())
            let bytes = reader.rest()
            var scanner = AudioSniffer.Scanner()
            var seen: [UInt8] = []
            for piece in pieces.split(bytes) {
                seen += piece
                if case .needMore = scanner.verdict(seen, isComplete: false) { continue }
                break
            }
            _ = scanner.verdict(seen, isComplete: true)
            _ = AudioSniffer.sniff(bytes, isComplete: true)
        },
        FuzzTarget(name: "wav", summary: "WAV bytes as they come, through the stream decoder") { input in
            var reader = FuzzInput(input)
            let seed = reader.byte()
            decodeStream(Array("RIFF".utf8) + reader.rest(), seed: seed, seek: nil)
        },
        FuzzTarget(name: "wav-fields", summary: "a WAV header built from fuzzed fields, then samples") { input in
            var reader = FuzzInput(input)
            let seed = reader.byte()
            let file = wavFile(&reader)
            decodeStream(file, seed: seed, seek: nil)
            if let location = WAVDataLocation(header: Array(file.prefix(4096))) {
                let frame = reader.int(in: 0...1_000_000)
                let decoder = WAVDecoder()
                _ = try? decoder.feed(location.resumeHeader(atFrame: frame))
                _ = try? decoder.feed(Array(file.dropFirst(location.byteOffset(atFrame: frame))))
                _ = try? decoder.finish()
            }
        },
        FuzzTarget(name: "stream", summary: "any body (MP3, ID3, junk, WAV) through the stream decoder, with a seek") {
            decodeWithSeek($0) { $0.rest() }
        },
        FuzzTarget(name: "mp3-frames", summary: "valid MPEG frame headers with fuzzed bodies and sizes, with a seek") {
            decodeWithSeek($0) { mp3Stream(&$0) }
        },
        FuzzTarget(
            name: "flac", summary: "fLaC, a STREAMINFO of fuzzed fields, blocks, fuzzed frames (libFLAC), a seek"
        ) {
            decodeWithSeek($0) { flacStream(&$0) }
        },
    ]

    /// A FLAC stream: the signature, a STREAMINFO of fuzzed fields (mostly plausible), sometimes other blocks,
    /// then fuzzed bytes as frames, often opening with a frame sync.
    static func flacStream(_ reader: inout FuzzInput) -> [UInt8] {
        let more = reader.byte() & 1 == 0
        let block = reader.pick([4096, 1152, 16, reader.integer(bytes: 2)])
        let rate = reader.pick([44100, 8000, 384_000, 0, reader.integer(bytes: 3)])
        let channels = reader.int(in: 1...8)
        let bits = reader.pick([16, 24, 8, 32, reader.int(in: 4...32)])
        let total = reader.byte() & 1 == 0 ? 0 : reader.integer(bytes: 4)
        let maxFrame = reader.pick([0, 1475, reader.integer(bytes: 3)])
        func be(_ value: Int, _ width: Int) -> [UInt8] {
            (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        let packed =
            (UInt64(rate & 0xFFFFF) << 44) | (UInt64(channels - 1) << 41) | (UInt64((bits - 1) & 31) << 36)
            | UInt64(total & 0xF_FFFF_FFFF)
        var info = be(block, 2) + be(block, 2) + be(0, 3) + be(maxFrame, 3)
        info += (0..<8).reversed().map { UInt8(truncatingIfNeeded: packed >> (8 * UInt64($0))) }
        info += reader.take(16)
        var stream = Array("fLaC".utf8) + [more ? 0x00 : 0x80, 0, 0, 34] + info
        if more {
            let body = reader.take(reader.int(in: 0...64))
            stream += [0x81 | (reader.byte() & 0x7E)] + be(body.count, 3) + body
        }
        while !reader.isEmpty && stream.count < 200_000 {
            if reader.byte() & 1 == 0 { stream += [0xFF, 0xF8] }
            stream += reader.take(reader.int(in: 1...2000))
        }
        return stream
    }

    /// Reads the piece-size seed, where to seek and to which frame, then the body `body` makes of the rest, and
    /// decodes it (`decodeStream`).
    static func decodeWithSeek(_ input: UnsafeBufferPointer<UInt8>, body: (inout FuzzInput) -> [UInt8]) {
        var reader = FuzzInput(input)
        let seed = reader.byte()
        let seekAt = reader.int(in: 0...65535)
        let frame = reader.integer(bytes: 3)
        decodeStream(body(&reader), seed: seed, seek: (afterBytes: seekAt, frame: frame))
    }

    /// Decodes `bytes` in random pieces; after `seek.afterBytes`, seeks to `seek.frame` and goes on from the byte
    /// the decoder names (as the player would from held bytes or a Range request). The timeline of the output
    /// is kept as the player keeps it.
    static func decodeStream(_ bytes: [UInt8], seed: UInt8, seek: (afterBytes: Int, frame: Int)?) {
        let decoder = StreamDecoder(expectedLength: seed & 1 == 0 ? Int64(bytes.count) : nil)
        var pieces = FuzzPieces(seed: seed)
        var offset = 0
        var seeked = false
        var format: PCMFormat?
        var timeline = PlaybackTimeline()
        var output = 0.0
        while offset < bytes.count, let size = pieces.next() {
            let end = min(bytes.count, offset + size)
            guard let decoded = try? decoder.feed(Array(bytes[offset..<end])) else { return }
            offset = end
            for item in decoded {
                switch item {
                case .format(let new, _): format = new
                case .samples(let samples): output += format?.seconds(ofSamples: samples.count) ?? 0
                }
            }
            _ = timeline.recordingTime(atOutput: output)
            if let seek, !seeked, offset >= seek.afterBytes, let format {
                seeked = true
                let point =
                    (try? decoder.seekMP3(toFrame: seek.frame))
                    ?? (try? decoder.seekFLAC(toFrame: seek.frame, localFile: nil))
                if let point = point ?? nil {
                    guard point.bodyOffset >= 0 else { return }
                    offset = Int(min(Int64(bytes.count), point.bodyOffset))
                    timeline.mark(
                        atOutput: output, recording: Double(point.frame) / Double(max(1, format.sampleRate)), factor: 1)
                }
            }
        }
        _ = try? decoder.finish()
        _ = decoder.duration
    }

    /// A WAV file from fuzzed fields: the format tag, channels, rate, bits, block alignment, extensible
    /// subformat, chunks of odd sizes before and after `data`, a data size that may lie.
    static func wavFile(_ reader: inout FuzzInput) -> [UInt8] {
        func le(_ value: Int, _ width: Int) -> [UInt8] {
            (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        let tag = reader.pick([1, 3, 6, 7, 0xFFFE, 2, 0x55, reader.integer(bytes: 2)])
        let channels = reader.pick([1, 2, 0, 3, 8, reader.int(in: 0...65535)])
        let rate = reader.pick([44100, 8000, 192_000, 0, 1, reader.integer(bytes: 4)])
        let bits = reader.pick([16, 8, 24, 32, 64, 0, 12, reader.int(in: 0...65535)])
        let align = reader.byte() & 1 == 0 ? channels * (bits / 8) : reader.integer(bytes: 2)
        var fmt = le(tag, 2) + le(channels, 2) + le(rate, 4) + le(rate * align, 4) + le(align, 2) + le(bits, 2)
        if tag == 0xFFFE || reader.byte() & 3 == 0 {
            let subformat = reader.pick([1, 3, 6, 7, reader.integer(bytes: 2)])
            fmt +=
                le(22, 2) + le(bits, 2) + le(reader.integer(bytes: 4), 4) + le(subformat, 2)
                + [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        let fmtSize = reader.byte() & 7 == 0 ? reader.integer(bytes: 4) : fmt.count
        var chunks: [UInt8] = Array("fmt ".utf8) + le(fmtSize, 4) + fmt
        for _ in 0..<reader.int(in: 0...3) {
            let body = reader.take(reader.int(in: 0...40))
            chunks +=
                reader.pick(["LIST", "fact", "JUNK", "data"]).utf8 + le(body.count, 4) + body
                + (body.count % 2 == 1 ? [0] : [])
        }
        if reader.byte() & 1 == 0 { chunks = Array(chunks.suffix(from: fmt.count / 2)) }  // a cut-up header
        let samples = reader.take(reader.int(in: 0...4096))
        let dataSize = reader.pick([samples.count, 0, 0xFFFF_FFFF, samples.count + 1, reader.integer(bytes: 4)])
        chunks += Array("data".utf8) + le(dataSize, 4) + samples
        chunks += reader.rest()
        return Array("RIFF".utf8) + le(chunks.count + 4, 4) + Array("WAVE".utf8) + chunks
    }

    /// An MPEG stream of valid frame headers (any version, layer, rate, bit rate, padding and mode) whose
    /// bodies are fuzzed bytes of the announced size, or a little shorter or longer; sometimes an ID3v2 tag, an
    /// Info/Xing frame with a fuzzed TOC, or junk in front.
    static func mp3Stream(_ reader: inout FuzzInput) -> [UInt8] {
        var stream: [UInt8] = []
        if reader.byte() & 3 == 0 {
            let size = reader.int(in: 0...300)
            stream += Array("ID3".utf8) + [4, 0, 0] + (0..<4).map { UInt8((size >> (7 * (3 - $0))) & 0x7F) }
            stream += [UInt8](repeating: 0, count: size)
        }
        if reader.byte() & 7 == 0 { stream += reader.take(reader.int(in: 0...200)) }
        let version = reader.pick([3, 2, 0])  // MPEG-1, 2, 2.5
        let layer = reader.pick([1, 1, 1, 2, 3])  // III mostly
        let rateIndex = reader.int(in: 0...2)
        let mode = reader.int(in: 0...3)
        var first = true
        while !reader.isEmpty && stream.count < 200_000 {
            let bitrate = reader.byte() & 3 == 0 ? reader.int(in: 1...14) : 9
            let padding = Int(reader.byte() & 1)
            let b1 = 0xE0 | UInt8(version << 3) | UInt8(layer << 1) | 1
            let b2 = UInt8(bitrate << 4) | UInt8(rateIndex << 2) | UInt8(padding << 1)
            let b3 = UInt8(mode << 6)
            let header: [UInt8] = [0xFF, b1, b2, b3]
            let sampleRate = [44100, 48000, 32000][rateIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
            let kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320][bitrate]
            let size = max(4, (version == 3 ? 144 : 72) * kbps * 1000 / sampleRate + padding)
            let change = reader.byte()
            let bodySize = change & 15 == 0 ? size - 4 + Int(Int8(bitPattern: change)) / 8 : size - 4
            var body = reader.take(max(0, bodySize))
            if first && reader.byte() & 1 == 0 {
                // An Info/Xing frame: the tag, flags, frames, bytes, TOC, then LAME's delay and padding.
                let tag = Array((reader.byte() & 1 == 0 ? "Xing" : "Info").utf8)
                let fields = tag + [0, 0, 0, 0x0F] + reader.take(8) + reader.take(100) + reader.take(40)
                let at = min(body.count, version == 3 ? (mode == 3 ? 17 : 32) : (mode == 3 ? 9 : 17))
                body = Array(body.prefix(at)) + fields + body.dropFirst(at + fields.count)
            }
            stream += header + body
            first = false
        }
        return stream
    }
}
