import ChirperCore

/// A RIFF/WAVE file we cannot play, and why.
public struct WAVDecoderError: UserFacingError, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var userMessage: String { "cannot play this WAV file: \(message); try another recording" }
    public var description: String { message }
}

/// Reads RIFF/WAVE PCM fed in pieces of any size and produces interleaved 16-bit samples, the same samples
/// `sox -D FILE -b 16 -e signed-integer` writes (deeper samples rounded, not dithered).
///
/// Accepts WAVE_FORMAT_PCM (8-bit unsigned, 16/24/32-bit signed), WAVE_FORMAT_IEEE_FLOAT (32/64-bit), G.711
/// A-law and mu-law, and WAVE_FORMAT_EXTENSIBLE with any of these subformats; any rate; mono or stereo. Chunks may come in any order
/// (`fmt ` must precede `data`); unknown chunks are skipped, odd sizes padded. A `data` size that promises
/// more than arrives is not an error (what arrives is played); 0 or 0xFFFFFFFF means "until the end".
/// Memory is bounded: only a partial header or a partial sample frame is kept between feeds.
public final class WAVDecoder {
    private enum Encoding: Equatable {
        case unsigned8, signed16, signed24, signed32, float32, float64
        /// G.711 (telephone recordings): 8-bit logarithmic samples.
        case aLaw, muLaw
    }

    private struct Layout: Equatable {
        var encoding: Encoding
        var channels: Int
        var sampleRate: Int
        var bytesPerSample: Int
        var blockAlign: Int
    }

    private enum Stage {
        /// Waiting for "RIFF" size "WAVE".
        case riffHeader
        /// Waiting for a chunk's id and size.
        case chunkHeader
        /// Collecting the `fmt ` chunk's body (`size` bytes, then `pad`).
        case format(size: Int, pad: Int)
        /// Skipping `remaining` bytes of a chunk we do not need.
        case skip(remaining: Int)
        /// Sample data; `remaining` nil means until the end of the stream.
        case data(remaining: Int?, pad: Int)
    }

    private var stage: Stage = .riffHeader
    private var pending: [UInt8] = []
    private var layout: Layout?
    public private(set) var duration: Double?

    public init() {}

