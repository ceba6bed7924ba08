/// Reads what an audio file says about itself (`AudioFileHeader`) from the few ranges of the file it asks for, so
/// a folder of long recordings is listed from their headers alone: a WAV's `guan` chunk after an hour of audio is
/// read by jumping over the audio, not through it.
///
/// Pure: the caller reads the file. Start with `step` (the first bytes), then feed each range asked for and
/// read the next `step`:
///
///     var reader = AudioFileHeaderReader(fileSize: size)
///     while case .need(let offset, let count) = reader.step {
///         reader.feed(read(offset, max(count, 65536)), at: offset)   // more than asked saves steps
///     }
///
/// Bytes fed may start anywhere and run past what was asked; bytes that do not hold the range asked for are
/// ignored (the same step is asked again). Short reads at the end of the file are fine: nothing is asked beyond
/// `fileSize`.
public struct AudioFileHeaderReader: Sendable {
    public enum Step: Sendable, Hashable {
        /// Read `count` bytes (or more) from `offset` and feed them.
        case need(offset: Int64, count: Int)
        case header(AudioFileHeader)
        case problem(AudioFileProblem)
    }

    enum State: Sendable {
        /// Telling the format from the bytes at `offset` (0, or after `tags` ID3 tags).
        case sniffing(offset: Int64, tags: Int)
        case riff(RIFFHeaderWalk)
        case flac(FLACHeaderWalk)
        /// An MP3's first frame, at `offset`: the bytes after it may count the frames (`MP3Length`).
        case mpeg(offset: Int64, AudioFileFormats.MPEGFrame)
        /// No tag counts them: the file's last bytes say how much of it is tags, not audio at the bitrate.
        case mpegTail(offset: Int64, AudioFileFormats.MPEGFrame)
        case done(Step)
    }

    /// Bytes looked at to tell the format (enough to name an Ogg stream's codec).
    static let sniffLength = 36
    /// ID3 tags skipped in a row before the audio is looked for.
    static let maximumTags = 4

    public let fileSize: Int64
    private(set) var state: State

    public init(fileSize: Int64) {
        self.fileSize = max(0, fileSize)
        state = .sniffing(offset: 0, tags: 0)
        state = settled(state)
    }

    /// What the reader needs next, or what it found.
    public var step: Step {
        switch state {
        case .sniffing(let offset, _):
            .need(offset: offset, count: Int(min(Int64(Self.sniffLength), fileSize - offset)))
        case .riff(let walk): walk.want.map { Step.need(offset: $0.offset, count: $0.count) } ?? walk.finish()
        case .flac(let walk): walk.want.map { Step.need(offset: $0.offset, count: $0.count) } ?? walk.finish()
        case .mpeg(let offset, _): .need(offset: offset, count: Int(min(Int64(MP3Length.lookahead), fileSize - offset)))
        case .mpegTail(let offset, _):
            .need(
                offset: max(offset, fileSize - Int64(MP3Length.tailLength)),
                count: Int(min(Int64(MP3Length.tailLength), fileSize - offset)))
        case .done(let step): step
        }
    }

    /// Feeds `bytes`, which were read from `offset`, and returns the next step.
    @discardableResult
    public mutating func feed(_ bytes: [UInt8], at offset: Int64) -> Step {
        while case .need(let at, let count) = step, at >= offset, at - offset + Int64(count) <= Int64(bytes.count) {
            let start = Int(at - offset)
            let piece = Array(bytes[start..<start + count])
            state = settled(advanced(state, with: piece, at: at))
        }
        return step
    }

    /// Reads the header of a file of `fileSize` bytes through `read(offset, count)`, which returns the bytes from
    /// `offset` (at least `count` of them, unless the file ends first).
    public static func read(fileSize: Int64, using read: (Int64, Int) throws -> [UInt8]) rethrows -> Step {
        var reader = AudioFileHeaderReader(fileSize: fileSize)
        while case .need(let offset, let count) = reader.step {
            let bytes = try read(offset, count)
            if case .need(offset, count) = reader.feed(bytes, at: offset), bytes.count < count {
                return .problem(AudioFileProblem(.damaged("the file is shorter than its size says")))
            }
        }
        return reader.step
    }

    /// Reads the header of a file held whole in memory (or of its first bytes, `fileSize` being the whole size).
    public static func read(_ bytes: [UInt8], fileSize: Int64? = nil) -> Step {
        read(fileSize: fileSize ?? Int64(bytes.count)) { offset, count in
            guard offset < Int64(bytes.count) else { return [] }
            let start = Int(offset)
            return Array(bytes[start..<min(bytes.count, start + max(count, 65536))])
        }
    }

