/// How to reach a byte of the recording's body that the decoder must be fed from next, decided from what
/// has already arrived: pure, so the Player's effect runner only carries it out.
public enum SeekFetch: Sendable, Hashable {
    /// The byte is the next one the current body will deliver: keep feeding, no new request.
    case continueFeeding
    /// The byte arrived already and is still held: feed again from `offset` (held bytes), then the body.
    case refeedHeld(from: Int64)
    /// The byte is a little ahead in the current body: read on and drop `bytes` bytes, no new request.
    case discardForward(bytes: Int64)
    /// Anything else: a new request with `Range: bytes=<offset>-`. A server that ignores Range answers
    /// 200 with the whole body: then drop `offset` bytes (the status should say the server ignored Range).
    case request(offset: Int64)
}

/// The arithmetic of a seek: recording time ↔ frame (sample per channel) ↔ body byte, and the fetch plan.
public struct SeekPlan: Sendable, Hashable {
    /// Frames per second of the decoded audio.
    public var sampleRate: Int

    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
    }

    /// The frame at `seconds` of recording time (rounded down, never negative).
    public func frame(atSeconds seconds: Double) -> Int {
        guard seconds > 0, sampleRate > 0 else { return 0 }
        return Int((seconds * Double(sampleRate)).rounded(.down))
    }

    /// The recording time of `frame`.
    public func seconds(atFrame frame: Int) -> Double {
        sampleRate > 0 ? Double(frame) / Double(sampleRate) : 0
    }

    /// Below this many bytes ahead, reading on and dropping beats a new request (one round trip costs more
    /// than ~64 KiB on any link that streams audio at all).
    public static let discardLimit: Int64 = 64 * 1024

    /// How to get the decoder fed from body byte `target`.
    /// - Parameters:
    ///   - received: body bytes that have arrived so far (the next byte of the current body is `received`).
    ///   - heldFrom: the first body byte still kept in memory (kept bytes are `heldFrom..<received`), if any.
    public static func fetch(target: Int64, received: Int64, heldFrom: Int64?) -> SeekFetch {
        if target == received { return .continueFeeding }
        if target < received {
            if let heldFrom, target >= heldFrom { return .refeedHeld(from: target) }
            return .request(offset: target)
        }
        if target - received <= discardLimit { return .discardForward(bytes: target - received) }
        return .request(offset: target)
    }
}

/// Where a WAV file's samples are, read from its header bytes: what a WAV seek needs.
///
/// A WAV seek is exact: the byte is `dataStart + frame × blockAlign`. To decode from there, a fresh
/// `WAVDecoder` is fed `resumeHeader(atFrame:)` (the header with the data size shortened to what is left,
/// so trailing chunks are not played as samples) and then the body from `byteOffset(atFrame:)`.
public struct WAVDataLocation: Sendable, Hashable {
    /// Body offset of the first sample byte.
    public var dataStart: Int
    /// Declared bytes of sample data, nil when the header says "unknown" (0 or 0xFFFFFFFF).
    public var dataSize: Int?
    /// Bytes per frame (all channels of one sample instant).
    public var blockAlign: Int
    public var sampleRate: Int
    public var channels: Int
    /// The header bytes up to `dataStart`.
    public var header: [UInt8]

    /// Finds the `data` chunk in the first bytes of a RIFF/WAVE body; nil if they do not reach it yet (or
    /// it is not a WAV file the decoder accepts: the decoder reports why).
    public init?(header bytes: [UInt8]) {
        guard bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WAVE".utf8)
        else { return nil }
        var offset = 12
        var layout: (rate: Int, channels: Int, align: Int)?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = HeaderBytes.le32(bytes, offset + 4)
            let body = offset + 8
            if id == "data" {
                guard let layout, layout.align > 0 else { return nil }
                dataStart = body
                dataSize = size == 0 || size == 0xFFFF_FFFF ? nil : size
                blockAlign = layout.align
                sampleRate = layout.rate
                channels = layout.channels
                header = Array(bytes[0..<body])
                return
            }
            if id == "fmt " {
                // Read as the decoder and the header reader read it: a layout they refuse is not sought in.
                guard size >= 16, body + size <= bytes.count,
                    case .success(let parsed) = WAVSampleLayout.parse(Array(bytes[body..<body + size]))
                else { return nil }
                layout = (parsed.sampleRate, parsed.channels, parsed.frameBytes)
            }
            offset = body + size + size % 2
        }
        return nil
    }

    /// The body offset of `frame`'s first byte (frames past the declared end clamp to it).
    public func byteOffset(atFrame frame: Int) -> Int {
        var frame = max(0, frame)
        if let dataSize { frame = min(frame, dataSize / blockAlign) }
        return dataStart + frame * blockAlign
    }

    /// The header to feed a fresh decoder before the body from `byteOffset(atFrame:)`: the data chunk's size
    /// becomes the bytes left from that frame (unchanged when unknown).
    public func resumeHeader(atFrame frame: Int) -> [UInt8] {
        var bytes = header
        if let dataSize {
            let left = UInt32(max(0, dataSize - (byteOffset(atFrame: frame) - dataStart)))
            for index in 0..<4 { bytes[dataStart - 4 + index] = UInt8(truncatingIfNeeded: left >> (8 * UInt32(index))) }
        }
        return bytes
    }
}
