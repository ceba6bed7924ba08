import ChirperCore

/// The audio formats chirper-play decodes.
public enum AudioContainer: Sendable, Hashable, CustomStringConvertible {
    /// MPEG audio (normally Layer III), optionally behind an ID3v2 tag.
    case mp3
    /// RIFF/WAVE with integer or float PCM.
    case wav
    /// Native FLAC (libFLAC).
    case flac

    public var description: String {
        switch self {
        case .mp3: "MP3"
        case .wav: "WAV"
        case .flac: "FLAC"
        }
    }
}

/// The first bytes of a body are not audio we can play.
public struct UnsupportedAudioFormat: UserFacingError, Hashable, CustomStringConvertible {
    /// What was found instead, e.g. "an HTML page", "an empty body", "bytes 00 01 02 03".
    public var found: String
    public init(found: String) { self.found = found }
    public var userMessage: String { "unsupported audio format: \(found) (not MP3, WAV or FLAC)" }
    public var description: String { userMessage }
}

/// Decides the format from the content, never from a name or a Content-Type.
public enum AudioSniffer {
    /// The outcome of looking at a prefix of the body.
    public enum Verdict: Sendable, Hashable {
        case container(AudioContainer)
        /// Not decided yet: feed more bytes, or call again with `isComplete` at the end of the body.
        case needMore
        case unsupported(UnsupportedAudioFormat)
    }

    /// Bytes kept to describe an unsupported body.
    public static let describeLength = 64

    /// Bytes that decide every signature at the start (ID3, an MPEG header, RIFF....WAVE, Ogg, FLAC, MP4).
    static let signatureLength = 12

    /// How far into a body the first MPEG frame may start: libmpg123 gives up searching for the first frame
    /// after 65,536 bytes of junk (`skip_junk` in parse.c; measured with mpg123 1.31: a frame at offset 65,535
    /// plays, one at 65,536 fails with "Failed to find valid MPEG data within limit on resync"), so looking
    /// further would accept streams the decoder then refuses, and looking less would refuse streams mpg123
    /// plays. It also bounds what is held while looking (this plus one frame).
    public static let resyncLimit = 65536

    /// Looks at `prefix` (the body's first bytes). `isComplete` says that no more bytes will come.
    ///
    /// The verdict depends only on the bytes, never on how they were split: an audio signature at the start is
    /// decided with at most 12 bytes; otherwise the body is searched for MPEG frames (see `Scanner`), and a body
    /// without any is described by its first `describeLength` bytes.
    public static func sniff(_ prefix: some Collection<UInt8>, isComplete: Bool) -> Verdict {
        var scanner = Scanner()
        return scanner.verdict(Array(prefix), isComplete: isComplete)
    }

    /// Sniffs a body that grows between calls (`bytes` is always the whole prefix so far), remembering how far
    /// its search got, so feeding a byte at a time stays linear.
    public struct Scanner: Sendable {
        /// The next offset to try as the first frame of a junk-prefixed stream.
        private var nextOffset = 1
        /// The start is known to be neither audio nor another format (decided once 12 bytes are in).
        private var startIsJunk = false

        public init() {}

        /// The verdict on `bytes`, the body's first bytes (a prefix of every later call's).
        public mutating func verdict(_ bytes: [UInt8], isComplete: Bool) -> Verdict {
            if bytes.isEmpty {
                return isComplete ? .unsupported(UnsupportedAudioFormat(found: "an empty body")) : .needMore
            }
            if !startIsJunk {
                switch matchAudio(bytes) {
                case .some(.some(let container)):
                    return .container(container)
                case .some(.none):
                    break  // not audio at the start
                case .none:
                    if !isComplete { return .needMore }
                }
                let head = Array(bytes.prefix(signatureLength))
                if isOtherFormat(head) {
                    return .unsupported(UnsupportedAudioFormat(found: describe(Array(bytes.prefix(describeLength)))))
                }
                // Every signature is decided by its first 12 bytes: the start need not be looked at again.
                startIsJunk = bytes.count >= signatureLength
            }
            // Junk before the first frame (padding, a broken tag): look for frames further on, as libmpg123 does.
            while nextOffset < min(bytes.count, resyncLimit) {
                switch MPEGFrameChain.check(bytes, at: nextOffset, isComplete: isComplete) {
                case .found: return .container(.mp3)
                case .needMore: return .needMore
                case .absent: nextOffset += 1
                }
            }
            if !isComplete && bytes.count < resyncLimit {
                return .needMore
            }
            var found = describe(Array(bytes.prefix(describeLength)))
            if bytes.count >= resyncLimit { found += ", and no MPEG audio frame in the first 64 KiB" }
            return .unsupported(UnsupportedAudioFormat(found: found))
        }
    }

