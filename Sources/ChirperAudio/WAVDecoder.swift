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
/// A-law and mu-law, and WAVE_FORMAT_EXTENSIBLE with any of these subformats; 8 to 384 kHz; 1 to 8 channels, of
/// which mono and stereo are played whole and more are played one channel at a time (`ChannelChoice`: the
/// first unless another is asked for). The `fmt ` chunk is read by `WAVSampleLayout`, as the header reader
/// reads it. Chunks may come in any order
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
        /// The channels played: all of them, or one alone.
        var choice: ChannelChoice
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
    /// The channel asked for (counted from 1), nil for the default.
    private let requestedChannel: Int?
    /// The channels played, once the `fmt ` chunk is read.
    public var channelChoice: ChannelChoice? { layout?.choice }

    /// - Parameter channel: the channel to play alone (counted from 1); nil plays mono and stereo whole and
    ///   the first of more channels.
    ///   - streamLength: the bytes the whole stream holds, if known: a `data` chunk that claims more (a
    ///     recording cut short) lasts only as long as what is there.
    public init(channel: Int? = nil, streamLength: Int64? = nil) {
        requestedChannel = channel
        self.streamLength = streamLength
    }

    private let streamLength: Int64?
    /// Bytes fed before the current feed.
    private var fedBefore: Int64 = 0

    /// Feeds the next bytes and returns what they decode to.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(WAVDecoderError) -> [DecodedAudio] {
        defer { fedBefore += Int64(bytes.count) }
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
                try beginChunk(id: id, size: size, at: fedBefore + Int64(bytes.count - input.count))
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
                        .format(
                            PCMFormat(sampleRate: layout.sampleRate, channels: layout.choice.outputChannels),
                            duration: duration))
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

    /// `start`: the stream offset of the chunk's body.
    private func beginChunk(id: String, size: Int, at start: Int64) throws(WAVDecoderError) {
        let pad = size % 2
        switch id {
        case "fmt ":
            guard size >= 16, size <= 4096 else { throw WAVDecoderError("its fmt chunk has a bad size (\(size))") }
            stage = .format(size: size, pad: pad)
        case "data":
            guard let layout else { throw WAVDecoderError("the data chunk comes before the fmt chunk") }
            let unknown = size == 0 || size == 0xFFFF_FFFF
            let present = streamLength.map { Int(max(0, $0 - start)) }
            if let length = unknown ? present : min(size, present ?? size) {
                duration = Double(length / layout.blockAlign) / Double(layout.sampleRate)
            }
            stage = .data(remaining: unknown ? nil : size, pad: unknown ? 0 : pad)
        default:
            stage = .skip(remaining: size + pad)
        }
    }

    private func parseFormat(_ body: [UInt8]) throws(WAVDecoderError) -> Layout {
        let parsed: WAVSampleLayout
        switch WAVSampleLayout.parse(body) {
        case .success(let layout): parsed = layout
        case .failure(let problem): throw WAVDecoderError(Self.reason(problem))
        }
        let encoding: Encoding
        switch parsed.encoding {
        case .unsignedInteger: encoding = .unsigned8
        case .signedInteger(16): encoding = .signed16
        case .signedInteger(24): encoding = .signed24
        case .signedInteger: encoding = .signed32
        case .float(32): encoding = .float32
        case .float: encoding = .float64
        case .aLaw: encoding = .aLaw
        case .muLaw: encoding = .muLaw
        case .flac, .mpeg: throw WAVDecoderError("its fmt chunk names a compressed encoding")
        }
        let choice: ChannelChoice
        do {
            choice = try ChannelChoice.choose(requested: requestedChannel, fileChannels: parsed.channels)
        } catch {
            throw WAVDecoderError(error.userMessage)
        }
        // The frame size follows from the sample layout; a block align that disagrees is ignored.
        return Layout(
            encoding: encoding,
            channels: parsed.channels,
            sampleRate: parsed.sampleRate,
            bytesPerSample: parsed.bytesPerSample,
            blockAlign: parsed.frameBytes,
            choice: choice
        )
    }

    /// The header reader's words for a layout that is not played, without its advice to convert (the
    /// decoder's own line says what to do).
    private static func reason(_ problem: AudioFileProblem) -> String {
        switch problem.reason {
        case .unsupported(let what), .damaged(let what), .otherFormat(let what), .unrecognised(let what): what
        }
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
        var piece = piece
        if !pending.isEmpty {
            // The partial frame left from the last feed, completed from this one.
            let needed = layout.blockAlign - pending.count
            guard piece.count >= needed else {
                pending.append(contentsOf: piece)
                return
            }
            let frame = pending + piece.prefix(needed)
            piece = piece.dropFirst(needed)
            pending.removeAll(keepingCapacity: true)
            frame.withUnsafeBytes { convertFrames($0, layout: layout, into: &samples) }
        }
        let used = piece.count / layout.blockAlign * layout.blockAlign
        convertFrames(UnsafeRawBufferPointer(rebasing: piece.prefix(used)), layout: layout, into: &samples)
        pending.append(contentsOf: piece.dropFirst(used))
    }

    /// Converts `raw`, whole frames, to 16-bit.
    private func convertFrames(_ raw: UnsafeRawBufferPointer, layout: Layout, into samples: inout [Int16]) {
        let used = raw.count
        guard used > 0 else { return }
        let frames = used / layout.blockAlign
        #if _endian(little)
            if layout.encoding == .signed16, layout.choice.played == nil, let source = raw.baseAddress {
                // 16-bit samples of every channel are the output as they are: copied, not converted one by one.
                let count = used / 2
                let copied = [Int16](unsafeUninitializedCapacity: count) { buffer, initialized in
                    UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: source, byteCount: count * 2)
                    initialized = count
                }
                if samples.isEmpty { samples = copied } else { samples += copied }
                return
            }
        #endif
        samples.reserveCapacity(samples.count + frames * layout.choice.outputChannels)
        if let played = layout.choice.played {
            // One channel alone: its sample of every frame.
            var offset = (played - 1) * layout.bytesPerSample
            while offset < used {
                samples.append(Self.sample(raw, at: offset, encoding: layout.encoding))
                offset += layout.blockAlign
            }
            return
        }
        var offset = 0
        while offset < used {
            samples.append(Self.sample(raw, at: offset, encoding: layout.encoding))
            offset += layout.bytesPerSample
        }
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

    private func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }
}
