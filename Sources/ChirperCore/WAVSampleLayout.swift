/// The sample layout a WAV file's `fmt ` chunk states, parsed once for both readers of WAV files: the header
/// reader that lists a file (`AudioFileHeaderReader`) and the decoder that plays it.
public struct WAVSampleLayout: Sendable, Hashable {
    public var encoding: AudioFileHeader.Encoding
    public var channels: Int
    public var sampleRate: Int
    /// Significant bits per sample, as `soxi` counts them.
    public var precision: Int
    /// Bytes of one sample instant, all channels.
    public var frameBytes: Int
    /// WAVE_FORMAT_EXTENSIBLE's speaker positions, when stated.
    public var channelMask: UInt32?

    /// Bytes of one sample of one channel.
    public var bytesPerSample: Int { channels > 0 ? frameBytes / channels : 0 }

    /// Sample rates and channel counts chirper-play plays: 8 kHz speech to 384 kHz bat detectors, mono to 8
    /// channels (an array of microphones).
    public static let sampleRates = 8000...384_000
    public static let channelCounts = 1...8

    /// The layout of a `fmt ` body, or why it is not played.
    public static func parse(_ body: [UInt8]) -> Result<WAVSampleLayout, AudioFileProblem> {
        guard body.count >= 16 else {
            return .failure(AudioFileProblem(.damaged("its fmt chunk is too short (\(body.count) bytes)")))
        }
        var tag = HeaderBytes.le16(body, 0)
        let channels = HeaderBytes.le16(body, 2)
        let rate = HeaderBytes.le32(body, 4)
        let bits = HeaderBytes.le16(body, 14)
        var valid = bits
        var mask: UInt32? = nil
        if tag == 0xFFFE {  // WAVE_FORMAT_EXTENSIBLE: valid bits, channel mask, then the real tag opens the GUID
            guard body.count >= 40 else {
                return .failure(AudioFileProblem(.damaged("its extensible fmt chunk is too short")))
            }
            let stated = HeaderBytes.le16(body, 18)
            valid = stated > 0 && stated <= bits ? stated : bits
            mask = UInt32(HeaderBytes.le32(body, 20))
            tag = HeaderBytes.le16(body, 24)
        }
        let encoding: AudioFileHeader.Encoding
        var precision = valid
        switch (tag, bits) {
        case (1, 8): encoding = .unsignedInteger(bits: 8)
        case (1, 16), (1, 24), (1, 32): encoding = .signedInteger(bits: bits)
        case (3, 32):
            encoding = .float(bits: 32)
            precision = 25  // sign and 24 bits of mantissa, as soxi counts them
        case (3, 64):
            encoding = .float(bits: 64)
            precision = 54  // as soxi counts a double
        case (6, 8):
            encoding = .aLaw
            precision = 13
        case (7, 8):
            encoding = .muLaw
            precision = 14
        case (1, _), (3, _), (6, _), (7, _):
            let kind = [1: "integer", 3: "floating-point", 6: "A-law", 7: "u-law"][tag] ?? ""
            return .failure(AudioFileProblem(.unsupported("\(bits)-bit \(kind) samples are not read")))
        default:
            return .failure(AudioFileProblem(.unsupported("\(encodingName(tag)) samples are not read")))
        }
        guard channels > 0 else { return .failure(AudioFileProblem(.damaged("its fmt chunk says 0 channels"))) }
        guard channelCounts.contains(channels) else {
            return .failure(AudioFileProblem(.unsupported("\(channels) channels are not read (1 to 8 are)")))
        }
        guard rate > 0 else { return .failure(AudioFileProblem(.damaged("its fmt chunk says a sample rate of 0"))) }
        guard sampleRates.contains(rate) else {
            return .failure(
                AudioFileProblem(.unsupported("a sample rate of \(rate) Hz is not read (8 to 384 kHz are)")))
        }
        return .success(
            WAVSampleLayout(
                encoding: encoding, channels: channels, sampleRate: rate, precision: precision,
                frameBytes: channels * bits / 8, channelMask: mask))
    }

    private static func encodingName(_ tag: Int) -> String {
        let names = [2: "ADPCM", 0x11: "IMA ADPCM", 0x31: "GSM 6.10", 0x50: "MPEG", 0x55: "MP3", 0x161: "WMA"]
        let hex = "0x" + String(tag, radix: 16, uppercase: true)
        return names[tag].map { "\($0) (\(hex))" } ?? "encoding \(hex)"
    }
}
