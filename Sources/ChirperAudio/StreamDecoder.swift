import ChirperCore

/// Decodes a recording's bytes, whatever their format and however they are split: sniffs the first
/// bytes, then hands the stream to the MP3, WAV or FLAC decoder.
///
/// ID3v2 tags in front of an MP3 are skipped here, as they stream past, so a huge tag (cover art) never
/// sits in memory. The output does not depend on how the input is chunked. Not thread-safe.
public final class StreamDecoder {
    private enum Stage {
        /// Collecting the first bytes (in `sniffed`) to decide the format.
        case sniffing
        /// MP3: looking at the next 10 bytes for an ID3v2 tag header.
        case id3Header([UInt8])
        /// MP3: skipping the rest of an ID3v2 tag.
        case id3Skip(remaining: Int)
        case mp3(MP3Decoder)
        case wav(WAVDecoder)
        case flac(FLACDecoder)
    }

    private var stage: Stage = .sniffing
    /// The body's first bytes while sniffing: at most `AudioSniffer.resyncLimit` plus a few frames.
    private var sniffed: [UInt8] = []
    private var scanner = AudioSniffer.Scanner()
    private let expectedLength: Int64?
    private var bytesSeen: Int64 = 0
    private var tagBytes: Int64 = 0

    /// The format, once sniffed.
    public private(set) var container: AudioContainer?

    /// Whether MP3 is decoded with both channels mixed into one (see `MP3Decoder(mixToMono:)`).
    private let mixToMono: Bool
    /// The channel of a WAV or FLAC file played alone (counted from 1); nil for the default (`ChannelChoice`).
    public let channel: Int?

    /// - Parameters:
    ///   - expectedLength: the body's length if known (used to estimate an MP3's duration, and to cut a WAV's
    ///     duration to what the file holds).
    ///   - mixToMono: decode MP3 mixed to one channel (for analysis; WAV and FLAC are left as they are).
    ///   - channel: the channel of a WAV or FLAC file to play alone, counted from 1; nil plays mono and stereo
    ///     whole and the first of more channels.
    public init(expectedLength: Int64? = nil, mixToMono: Bool = false, channel: Int? = nil) {
        self.expectedLength = expectedLength
        self.mixToMono = mixToMono
        self.channel = channel
    }

    /// The channels played (which one, of how many), once a WAV's or FLAC's format is read; nil for MP3.
    public var channelChoice: ChannelChoice? {
        switch stage {
        case .wav(let decoder): decoder.channelChoice
        case .flac(let decoder): decoder.channelChoice
        case .sniffing, .id3Header, .id3Skip, .mp3: nil
        }
    }

    /// The damaged frames of a FLAC stream skipped so far, if any (said once, as its `notice`).
    public var damage: FLACDamage? {
        if case .flac(let decoder) = stage { return decoder.damage }
        return nil
    }

    /// The input a FLAC decoder holds (behind what it decoded, and not decoded yet): for diagnostics and tests.
    public var heldBytes: Int {
        if case .flac(let decoder) = stage { return decoder.heldBytes }
        return 0
    }

    /// The recording's length in seconds, once the decoder knows it.
    public var duration: Double? {
        switch stage {
        case .mp3(let decoder): decoder.duration
        case .wav(let decoder): decoder.duration
        case .flac(let decoder): decoder.duration
        case .sniffing, .id3Header, .id3Skip: nil
        }
    }

    /// Whether `duration` is exact: a WAV's, a FLAC's from STREAMINFO, or an MP3's from its Info/Xing header (not
    /// estimated).
    public var durationIsExact: Bool {
        switch stage {
        case .mp3(let decoder): decoder.durationIsExact
        case .flac(let decoder): decoder.durationIsExact
        case .wav: true
        case .sniffing, .id3Header, .id3Skip: false
        }
    }

    /// Feeds the next bytes; returns the formats and samples they complete.
    public func feed(_ bytes: [UInt8]) throws -> [DecodedAudio] {
        try bytes.withUnsafeBytes { try feed($0) }
    }