    /// Signatures of other formats that may hold anything (so also bytes that look like MPEG frames).
    private static func isOtherFormat(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: Array("OggS".utf8))
            || (bytes.count >= 12 && bytes.starts(with: Array("RIFF".utf8)))
            || (bytes.count >= 8 && Array(bytes[4..<8]) == Array("ftyp".utf8))
    }

    /// `.some(container)`: audio; `.some(nil)`: not audio; `nil`: too few bytes to say.
    private static func matchAudio(_ bytes: [UInt8]) -> AudioContainer?? {
        var undecided = false
        // ID3v2 tag ("ID3", version < 0xFF).
        switch compare(bytes, Array("ID3".utf8)) {
        case .match: return .some(.mp3)
        case .tooShort: undecided = true
        case .mismatch: break
        }
        // MPEG audio frame header.
        if bytes[0] == 0xFF {
            if bytes.count < 4 {
                if bytes.count < 2 || bytes[1] & 0xE0 == 0xE0 { undecided = true }
            } else if isMPEGFrameHeader(bytes[0], bytes[1], bytes[2]) {
                return .some(.mp3)
            }
        }
        // FLAC's signature.
        switch compare(bytes, Array("fLaC".utf8)) {
        case .match: return .some(.flac)
        case .tooShort: undecided = true
        case .mismatch: break
        }
        // RIFF....WAVE
        switch compare(bytes, Array("RIFF".utf8)) {
        case .match:
            if bytes.count < 12 {
                undecided = true
            } else if Array(bytes[8..<12]) == Array("WAVE".utf8) {
                return .some(.wav)
            }
        case .tooShort: undecided = true
        case .mismatch: break
        }
        return undecided ? nil : .some(nil)
    }

    /// Whether these bytes start a plausible MPEG audio frame (sync, version, layer, bit rate, sample rate).
    static func isMPEGFrameHeader(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8) -> Bool {
        MPEGFrameHeader(b0, b1, b2, 0) != nil
    }

    private enum Comparison { case match, mismatch, tooShort }

    private static func compare(_ bytes: [UInt8], _ signature: [UInt8]) -> Comparison {
        let common = min(bytes.count, signature.count)
        if bytes[0..<common].elementsEqual(signature[0..<common]) {
            return common == signature.count ? .match : .tooShort
        }
        return .mismatch
    }

    /// A short human description of a body that is not audio.
    static func describe(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "an empty body" }
        var text = bytes
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }  // UTF-8 byte order mark
        let trimmed = Array(text.drop(while: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }))
        let lower = String(decoding: trimmed, as: UTF8.self).lowercased()
        if lower.hasPrefix("<!doctype html") || lower.hasPrefix("<html") || lower.hasPrefix("<head")
            || lower.hasPrefix("<body")
        {
            return "an HTML page"
        }
        if lower.hasPrefix("<?xml") { return "an XML document" }
        if lower.hasPrefix("{") || lower.hasPrefix("[") { return "JSON text" }
        if bytes.starts(with: Array("OggS".utf8)) { return "Ogg audio" }
        if bytes.starts(with: Array("fLaC".utf8)) { return "FLAC audio" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)) {
            return "a RIFF file of type \(printable(Array(bytes[8..<12])))"
        }
        if bytes.count >= 8, Array(bytes[4..<8]) == Array("ftyp".utf8) { return "an MP4/AAC file" }
        let isText = trimmed.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if isText && !trimmed.isEmpty {
            return "text starting \"\(printable(Array(trimmed.prefix(24))))\""
        }
        return "bytes " + bytes.prefix(8).map { hex($0) }.joined(separator: " ")
    }

    private static func printable(_ bytes: [UInt8]) -> String {
        String(bytes.map { $0 >= 0x20 && $0 < 0x7F ? Character(Unicode.Scalar($0)) : "." })
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