    private func advanced(_ state: State, with bytes: [UInt8], at offset: Int64) -> State {
        switch state {
        case .sniffing(_, let tags):
            return sniff(bytes, at: offset, tags: tags)
        case .riff(var walk):
            if let problem = walk.take(bytes) { return .done(.problem(problem)) }
            return .riff(walk)
        case .flac(var walk):
            if let problem = walk.take(bytes) { return .done(.problem(problem)) }
            return .flac(walk)
        case .mpeg(let offset, let frame):
            guard let frames = MP3Length.counted(bytes, frame: frame) else { return .mpegTail(offset: offset, frame) }
            return .done(.header(AudioFileFormats.mp3(frame: frame, at: offset, fileSize: fileSize, frames: frames)))
        case .mpegTail(let offset, let frame):
            let frames = MP3Length.estimated(frame: frame, audioLength: fileSize - offset, tail: bytes)
            return .done(
                .header(
                    AudioFileFormats.mp3(
                        frame: frame, at: offset, fileSize: fileSize, frames: frames, fromBitrate: frames != nil)))
        case .done:
            return state
        }
    }

    /// A walk that needs no more bytes becomes its outcome; sniffing past the end is decided at once.
    private func settled(_ state: State) -> State {
        switch state {
        case .sniffing(let offset, let tags) where offset >= fileSize:
            if tags == 0 { return .done(.problem(AudioFileProblem(.damaged("the file is empty")))) }
            return .done(.header(AudioFileFormats.mp3(frame: nil, at: offset, fileSize: fileSize)))
        case .riff(let walk) where walk.want == nil: return .done(walk.finish())
        case .flac(let walk) where walk.want == nil: return .done(walk.finish())
        default: return state
        }
    }

    private func sniff(_ bytes: [UInt8], at offset: Int64, tags: Int) -> State {
        if let walk = RIFFHeaderWalk(start: bytes, fileSize: fileSize) {
            return .riff(walk)
        }
        if bytes.starts(with: Array("fLaC".utf8)) {
            return .flac(FLACHeaderWalk(blocksAt: offset + 4, fileSize: fileSize))
        }
        if let tagLength = AudioFileFormats.id3Length(bytes) {
            if tags < Self.maximumTags { return .sniffing(offset: offset + tagLength, tags: tags + 1) }
            return .done(.header(AudioFileFormats.mp3(frame: nil, at: offset, fileSize: fileSize)))
        }
        if let frame = AudioFileFormats.MPEGFrame(bytes) {
            return .mpeg(offset: offset, frame)
        }
        if let name = AudioFileFormats.otherFormat(bytes) {
            return .done(.problem(AudioFileProblem(.otherFormat(name))))
        }
        if tags > 0 {
            // After an ID3 tag, what is neither FLAC nor a frame is padding or junk that MP3 decoders skip.
            return .done(.header(AudioFileFormats.mp3(frame: nil, at: offset, fileSize: fileSize)))
        }
        return .done(.problem(AudioFileProblem(.unrecognised(AudioFileFormats.describe(bytes)))))
    }
}

/// Little-endian and big-endian fields of a header, read from an array that starts at the field's base.
enum HeaderBytes {
    static func le16(_ bytes: [UInt8], _ at: Int) -> Int {
        at + 2 <= bytes.count ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : 0
    }

    static func le32(_ bytes: [UInt8], _ at: Int) -> Int {
        at + 4 <= bytes.count ? le16(bytes, at) | le16(bytes, at + 2) << 16 : 0
    }

    static func le64(_ bytes: [UInt8], _ at: Int) -> Int64 {
        at + 8 <= bytes.count ? Int64(le32(bytes, at)) | Int64(le32(bytes, at + 4)) << 32 : 0
    }

    static func be24(_ bytes: [UInt8], _ at: Int) -> Int {
        at + 3 <= bytes.count ? Int(bytes[at]) << 16 | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) : 0
    }

    /// Four bytes as a chunk id, with anything but printable ASCII shown as `?`.
    static func fourCC(_ bytes: [UInt8], _ at: Int = 0) -> String {
        let id = bytes[min(at, bytes.count)..<min(bytes.count, at + 4)]
        // Every chunk of every file is named: the common case, all printable, is decoded without a Character each.
        if id.allSatisfy({ (0x20...0x7E).contains($0) }) { return String(decoding: id, as: UTF8.self) }
        return String(id.map { (0x20...0x7E).contains($0) ? Character(Unicode.Scalar($0)) : "?" })
    }
}