    /// Feeds the next bytes and returns what they decode to.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(WAVDecoderError) -> [DecodedAudio] {
        var output: [DecodedAudio] = []
        var samples: [Int16] = []
        var input = bytes[...]
        while true {
            switch stage {
            case .riffHeader:
                guard let header = take(12, from: &input) else { return flush(samples, into: output) }
                guard header.starts(with: Array("RIFF".utf8)), Array(header[8..<12]) == Array("WAVE".utf8) else {
                    throw WAVDecoderError("not a RIFF/WAVE file")
                }
                stage = .chunkHeader
            case .chunkHeader:
                guard let header = take(8, from: &input) else { return flush(samples, into: output) }
                let id = String(decoding: header[0..<4], as: UTF8.self)
                let size = Int(readUInt32(header, at: 4))
                try beginChunk(id: id, size: size)
            case .format(let size, let pad):
                guard let body = take(size, from: &input) else { return flush(samples, into: output) }
                let newLayout = try parseFormat(body)
                if let layout, layout != newLayout {
                    throw WAVDecoderError("a second fmt chunk changes the format")
                }
                layout = newLayout
                stage = pad > 0 ? .skip(remaining: pad) : .chunkHeader
            case .skip(let remaining):
                let skipped = min(remaining, input.count)
                input = input.dropFirst(skipped)
                if skipped < remaining {
                    stage = .skip(remaining: remaining - skipped)
                    return flush(samples, into: output)
                }
                stage = .chunkHeader
            case .data(let remaining, let pad):
                guard let layout else { throw WAVDecoderError("the data chunk comes before the fmt chunk") }
                if remaining == 0 {
                    pending.removeAll()  // a partial frame at the end of the chunk is dropped
                    stage = pad > 0 ? .skip(remaining: pad) : .chunkHeader
                    continue
                }
                if input.isEmpty { return flush(samples, into: output) }
                if announced != layout {
                    announced = layout
                    output = flush(samples, into: output)
                    samples = []
                    output.append(
                        .format(PCMFormat(sampleRate: layout.sampleRate, channels: layout.channels), duration: duration)
                    )
                }
                let available = remaining.map { min($0, input.count) } ?? input.count
                let piece = input.prefix(available)
                input = input.dropFirst(available)
                if let remaining {
                    stage = .data(remaining: remaining - available, pad: pad)
                }
                convert(piece, layout: layout, into: &samples)
            }
        }
    }

    /// Feeds bytes from an array.
    public func feed(_ bytes: [UInt8]) throws(WAVDecoderError) -> [DecodedAudio] {
        var result: Result<[DecodedAudio], WAVDecoderError> = .success([])
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(WAVDecoderError) in try feed(raw) }
        }
        return try result.get()
    }

    /// Call at the end of the stream. A header that promised more data than arrived is not an error; a
    /// stream that never reached its sample data is.
    public func finish() throws(WAVDecoderError) {
        switch stage {
        case .riffHeader:
            throw WAVDecoderError("the file ends inside its header")
        case .format:
            throw WAVDecoderError("the file ends inside its fmt chunk")
        case .chunkHeader, .skip, .data:
            if layout == nil { throw WAVDecoderError("the file has no fmt chunk") }
        }
    }

    // MARK: - Parsing

    private func beginChunk(id: String, size: Int) throws(WAVDecoderError) {
        let pad = size % 2
        switch id {
        case "fmt ":
            guard size >= 16, size <= 4096 else { throw WAVDecoderError("its fmt chunk has a bad size (\(size))") }
            stage = .format(size: size, pad: pad)
        case "data":
            guard let layout else { throw WAVDecoderError("the data chunk comes before the fmt chunk") }
            let unknown = size == 0 || size == 0xFFFF_FFFF
            if !unknown {
                duration = Double(size / layout.blockAlign) / Double(layout.sampleRate)
            }
            stage = .data(remaining: unknown ? nil : size, pad: unknown ? 0 : pad)
        default:
            stage = .skip(remaining: size + pad)
        }
    }

    private func parseFormat(_ body: [UInt8]) throws(WAVDecoderError) -> Layout {
        var tag = Int(readUInt16(body, at: 0))
        let channels = Int(readUInt16(body, at: 2))
        let sampleRate = Int(readUInt32(body, at: 4))
        let bits = Int(readUInt16(body, at: 14))
        if tag == 0xFFFE {  // WAVE_FORMAT_EXTENSIBLE: the real tag opens the SubFormat GUID
            guard body.count >= 40 else { throw WAVDecoderError("its extensible fmt chunk is too short") }
            tag = Int(readUInt16(body, at: 24))
        }
        let encoding: Encoding
        switch (tag, bits) {
        case (1, 8): encoding = .unsigned8
        case (6, 8): encoding = .aLaw
        case (7, 8): encoding = .muLaw
        case (1, 16): encoding = .signed16
        case (1, 24): encoding = .signed24
        case (1, 32): encoding = .signed32
        case (3, 32): encoding = .float32
        case (3, 64): encoding = .float64
        case (1, _), (3, _):
            throw WAVDecoderError("\(bits)-bit \(tag == 1 ? "integer" : "float") samples are not supported")
        case (6, _), (7, _):
            throw WAVDecoderError("\(bits)-bit \(Self.encodingName(tag)) samples are not supported")
        default:
            throw WAVDecoderError(
                "encoding \(Self.encodingName(tag)) is not supported (only PCM, float, A-law, mu-law)")
        }
        guard channels == 1 || channels == 2 else {
            throw WAVDecoderError("\(channels) channels are not supported (only mono and stereo)")
        }
        guard sampleRate >= 1000, sampleRate <= 768_000 else {
            throw WAVDecoderError("sample rate \(sampleRate) Hz is not supported")
        }
        let bytesPerSample = bits / 8
        // The frame size follows from the sample layout; a block align that disagrees is ignored.
        let frameBytes = bytesPerSample * channels
        return Layout(
            encoding: encoding,
            channels: channels,
            sampleRate: sampleRate,
            bytesPerSample: bytesPerSample,
            blockAlign: frameBytes
        )
    }

    private static func encodingName(_ tag: Int) -> String {
        let names = [2: "ADPCM", 6: "A-law", 7: "mu-law", 0x11: "IMA ADPCM", 0x55: "MP3"]
        let hex = String(tag, radix: 16, uppercase: true)
        return names[tag].map { "\($0) (0x\(hex))" } ?? "0x\(hex)"
    }

    // MARK: - Bytes

    /// Takes `count` bytes, joining what is pending with the input; nil (keeping them pending) if too few.
    private func take(_ count: Int, from input: inout Slice<UnsafeRawBufferPointer>) -> [UInt8]? {
        let needed = count - pending.count
        if input.count < needed {
            pending.append(contentsOf: input)
            input = input.dropFirst(input.count)
            return nil
        }
        var result = pending
        result.append(contentsOf: input.prefix(needed))
        input = input.dropFirst(needed)
        pending.removeAll(keepingCapacity: true)
        return result
    }

    private func flush(_ samples: [Int16], into output: [DecodedAudio]) -> [DecodedAudio] {
        output + (samples.isEmpty ? [] : [.samples(samples)])
    }

    private var announced: Layout?

    /// Converts whole frames of `piece` (with any partial frame left from the last feed) to 16-bit.
    private func convert(_ piece: Slice<UnsafeRawBufferPointer>, layout: Layout, into samples: inout [Int16]) {
        var bytes = pending
        bytes.append(contentsOf: piece)
        let frames = bytes.count / layout.blockAlign
        let used = frames * layout.blockAlign
        samples.reserveCapacity(samples.count + frames * layout.channels)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < used {
                samples.append(Self.sample(raw, at: offset, encoding: layout.encoding))
                offset += layout.bytesPerSample
            }
        }
        pending = Array(bytes[used...])
    }

    private static func sample(_ raw: UnsafeRawBufferPointer, at offset: Int, encoding: Encoding) -> Int16 {
        switch encoding {
        case .unsigned8:
            return Int16(Int(raw[offset]) - 128) << 8
        case .aLaw:
            return aLawTable[Int(raw[offset])]
        case .muLaw:
            return muLawTable[Int(raw[offset])]
        case .signed16:
            return Int16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int16.self))
        case .signed24:
            let value =
                Int32(raw[offset]) << 8 | Int32(raw[offset + 1]) << 16 | Int32(Int8(bitPattern: raw[offset + 2])) << 24
            return wideTo16(value)
        case .signed32:
            return wideTo16(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
        case .float32:
            let bits = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            return floatToInt16(Double(Float(bitPattern: bits)))
        case .float64:
            let bits = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            return floatToInt16(Double(bitPattern: bits))
        }
    }

    // G.711 expanded to 16-bit linear as the reference decoder (Sun's g711.c, which sox's tables come from) does.

    /// A-law byte to 16-bit linear.
    static let aLawTable: [Int16] = (0..<256).map { byte in
        let value = Int(byte) ^ 0x55
        var magnitude = (value & 0x0F) << 4
        let segment = (value & 0x70) >> 4
        switch segment {
        case 0: magnitude += 8
        case 1: magnitude += 0x108
        default: magnitude = (magnitude + 0x108) << (segment - 1)
        }
        return Int16(value & 0x80 != 0 ? magnitude : -magnitude)
    }

    /// mu-law byte to 16-bit linear.
    static let muLawTable: [Int16] = (0..<256).map { byte in
        let value = ~Int(byte) & 0xFF
        let magnitude = (((value & 0x0F) << 3) + 0x84) << ((value & 0x70) >> 4)
        return Int16(value & 0x80 != 0 ? 0x84 - magnitude : magnitude - 0x84)
    }

    // Deeper samples become 16-bit as `sox -D` (no dither) makes them, so the PCM equals sox's: sox holds every
    // sample as a 32-bit integer and rounds that to 16 bits half up, clipping at the top (`SOX_SAMPLE_TO_SIGNED`
    // in sox.h). Rounding, not truncation: truncating lowers every sample by half a step on average.

    /// A sample scaled to the full 32-bit range (24-bit samples shifted up by 8) to 16-bit, rounded half up.
    static func wideTo16(_ value: Int32) -> Int16 {
        if value > Int32.max - 0x8000 { return .max }
        return Int16(truncatingIfNeeded: (value + 0x8000) >> 16)
    }

    /// -1...1 to 16-bit as sox does it: to its 32-bit sample (rounded half away from zero, clipped), then
    /// `wideTo16`. NaN becomes silence.
    static func floatToInt16(_ value: Double) -> Int16 {
        guard !value.isNaN else { return 0 }
        let scaled = value * 2_147_483_648.0
        let wide: Int32
        if scaled < 0 {
            wide = scaled <= -2_147_483_648.5 ? .min : Int32(scaled - 0.5)
        } else {
            wide = scaled >= 2_147_483_647.5 ? .max : Int32(scaled + 0.5)
        }
        return wideTo16(wide)
    }

    private func readUInt16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }
}
