/// The walk over a RIFF/WAVE (or RF64) file's chunks for `AudioFileHeaderReader`: chunks in any order, odd sizes
/// padded, unknown chunks jumped over without being read; `fmt `, `LIST`/`INFO`, `guan` and RF64's `ds64` read.
/// A `data` chunk is jumped over too (its end is where the next chunk is), unless its size is unstated or runs
/// past the end of the file, which ends the walk.
struct RIFFHeaderWalk: Sendable {
    /// A chunk whose body is wanted next.
    struct Body: Sendable {
        var id: String
        var offset: Int64
        var count: Int
        /// The chunk after this one.
        var next: Int64
    }

    typealias Format = WAVSampleLayout

    /// Sample rates and channel counts chirper-play plays: 8 kHz speech to 384 kHz bat detectors, mono to 8
    /// channels (an array of microphones).
    static let sampleRates = WAVSampleLayout.sampleRates
    static let channelCounts = WAVSampleLayout.channelCounts
    /// `LIST` and `guan` bodies larger than this are skipped, not read: metadata is never megabytes.
    static let largestMetadata = 1 << 20
    /// Chunks walked before giving up on finding more (a file of millions of empty chunks ends the walk).
    static let maximumChunks = 4096

    let fileSize: Int64
    let isRF64: Bool
    /// Where the chunks stop: the file's end. The RIFF size is not believed: writers that stop early leave it
    /// short, and a chunk after it (a `guan` appended later) would be missed.
    let end: Int64
    var next: Int64 = 12
    var body: Body?
    var chunks = 0
    var ds64DataSize: Int64?
    var format: Format?
    var data: AudioFileHeader.AudioData?
    var metadata = FileMetadata()

    /// Nil unless `start` opens a RIFF/WAVE or RF64/BW64 file.
    init?(start: [UInt8], fileSize: Int64) {
        guard start.count >= 12, HeaderBytes.fourCC(start, 8) == "WAVE" else { return nil }
        switch HeaderBytes.fourCC(start) {
        case "RIFF": isRF64 = false
        case "RF64", "BW64": isRF64 = true
        default: return nil
        }
        self.fileSize = fileSize
        end = fileSize
    }

    /// The range wanted next; nil when the walk is over.
    var want: (offset: Int64, count: Int)? {
        if let body { return (body.offset, body.count) }
        guard chunks < Self.maximumChunks, next + 8 <= end else { return nil }
        return (next, 8)
    }

    mutating func take(_ bytes: [UInt8]) -> AudioFileProblem? {
        if let pending = body {
            body = nil
            next = pending.next
            return read(pending.id, bytes)
        }
        chunks += 1
        let id = HeaderBytes.fourCC(bytes)
        var size = Int64(HeaderBytes.le32(bytes, 4))
        let start = next + 8
        if isRF64, id == "data", size == 0xFFFF_FFFF, let ds64DataSize { size = ds64DataSize }
        let after = start + size + (size & 1)
        let available = max(0, fileSize - start)
        switch id {
        case "fmt ":
            guard size >= 16 else { return AudioFileProblem(.damaged("its fmt chunk is too short (\(size) bytes)")) }
            guard size <= 65536 else { return AudioFileProblem(.damaged("its fmt chunk claims \(size) bytes")) }
            guard size <= available else { return AudioFileProblem(.damaged("the file ends inside its fmt chunk")) }
            body = Body(id: id, offset: start, count: Int(size), next: after)
        case "ds64" where isRF64 && size >= 16 && available >= 16:
            body = Body(id: id, offset: start, count: 16, next: after)
        case "data":
            guard data == nil else {
                next = after
                break
            }
            if size == 0xFFFF_FFFF || (size == 0 && available > 0) {
                data = AudioFileHeader.AudioData(offset: start, length: available, declared: .unstated)
                next = end
            } else if size > available {
                data = AudioFileHeader.AudioData(offset: start, length: available, declared: .truncated(declared: size))
                next = end
            } else {
                data = AudioFileHeader.AudioData(offset: start, length: size, declared: .whole)
                next = after
            }
        case "LIST", "guan":
            if size <= Self.largestMetadata {
                body = Body(id: id, offset: start, count: Int(min(size, available)), next: after)
            } else {
                next = after
            }
        default:
            next = after
        }
        return nil
    }

    /// The header, once the walk is over.
    func finish() -> AudioFileHeaderReader.Step {
        guard let format else { return .problem(AudioFileProblem(.damaged("the WAV file has no fmt chunk"))) }
        guard let data else { return .problem(AudioFileProblem(.damaged("the WAV file has no data chunk"))) }
        return .header(
            AudioFileHeader(
                format: .wav, sampleRate: format.sampleRate, channels: format.channels, encoding: format.encoding,
                precision: format.precision, frames: data.length / Int64(format.frameBytes), audio: data,
                channelMask: format.channelMask, hasSeekTable: false, metadata: metadata))
    }

    private mutating func read(_ id: String, _ body: [UInt8]) -> AudioFileProblem? {
        switch id {
        case "fmt ":
            switch WAVSampleLayout.parse(body) {
            case .success(let parsed): format = parsed
            case .failure(let problem): return problem
            }
        case "ds64":
            ds64DataSize = HeaderBytes.le64(body, 8)
        case "LIST":
            if HeaderBytes.fourCC(body) == "INFO" { metadata.info += Self.parseInfo(body) }
        case "guan":
            metadata.guano = GUANOMetadata(chunk: body)
        default:
            break
        }
        return nil
    }

    /// The entries of a `LIST` chunk of type `INFO`: ids and NUL-padded text, odd sizes padded.
    static func parseInfo(_ body: [UInt8]) -> [FileMetadata.InfoEntry] {
        var entries: [FileMetadata.InfoEntry] = []
        var at = 4
        while at + 8 <= body.count, entries.count < 256 {
            let id = HeaderBytes.fourCC(body, at)
            let size = HeaderBytes.le32(body, at + 4)
            let text = body[(at + 8)..<min(body.count, at + 8 + size)]
            let value = MetadataText.decode(text).trimmingSpaces
            if !value.isEmpty { entries.append(FileMetadata.InfoEntry(id: id, text: value)) }
            at += 8 + size + (size & 1)
        }
        return entries
    }
}
