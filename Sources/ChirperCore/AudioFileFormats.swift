/// The signatures `AudioFileHeaderReader` tells formats by, besides WAV and FLAC: MP3 (an ID3 tag, an MPEG frame
/// header) and the formats it names but does not read, so the one line says what the file is.
enum AudioFileFormats {
    /// The length of an ID3v2 tag (header, body and footer) at the start of `bytes`; nil where there is none.
    static func id3Length(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count >= 10, bytes.starts(with: Array("ID3".utf8)), bytes[3] != 0xFF, bytes[4] != 0xFF,
            bytes[6..<10].allSatisfy({ $0 < 0x80 })
        else { return nil }
        let size = bytes[6..<10].reduce(Int64(0)) { $0 << 7 | Int64($1) }
        return 10 + size + (bytes[5] & 0x10 != 0 ? 10 : 0)
    }

    /// An MPEG audio frame header (layer I, II or III; MPEG-1, 2 or 2.5).
    struct MPEGFrame: Sendable, Hashable {
        var layer: Int
        var sampleRate: Int
        var channels: Int
        /// MPEG-1 (as opposed to MPEG-2 and 2.5, which halve the frame of layer III).
        var isMPEG1: Bool
        /// Bits per second; 0 for a free-format stream.
        var bitrate: Int

        /// Kilobits per second by bitrate index (1…14), for MPEG-1 layers I, II, III, then MPEG-2 and 2.5's
        /// layer I, then their layers II and III.
        private static let kilobits: [[Int]] = [
            [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
            [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
            [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
            [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
            [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
        ]

        init?(_ bytes: [UInt8]) {
            guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return nil }
            let version = Int(bytes[1] >> 3) & 3  // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
            let layerBits = Int(bytes[1] >> 1) & 3  // 1: layer III, 2: II, 3: I, 0: reserved
            let bitrateIndex = Int(bytes[2] >> 4)
            let rateIndex = Int(bytes[2] >> 2) & 3
            guard version != 1, layerBits != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
            layer = 4 - layerBits
            isMPEG1 = version == 3
            sampleRate = [44100, 48000, 32000][rateIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
            channels = bytes[3] >> 6 == 3 ? 1 : 2
            let table = isMPEG1 ? layer - 1 : layer == 1 ? 3 : 4
            bitrate = bitrateIndex == 0 ? 0 : Self.kilobits[table][bitrateIndex - 1] * 1000
        }

        /// Samples per channel a frame carries.
        var samplesPerFrame: Int { layer == 1 ? 384 : layer == 3 && !isMPEG1 ? 576 : 1152 }

        /// Bytes of layer III side information after the frame header (where a Xing tag begins).
        var sideInfoLength: Int { isMPEG1 ? (channels == 1 ? 17 : 32) : (channels == 1 ? 9 : 17) }
    }

    /// An MP3 file whose audio starts at `offset`: its shape from the first frame where that was reached, and
    /// its length in sample frames where a tag counts them or the bitrate tells them (`MP3Length`).
    static func mp3(
        frame: MPEGFrame?, at offset: Int64, fileSize: Int64, frames: Int64? = nil, fromBitrate: Bool = false
    ) -> AudioFileHeader {
        AudioFileHeader(
            format: .mp3, sampleRate: frame?.sampleRate, channels: frame?.channels,
            encoding: frame.map { .mpeg(layer: $0.layer) }, precision: nil, frames: frames,
            audio: AudioFileHeader.AudioData(offset: offset, length: max(0, fileSize - offset), declared: .unstated),
            channelMask: nil, hasSeekTable: false, metadata: FileMetadata(), lengthFromBitrate: fromBitrate)
    }

    /// The name of another audio (or container) format `bytes` start with; nil where none is recognised.
    static func otherFormat(_ bytes: [UInt8]) -> String? {
        func at(_ offset: Int, _ text: String) -> Bool {
            let signature = Array(text.utf8)
            return bytes.count >= offset + signature.count
                && Array(bytes[offset..<offset + signature.count]) == signature
        }
        if at(0, "OggS") {
            if at(28, "\u{01}vorbis") { return "Ogg Vorbis" }
            if at(28, "OpusHead") { return "Ogg Opus" }
            if at(28, "\u{7F}FLAC") { return "Ogg FLAC" }
            if at(28, "Speex") { return "Ogg Speex" }
            return "an Ogg file"
        }
        if at(0, "FORM") && at(8, "AIFF") { return "AIFF" }
        if at(0, "FORM") && at(8, "AIFC") { return "AIFF-C" }
        if at(4, "ftyp") {
            if at(8, "M4A ") || at(8, "M4B ") { return "M4A (AAC)" }
            if at(8, "qt  ") { return "a QuickTime file" }
            return "an MP4 file"
        }
        if at(0, "RIFX") { return "a big-endian WAV (RIFX)" }
        if at(0, "RIFF") { return "a RIFF file of type \(HeaderBytes.fourCC(bytes, 8))" }
        if at(0, "riff") && bytes.count >= 8 && bytes[4] == 0x2E && bytes[5] == 0x91 { return "Sony Wave64 (W64)" }
        if at(0, "caff") { return "Core Audio (CAF)" }
        if at(0, "wvpk") { return "WavPack" }
        if at(0, "MAC ") { return "Monkey's Audio (APE)" }
        if at(0, "#!AMR") { return "AMR" }
        if at(0, ".snd") { return "Sun/NeXT audio (AU)" }
        if bytes.starts(with: [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) { return "WMA (ASF)" }
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] & 0xF6 == 0xF0 { return "AAC (ADTS)" }
        if at(0, "MThd") { return "MIDI" }
        return nil
    }

    /// A short description of bytes that are no known format: text, or the first bytes in hex.
    static func describe(_ bytes: [UInt8]) -> String {
        let head = Array(bytes.prefix(8))
        if !head.isEmpty, head.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return "text"
        }
        let digits = Array("0123456789ABCDEF")
        let hex = head.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0xF)]]) }.joined(separator: " ")
        return "bytes \(hex)"
    }
}
