/// How long an MP3 file lasts, from its first frame alone, as a player's header reader finds it: an encoder's
/// Xing/Info tag (with LAME's encoder delay and padding, the length to the sample) or Fraunhofer's VBRI tag
/// counts the frames; a file with neither is taken as constant-bitrate, its length its audio's bytes over the
/// bitrate. A folder of MP3s is then listed with lengths without decoding a frame.
enum MP3Length {
    /// Bytes from the first frame's start that hold any of the tags (LAME's delay and padding end at byte 180).
    static let lookahead = 192

    /// Bytes at the end of the file that may hold tags that are not audio: an ID3v1 tag (128) and an APEv2
    /// footer (32) before it.
    static let tailLength = 160

    /// The sample frames a Xing, Info or VBRI tag in `bytes` (the first frame's start on) counts; nil where
    /// there is none.
    static func counted(_ bytes: [UInt8], frame: AudioFileFormats.MPEGFrame) -> Int64? {
        xing(bytes, frame: frame) ?? vbri(bytes, frame: frame)
    }

    /// The sample frames of a constant-bitrate stream of `audioLength` bytes, less the tags that end the file
    /// (`tail`, its last bytes); nil for a free-format stream, whose bitrate the header does not give.
    static func estimated(frame: AudioFileFormats.MPEGFrame, audioLength: Int64, tail: [UInt8]) -> Int64? {
        let audio = audioLength - trailingTags(tail)
        guard frame.bitrate > 0, audio > 0 else { return nil }
        let seconds = Double(audio) * 8 / Double(frame.bitrate)
        return Int64((seconds * Double(frame.sampleRate)).rounded())
    }

    /// Bytes of ID3v1 and APEv2 tags at the end of `tail`, the file's last bytes.
    static func trailingTags(_ tail: [UInt8]) -> Int64 {
        var end = tail.count
        if end >= 128, HeaderBytes.fourCC(tail, end - 128).hasPrefix("TAG") { end -= 128 }
        guard end >= 32, tail[end - 32..<end - 24].elementsEqual("APETAGEX".utf8) else {
            return Int64(tail.count - end)
        }
        // The footer's size counts the items and the footer; a header, when flagged, is 32 bytes more.
        let size = Int64(HeaderBytes.le32(Array(tail[end - 20..<end - 16]), 0))
        let flags = HeaderBytes.le32(Array(tail[end - 12..<end - 8]), 0)
        return Int64(tail.count - end) + size + (flags & 0x8000_0000 != 0 ? 32 : 0)
    }

    /// A Xing or Info tag's frame count (the tag's own frame is not audio and not counted), less LAME's encoder
    /// delay and padding where its tag follows.
    private static func xing(_ bytes: [UInt8], frame: AudioFileFormats.MPEGFrame) -> Int64? {
        guard frame.layer == 3 else { return nil }
        let at = 4 + frame.sideInfoLength
        guard bytes.count >= at + 8 else { return nil }
        let id = HeaderBytes.fourCC(bytes, at)
        guard id == "Xing" || id == "Info" else { return nil }
        let flags = be32(bytes, at + 4)
        guard flags & 1 != 0, bytes.count >= at + 12 else { return nil }
        let count = Int64(be32(bytes, at + 8))
        guard count > 0 else { return nil }
        var total = count * Int64(frame.samplesPerFrame)
        // The LAME tag follows the fields the flags name: frames (4), bytes (4), table of contents (100),
        // quality (4). Its encoder delay and padding are 12 bits each, 21 bytes into it.
        var lame = at + 8
        for (bit, size) in [(1, 4), (2, 4), (4, 100), (8, 4)] where flags & bit != 0 { lame += size }
        if bytes.count >= lame + 24, HeaderBytes.fourCC(bytes, lame) == "LAME" {
            let packed = HeaderBytes.be24(bytes, lame + 21)
            let trimmed = Int64(packed >> 12) + Int64(packed & 0xFFF)
            if trimmed < total { total -= trimmed }
        }
        return total
    }

    /// A VBRI tag's frame count: 32 bytes after the frame header, whatever the channels.
    private static func vbri(_ bytes: [UInt8], frame: AudioFileFormats.MPEGFrame) -> Int64? {
        guard frame.layer == 3, bytes.count >= 36 + 18, HeaderBytes.fourCC(bytes, 36) == "VBRI" else { return nil }
        let count = Int64(be32(bytes, 36 + 14))
        return count > 0 ? count * Int64(frame.samplesPerFrame) : nil
    }

    private static func be32(_ bytes: [UInt8], _ at: Int) -> Int {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
    }
}
