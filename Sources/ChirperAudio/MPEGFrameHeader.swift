/// The four bytes that open an MPEG audio frame (Layer I, II or III; MPEG-1, 2 or 2.5), and the size of the
/// frame they announce.
struct MPEGFrameHeader: Hashable {
    /// The header as one big-endian word.
    let word: UInt32

    /// Parses a header; nil for anything libmpg123's `head_check` refuses (no sync, reserved version, layer
    /// or sample rate, bit rate index 15).
    init?(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        guard b0 == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
        let version = (b1 >> 3) & 0x3  // 0: MPEG-2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
        let layer = (b1 >> 1) & 0x3  // 1: III, 2: II, 3: I, 0: reserved
        guard version != 1, layer != 0, b2 >> 4 != 0xF, (b2 >> 2) & 0x3 != 3 else { return nil }
        word = UInt32(b0) << 24 | UInt32(b1) << 16 | UInt32(b2) << 8 | UInt32(b3)
    }

    init?(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        self.init(bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
    }

    private var versionBits: UInt32 { (word >> 19) & 0x3 }
    private var layer: Int { 4 - Int((word >> 17) & 0x3) }
    private var bitrateIndex: Int { Int((word >> 12) & 0xF) }
    private var padding: Int { Int((word >> 9) & 0x1) }

    /// Free format: the bit rate is not in the header, so neither is the frame size.
    var isFreeFormat: Bool { bitrateIndex == 0 }

    /// Frames per second × samples per frame: the sample rate in Hz.
    var sampleRate: Int {
        let base = [44100, 48000, 32000][Int((word >> 10) & 0x3)]
        switch versionBits {
        case 3: return base
        case 2: return base / 2
        default: return base / 4
        }
    }

    /// Whether `other` can follow this header in one stream, by libmpg123's rule (`head_compatible`): the same
    /// version, layer and sample rate (bit rate, padding, CRC and channel mode may vary).
    func isCompatible(with other: MPEGFrameHeader) -> Bool {
        let mask: UInt32 = 0xFFFE_0C00
        return word & mask == other.word & mask
    }

    /// The frame's size in bytes, header included; nil for free format.
    var frameSize: Int? {
        guard !isFreeFormat else { return nil }
        let mpeg1 = versionBits == 3
        let kbps: [Int]
        switch (mpeg1, layer) {
        case (true, 1): kbps = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (true, 2): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (true, _): kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (false, 1): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        case (false, _): kbps = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        let bitrate = kbps[bitrateIndex] * 1000
        switch layer {
        case 1: return (12 * bitrate / sampleRate + padding) * 4
        case 2: return 144 * bitrate / sampleRate + padding
        default: return (mpeg1 ? 144 : 72) * bitrate / sampleRate + padding
        }
    }
}

/// Decides whether a run of MPEG frames starts at an offset: the test for the first frame after junk.
///
/// libmpg123 accepts a header whose next header (one frame on) is compatible. Junk (or a WAV's samples, or
/// random bytes) holds a plausible header about once in 5,000 bytes and a compatible pair about once in 10⁹;
/// three headers in a row, as asked here, make a false start vanishingly rare, and a real stream always has
/// them (or ends exactly after its last frame, which also counts).
enum MPEGFrameChain {
    enum Outcome { case found, absent, needMore }

    /// Headers in a row that make a stream.
    static let length = 3

    /// The largest free-format frame searched for (640 kb/s at 8 kHz, MPEG-2.5 Layer III, is 5,760 bytes).
    static let largestFreeFrame = 8192

    static func check(_ bytes: [UInt8], at start: Int, isComplete: Bool) -> Outcome {
        if start + 4 > bytes.count { return isComplete ? .absent : .needMore }
        guard let first = MPEGFrameHeader(bytes, at: start) else { return .absent }
        var offset = start
        var header = first
        var freeSize: Int?
        for _ in 1..<length {
            let size: Int
            if let fixed = header.frameSize {
                size = fixed
            } else if let known = freeSize {
                size = known
            } else {
                switch nextFreeFormatHeader(bytes, after: offset, like: first, isComplete: isComplete) {
                case .some(.some(let next)): size = next - offset
                case .some(.none): return .absent
                case .none: return .needMore
                }
                freeSize = size
            }
            guard size > 4 else { return .absent }
            let next = offset + size
            if next == bytes.count && isComplete { return .found }  // a short stream's last frame
            if next + 4 > bytes.count { return isComplete ? .absent : .needMore }
            // Free-format frames differ by their padding byte.
            let candidates = header.isFreeFormat ? [next, next + 1, next - 1] : [next]
            guard
                let (found, at) = candidates.lazy.compactMap({ at in
                    MPEGFrameHeader(bytes, at: at).map { ($0, at) }
                }).first(where: { $0.0.isCompatible(with: first) })
            else { return .absent }
            header = found
            offset = at
        }
        return .found
    }

    /// The offset of the next compatible free-format header after the one at `offset`: `.some(nil)` if there
    /// is none within `largestFreeFrame`, nil if more bytes are needed to say.
    private static func nextFreeFormatHeader(
        _ bytes: [UInt8], after offset: Int, like first: MPEGFrameHeader, isComplete: Bool
    ) -> Int?? {
        let end = offset + largestFreeFrame
        // Searched once, when the whole window is in: searching again at every byte fed would be quadratic.
        if !isComplete && bytes.count < end + 4 { return nil }
        let last = min(end - 1, bytes.count - 4)
        guard offset + 5 < last else { return .some(nil) }
        // The same version, layer and rate, and free format (bit rate index 0): compared as masked words, in
        // place, since this runs over up to 8 KiB for every free-format header that junk happens to hold.
        let mask: UInt32 = 0xFFFE_FC00
        let wanted = first.word & mask
        let found = bytes.withUnsafeBufferPointer { buffer -> Int? in
            for candidate in (offset + 5)...last where buffer[candidate] == 0xFF {
                let word =
                    UInt32(buffer[candidate]) << 24 | UInt32(buffer[candidate + 1]) << 16
                    | UInt32(buffer[candidate + 2]) << 8 | UInt32(buffer[candidate + 3])
                if word & mask == wanted { return candidate }
            }
            return nil
        }
        return .some(found)
    }
}
