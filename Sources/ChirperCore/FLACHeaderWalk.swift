/// The walk over a FLAC file's metadata blocks for `AudioFileHeaderReader`: STREAMINFO (rate, channels, bits,
/// total samples) and VORBIS_COMMENT read, a SEEKTABLE noted, anything else (a cover picture, padding) jumped
/// over. The audio frames start after the block marked last.
struct FLACHeaderWalk: Sendable {
    struct Body: Sendable {
        var type: Int
        var offset: Int64
        var count: Int
    }

    struct StreamInfo: Sendable {
        var sampleRate: Int
        var channels: Int
        var bits: Int
        /// Samples per channel; 0 where the encoder did not know.
        var totalSamples: Int64
    }

    /// VORBIS_COMMENT blocks larger than this are skipped, not read.
    static let largestComments = 1 << 20
    /// Blocks walked before the file is called damaged.
    static let maximumBlocks = 1024

    let fileSize: Int64
    var next: Int64
    var body: Body?
    var blocks = 0
    /// The last block has been read: the audio starts at `next`.
    var ended = false
    var streamInfo: StreamInfo?
    var hasSeekTable = false
    var metadata = FileMetadata()

    init(blocksAt offset: Int64, fileSize: Int64) {
        next = offset
        self.fileSize = fileSize
    }

    var want: (offset: Int64, count: Int)? {
        if let body { return (body.offset, body.count) }
        guard !ended, blocks < Self.maximumBlocks, next + 4 <= fileSize else { return nil }
        return (next, 4)
    }

    mutating func take(_ bytes: [UInt8]) -> AudioFileProblem? {
        if let pending = body {
            body = nil
            return read(pending.type, bytes)
        }
        blocks += 1
        let type = Int(bytes[0] & 0x7F)
        let length = HeaderBytes.be24(bytes, 1)
        let start = next + 4
        ended = bytes[0] & 0x80 != 0
        next = start + Int64(length)
        guard next <= fileSize else { return AudioFileProblem(.damaged("the file ends inside its FLAC metadata")) }
        switch type {
        case 0:
            guard length >= 34 else { return AudioFileProblem(.damaged("its FLAC STREAMINFO block is too short")) }
            body = Body(type: type, offset: start, count: 34)
        case 3:
            hasSeekTable = length >= 18
        case 4 where length <= Self.largestComments:
            body = Body(type: type, offset: start, count: length)
        case 127:
            return AudioFileProblem(.damaged("its FLAC metadata holds an invalid block"))
        default:
            break
        }
        return nil
    }

    func finish() -> AudioFileHeaderReader.Step {
        guard ended else {
            return .problem(
                AudioFileProblem(
                    .damaged(
                        blocks >= Self.maximumBlocks
                            ? "its FLAC metadata never ends" : "the file ends inside its FLAC metadata")))
        }
        guard let info = streamInfo else {
            return .problem(AudioFileProblem(.damaged("the FLAC file has no STREAMINFO block")))
        }
        guard info.sampleRate > 0 else {
            return .problem(AudioFileProblem(.damaged("its FLAC STREAMINFO says a sample rate of 0")))
        }
        guard RIFFHeaderWalk.sampleRates.contains(info.sampleRate) else {
            return .problem(
                AudioFileProblem(.unsupported("a sample rate of \(info.sampleRate) Hz is not read (8 to 384 kHz are)")))
        }
        let audio = AudioFileHeader.AudioData(
            offset: next, length: fileSize - next, declared: info.totalSamples > 0 ? .whole : .unstated)
        return .header(
            AudioFileHeader(
                format: .flac, sampleRate: info.sampleRate, channels: info.channels, encoding: .flac(bits: info.bits),
                precision: info.bits, frames: info.totalSamples > 0 ? info.totalSamples : nil, audio: audio,
                channelMask: nil, hasSeekTable: hasSeekTable, metadata: metadata))
    }

    private mutating func read(_ type: Int, _ body: [UInt8]) -> AudioFileProblem? {
        switch type {
        case 0:
            guard streamInfo == nil else {
                return AudioFileProblem(.damaged("its FLAC metadata has two STREAMINFO blocks"))
            }
            streamInfo = Self.parseStreamInfo(body)
        case 4:
            (metadata.vorbisVendor, metadata.vorbisComments) = Self.parseComments(body)
        default:
            break
        }
        return nil
    }

    /// STREAMINFO: after the block and frame sizes, 20 bits of rate, 3 of channels - 1, 5 of bits - 1 and 36 of
    /// total samples, big-endian.
    static func parseStreamInfo(_ body: [UInt8]) -> StreamInfo {
        let rate = Int(body[10]) << 12 | Int(body[11]) << 4 | Int(body[12]) >> 4
        let channels = Int((body[12] >> 1) & 7) + 1
        let bits = (Int(body[12] & 1) << 4 | Int(body[13] >> 4)) + 1
        var total = Int64(body[13] & 0x0F)
        for index in 14..<18 { total = total << 8 | Int64(body[index]) }
        return StreamInfo(sampleRate: rate, channels: channels, bits: bits, totalSamples: total)
    }

    /// VORBIS_COMMENT (little-endian, unlike the rest of FLAC): the vendor string, then `NAME=value` strings.
    /// What runs past the block's end is dropped.
    static func parseComments(_ body: [UInt8]) -> (vendor: String?, comments: [FileMetadata.VorbisComment]) {
        func string(at: inout Int) -> [UInt8]? {
            let length = HeaderBytes.le32(body, at)
            guard at + 4 <= body.count, length <= body.count - at - 4 else { return nil }
            defer { at += 4 + length }
            return Array(body[(at + 4)..<(at + 4 + length)])
        }
        var at = 0
        guard let vendor = string(at: &at) else { return (nil, []) }
        let count = HeaderBytes.le32(body, at)
        at += 4
        var comments: [FileMetadata.VorbisComment] = []
        for _ in 0..<min(count, 4096) {
            guard let entry = string(at: &at) else { break }
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            comments.append(
                FileMetadata.VorbisComment(
                    name: MetadataText.decode(entry[..<equals]),
                    value: MetadataText.decode(entry[(equals + 1)...])))
        }
        let vendorText = MetadataText.decode(vendor)
        return (vendorText.isEmpty ? nil : vendorText, comments)
    }
}