    /// Feeds the next bytes; returns the formats and samples they complete.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws -> [DecodedAudio] {
        bytesSeen += Int64(bytes.count)
        var output: [DecodedAudio] = []
        try process(bytes[...], into: &output)
        return output
    }

    /// Call at the end of the body: decides the format of a very short body, and reports a body that
    /// is not audio or was cut short.
    public func finish() throws -> [DecodedAudio] {
        var output: [DecodedAudio] = []
        switch stage {
        case .sniffing:
            switch scanner.verdict(sniffed, isComplete: true) {
            case .container(let container):
                // Frames after junk, found only now that the body ended: decode them.
                try begin(container, into: &output)
                return output + (try finish())
            case .needMore:
                // Too short to hold any audio; the machine reports "no audio".
                return []
            case .unsupported(let error):
                throw error
            }
        case .id3Header(let pending):
            // Fewer than 10 bytes after the tags: let the decoder have them.
            if !pending.isEmpty {
                let decoder = try startMP3()
                output += try pending.withUnsafeBytes { try decoder.feed($0) }
                try decoder.finish()
            }
        case .id3Skip:
            break
        case .mp3(let decoder):
            try decoder.finish()
        case .wav(let decoder):
            try decoder.finish()
        case .flac(let decoder):
            output += try decoder.finish()
        }
        return output
    }

    private func process(_ input: Slice<UnsafeRawBufferPointer>, into output: inout [DecodedAudio]) throws {
        var input = input
        while !input.isEmpty {
            switch stage {
            case .sniffing:
                // Bounded: the scanner decides within `AudioSniffer.resyncLimit` bytes and a few frames.
                sniffed.append(contentsOf: input)
                switch scanner.verdict(sniffed, isComplete: false) {
                case .needMore:
                    break
                case .unsupported(let error):
                    throw error
                case .container(let container):
                    try begin(container, into: &output)
                }
                return
            case .id3Header(var header):
                let needed = 10 - header.count
                header.append(contentsOf: input.prefix(needed))
                input = input.dropFirst(min(needed, input.count))
                if header.count < 10 {
                    stage = .id3Header(header)
                    return
                }
                if let tagSize = Self.id3TagSize(header) {
                    tagBytes += Int64(tagSize)
                    stage = .id3Skip(remaining: tagSize - 10)
                } else {
                    let decoder = try startMP3()
                    output += try header.withUnsafeBytes { try decoder.feed($0) }
                }
            case .id3Skip(let remaining):
                let skipped = min(remaining, input.count)
                input = input.dropFirst(skipped)
                stage = skipped < remaining ? .id3Skip(remaining: remaining - skipped) : .id3Header([])
            case .mp3(let decoder):
                output += try decoder.feed(UnsafeRawBufferPointer(rebasing: input))
                return
            case .wav(let decoder):
                output += try decoder.feed(UnsafeRawBufferPointer(rebasing: input))
                return
            case .flac(let decoder):
                output += try decoder.feed(UnsafeRawBufferPointer(rebasing: input))
                return
            }
        }
    }

    /// Leaves sniffing: the decoder for `container` gets every byte sniffed so far (junk before an MP3's first
    /// frame included: libmpg123 skips it itself, exactly as `mpg123` does).
    private func begin(_ container: AudioContainer, into output: inout [DecodedAudio]) throws {
        self.container = container
        switch container {
        case .mp3: stage = .id3Header([])
        case .wav: stage = .wav(WAVDecoder(channel: channel, streamLength: expectedLength))
        case .flac: stage = .flac(try FLACDecoder(channel: channel))
        }
        let bytes = sniffed
        sniffed = []
        try bytes.withUnsafeBytes { try process($0[...], into: &output) }
    }

    private func startMP3() throws -> MP3Decoder {
        let length = expectedLength.map { max(0, $0 - tagBytes) }
        let decoder = try MP3Decoder(streamLength: length, mixToMono: mixToMono)
        stage = .mp3(decoder)
        return decoder
    }

    /// The whole size of an ID3v2 tag (header, body, footer) if `header` opens one.
    static func id3TagSize(_ header: [UInt8]) -> Int? {
        guard header.count >= 10, header.starts(with: Array("ID3".utf8)),
            header[3] != 0xFF, header[4] != 0xFF,
            header[6] & 0x80 == 0, header[7] & 0x80 == 0, header[8] & 0x80 == 0, header[9] & 0x80 == 0
        else { return nil }
        let size = Int(header[6]) << 21 | Int(header[7]) << 14 | Int(header[8]) << 7 | Int(header[9])
        let footer = header[5] & 0x10 != 0 ? 10 : 0
        return 10 + size + footer
    }
}

// MARK: - Seeking

/// Where to feed a `StreamDecoder` from after a seek, in body bytes (what `Range: bytes=` counts).
public struct StreamSeekPoint: Sendable, Hashable {
    /// The body byte to feed from next.
    public var bodyOffset: Int64
    /// The frame the first output will be (exact for WAV and for MP3 inside what was fed).
    public var frame: Int
    /// False when `frame` is libmpg123's estimate (a fuzzy MP3 seek).
    public var accurate: Bool
}

extension StreamDecoder {
    /// Whether the body is a WAV file (seek with `WAVDataLocation` and a fresh decoder).
    public var isWAV: Bool {
        if case .wav = stage { return true }
        return false
    }

    /// Whether the body is a FLAC stream (seek with `seekFLAC`).
    public var isFLAC: Bool {
        if case .flac = stage { return true }
        return false
    }

    /// Points a FLAC stream at `frame`: with libFLAC's seek in `localFile` (the whole recording on disk), or
    /// else by decoding from the first byte again and dropping what comes before. Nil before the FLAC decoder
    /// exists. The output after the point starts at `frame`, exactly.
    public func seekFLAC(toFrame frame: Int, localFile: String?) throws -> StreamSeekPoint? {
        guard case .flac = stage else { return nil }
        if let localFile, let landing = try FLACDecoder.seeking(file: localFile, toFrame: frame, channel: channel) {
            stage = .flac(landing.decoder)
            bytesSeen = landing.byteOffset
            return StreamSeekPoint(bodyOffset: landing.byteOffset, frame: landing.frame, accurate: true)
        }
        stage = .flac(try FLACDecoder.restarting(atFrame: frame, channel: channel))
        bytesSeen = 0
        return StreamSeekPoint(bodyOffset: 0, frame: max(0, frame), accurate: true)
    }

    /// Body bytes fed so far: the next byte of the current body is this offset.
    public var bodyBytesFed: Int64 { bytesSeen }

    /// Prepares an MP3 seek to `frame`; nil before the MP3 decoder exists (feed on, or seek from 0) or for
    /// WAV (use `WAVDataLocation` and a fresh decoder: a WAV seek is pure arithmetic). The offset counts the
    /// ID3v2 tags skipped in front, so it is a body offset for `Range`.
    public func seekMP3(toFrame frame: Int) throws -> StreamSeekPoint? {
        guard case .mp3(let decoder) = stage else { return nil }
        let point = try decoder.seek(toFrame: frame)
        // Bytes fed again from here are counted again from the body offset.
        bytesSeen = tagBytes + point.inputOffset
        return StreamSeekPoint(bodyOffset: tagBytes + point.inputOffset, frame: point.frame, accurate: point.accurate)
    }
}
