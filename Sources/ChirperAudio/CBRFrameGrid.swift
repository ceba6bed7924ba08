import CMPG123

/// Where the frames of a constant-bit-rate MPEG stream start: frame k at `anchor + (k − anchor frame) ×
/// frameSize`, with a frame size that is not a whole number of bytes (417.96 at 128 kbit/s and 44.1 kHz), so that
/// the encoder pads one frame in a few with a byte and the k-th frame starts within a byte of that line. The byte
/// where a frame starts therefore names its number exactly.
struct CBRFrameGrid {
    /// A frame whose start is known: its number (counted from the first frame of audio, after an Info
    /// header's frame), its byte, and its header (as one big-endian word).
    typealias Anchor = (frame: Int, byte: Int64, header: UInt32)

    let anchor: Anchor
    /// The mean frame size in bytes: slot size × samples per frame / 8 × bit rate / sample rate.
    let frameSize: Double

    /// The grid of the stream `info` describes; nil for free format (no bit rate in the header).
    init?(info: mpg123_frameinfo2, anchor: Anchor) {
        guard info.bitrate > 0, info.rate > 0 else { return nil }
        let bitsPerSecond = Double(info.bitrate) * 1000
        // Bytes per frame for one bit per second at one hertz: samples per frame / 8.
        let factor: Double
        if info.layer == 1 {
            factor = 48  // 384 samples in 4-byte slots
        } else if info.layer == 3 && info.version != Int32(MPG123_1_0.rawValue) {
            factor = 72  // MPEG-2 and 2.5 Layer III: 576 samples
        } else {
            factor = 144  // 1152 samples
        }
        self.anchor = anchor
        self.frameSize = factor * bitsPerSecond / Double(info.rate)
    }

    /// A frame starts on its line rounded down, or a byte after it where an encoder pads differently.
    static let slack: Int64 = 1

    /// A byte at most `slack` before `frame` starts: the decoder is fed from there, and the bytes before the
    /// header (`headerStart`) are dropped.
    func resyncByte(forFrame frame: Int) -> Int64 {
        let line = Double(anchor.byte) + Double(frame - anchor.frame) * frameSize
        return max(anchor.byte, Int64(line.rounded(.down)) - Self.slack)
    }

    /// Where a header of this stream (its version, layer and rate) starts within the first `2 × slack + 1`
    /// bytes of `bytes`, looked for first where the line says: nil while more bytes are needed to tell, 0 when
    /// there is none (the decoder then resyncs by itself).
    func headerStart(in bytes: [UInt8]) -> Int? {
        let window = Int(2 * Self.slack)
        guard bytes.count >= window + 4 else { return nil }
        let stream = MPEGFrameHeader(
            UInt8(anchor.header >> 24), UInt8(anchor.header >> 16 & 0xFF), UInt8(anchor.header >> 8 & 0xFF),
            UInt8(anchor.header & 0xFF))
        let order = [Int(Self.slack)] + (0...window).filter { $0 != Int(Self.slack) }
        return order.first { at in
            guard let found = MPEGFrameHeader(bytes, at: at) else { return false }
            return stream.map(found.isCompatible) ?? true
        } ?? 0
    }
}

/// What the frames decoded in order from the start showed: where the first of them starts (a grid's anchor) and
/// whether they shared one bit rate. Frames decoded after a jump are not counted.
struct StreamSurvey {
    /// Frames without an Info header that must share one rate before the stream is taken for CBR (a VBR
    /// stream's rate moves within a second; a second of MPEG-1 audio is 38 frames).
    static let enough = 38

    /// Still counting: no fuzzy seek yet, so frames come in order from the start.
    private(set) var counting = true
    private(set) var anchor: CBRFrameGrid.Anchor?
    private var rate: Int?
    private var count = 0
    private var varies = false

    /// A frame was decoded; `anchor` is asked for the first one only.
    mutating func frameDecoded(bitRate: Int, anchor first: () -> CBRFrameGrid.Anchor) {
        guard counting else { return }
        if anchor == nil { anchor = first() }
        count += 1
        if let rate, rate != bitRate { varies = true }
        rate = rate ?? bitRate
    }

    /// The decoder jumped: later frames are not in order from the start.
    mutating func jumped() { counting = false }

    /// The stream's frame grid, unless its frames were seen to change rate (or none was decoded).
    func grid(_ info: mpg123_frameinfo2) -> CBRFrameGrid? {
        guard !varies, let anchor else { return nil }
        return CBRFrameGrid(info: info, anchor: anchor)
    }

    /// One rate so far, and either an Info header says the stream is CBR, or enough frames had that rate.
    func constant(withInfoHeader: Bool) -> Bool {
        !varies && (withInfoHeader || count >= Self.enough)
    }
}
