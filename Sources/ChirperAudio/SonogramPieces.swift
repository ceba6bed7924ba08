import ChirperCore
import FoundationEssentials
import NIOConcurrencyHelpers

/// Draws the sonogram of a long recording from pieces decoded in parallel, one per core: a long
/// soundscape is drawn on every core, not one.
///
/// Only a whole local file (the offline catalog's, or a recording in the cache) is split, so that no piece
/// downloads what another downloads. Each piece is a decoder of its own, fed the file's first bytes (its
/// format and Info header) and then seeked, as a seek in the player is, to the first sample of the piece's first
/// analysis frame; libmpg123 decodes the frames before it to fill the bit reservoir and the synthesis filters,
/// and its first sample out is that sample, exactly (its value to within one step: see `decoder`). Each piece
/// analyses its own frames (`SonogramAccumulator(part:…)`), and the parts' maxima merge into the picture a single
/// decoder makes (`SonogramPiecesTests`).
///
/// The split is made only where the seek is known to be exact: an MP3 with an Info header (an exact length,
/// which lays the columns out) and a constant bit rate (the frame grid), and a WAV whose `data` chunk the file
/// holds whole (a piece starts at its first sample's byte, `WAVDataLocation`, and decodes exactly what the whole
/// decoding does there). A VBR stream's seek lands on an estimate, a WAV cut short or of unstated length has no
/// exact end to lay the columns over: those, and short recordings, are decoded in one piece.
struct SonogramPieces {
    /// Seconds of audio a piece has at least: below that, the extra decoder's start costs more than it saves.
    static let shortestPiece = 30.0
    /// The file's first bytes, fed to every piece's decoder before its seek: the Info header and enough frames
    /// of one rate (`StreamSurvey.enough`) for a stream without one.
    static let headBytes = 64 * 1024
    /// Bytes a piece reads at a time: a WAV piece is mostly reading, and the fewer the reads the less each byte
    /// costs (a read of 16 KB costs about three times as much per byte as one of 1 MB).
    static let readBytes = 1 << 20

    let path: String
    let shape: SonogramShape
    let pieces: Int
    let makeTransform: @Sendable (Int) throws -> any PowerSpectrumTransform

    /// What the pieces share: the file's head, the recording's format and the analysis.
    private struct Plan: Sendable {
        var head: [UInt8]
        var fileLength: Int64?
        var sampleRate: Int
        var duration: Double
        var fft: (size: Int, hop: Int, dft: Int)
        /// Analysis frames of each piece: piece i makes frames `starts[i]..<starts[i + 1]` (the last to the end).
        var starts: [Int]
        /// Where a WAV's samples are (a piece starts at its first sample's byte); nil for an MP3.
        var wav: WAVDataLocation?
    }

    /// The picture, or nil when the recording is not split (decode it in one piece). Throws what a decoder or
    /// the file throws, the reader's checks of the shape, or `CancellationError`.
    func sonogram() async throws -> Sonogram? {
        guard pieces > 1, let plan = try await plan() else { return nil }
        // Each piece decodes on a thread of its own: seconds of decoding on the cooperative pool would hold its
        // threads (one per core) from the player's tasks, and the sound would stutter.
        let stop = NIOLockedValueBox(false)
        let parts = try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: (Int, SonogramPart).self) { group in
                for piece in plan.starts.indices {
                    group.addTask {
                        try await onOwnThread {
                            let part = try accumulator(plan, piece: piece)
                            try decode(plan, piece: piece, into: part) { stop.withLockedValue { $0 } }
                            return (piece, part.part)
                        }
                    }
                }
                var parts: [(Int, SonogramPart)] = []
                for try await part in group { parts.append(part) }
                return parts.sorted { $0.0 < $1.0 }.map(\.1)
            }
        } onCancel: {
            stop.withLockedValue { $0 = true }
        }
        try Task.checkCancellation()
        let picture = try accumulator(plan, piece: 0)
        for part in parts { picture.merge(part) }
        // Audio past the Info header's length: a picture only one decoder can make.
        return picture.overflowed ? nil : picture.picture()
    }

    /// Reads the head and decides the split; nil when the recording is not split.
    private func plan() async throws -> Plan? {
        let reader = try await FileByteSource(path: path).open(from: 0)
        var head: [UInt8] = []
        while head.count < Self.headBytes, let chunk = try await reader.read() { head += chunk }
        let probe = StreamDecoder(expectedLength: reader.totalLength, mixToMono: true)
        var format: PCMFormat?
        var duration: Double?
        for case .format(let found, let length) in try probe.feed(head) where format == nil {
            (format, duration) = (found, length)
        }
        guard let format, let duration, probe.durationIsExact else { return nil }
        var wav: WAVDataLocation?
        if probe.isWAV {
            // A WAV is split only when its file holds the whole `data` chunk its header announces.
            guard let location = WAVDataLocation(header: head), let size = location.dataSize,
                let length = reader.totalLength, Int64(location.dataStart + size) <= length
            else { return nil }
            wav = location
        }
        try SonogramReader.check(shape, sampleRate: format.sampleRate, duration: duration)
        let drawn = shape.window.map { min($0.end, duration) - $0.start } ?? duration
        let count = min(pieces, Int(drawn / Self.shortestPiece))
        guard count > 1 else { return nil }
        let fft = shape.fftPlan(sampleRate: format.sampleRate, duration: shape.window?.duration ?? duration)
        var plan = Plan(
            head: head, fileLength: reader.totalLength, sampleRate: format.sampleRate, duration: duration, fft: fft,
            starts: [0], wav: wav)
        let frames = try accumulator(plan, piece: 0).framesAtMost(samples: Int(duration * Double(format.sampleRate)))
        plan.starts = (0..<count).map { frames * $0 / count }
        guard wav == nil else { return plan }
        // A seek to the middle piece's start tells whether every seek of this stream lands exactly (CBR).
        let middle = try accumulator(plan, piece: count / 2).firstSample(ofFrame: plan.starts[count / 2])
        guard let point = try probe.seekMP3(toFrame: middle), point.accurate else { return nil }
        return plan
    }

    /// The accumulator of one piece's frames.
    private func accumulator(_ plan: Plan, piece: Int) throws -> SonogramAccumulator {
        let end = piece + 1 < plan.starts.count ? plan.starts[piece + 1] : Int.max
        return SonogramAccumulator(
            part: plan.starts[piece]..<end, shape: shape, sampleRate: plan.sampleRate,
            expectedDuration: plan.duration, transform: try makeTransform(plan.fft.dft), windowLength: plan.fft.size,
            hop: plan.fft.hop)
    }

    /// Decodes piece `piece` from the first sample of its first frame (by a seek, unless that is the recording's
    /// first) until its frames are analysed.
    private func decode(
        _ plan: Plan, piece: Int, into part: SonogramAccumulator, stopped: () -> Bool
    ) throws {
        let start = part.firstSample(ofFrame: plan.starts[piece])
        let decoder =
            if let wav = plan.wav {
                try Self.decoder(wav: wav, fileLength: plan.fileLength, from: start)
            } else {
                try Self.decoder(head: plan.head, fileLength: plan.fileLength, from: start)
            }
        let file = try FileByteReader(path: path, offset: decoder.offset, chunkSize: Self.readBytes)
        while !part.isComplete, let chunk = try file.readNow() {
            if stopped() { throw CancellationError() }
            for batch in try decoder.feed(chunk) { part.feed(batch, channels: decoder.channels) }
        }
        // (Not finished once the piece's frames are in: a piece before the last ends mid-file, which the decoder's
        // finish would take for a file cut short.)
        guard !part.isComplete else { return }
        for batch in try decoder.finish() { part.feed(batch, channels: decoder.channels) }
    }
}

extension SonogramPieces {
    /// A mono decoder whose first sample out is sample `start` of the stream that `head` opens, and the byte of
    /// the file to feed it from: fed the head (the format and the Info header; its samples are not the piece's),
    /// then seeked, unless `start` is 0. Throws if that seek is not exact.
    ///
    /// What it decodes is the decoding from the start to within one step of 16 bits, not bit for bit: libmpg123's
    /// synthesis filter bank turns its buffer by one of 16 places every 32 samples, and its rounding depends on
    /// the place, which a seek leaves where the decoding of the head left it (`frame_buffers_reset` in frame.c
    /// resets the buffer, not `bo`). About one sample in 3,000 differs, by one (`SonogramPiecesTests`).
    static func decoder(head: [UInt8], fileLength: Int64?, from start: Int) throws -> PieceDecoder {
        let decoder = StreamDecoder(expectedLength: fileLength, mixToMono: true)
        // (A seek into the first frames of a stream without an Info header starts over from its first byte:
        // `MP3Decoder.seek` does that itself.)
        guard start > 0 else { return PieceDecoder(decoder: decoder, offset: 0) }
        _ = try decoder.feed(head)
        guard let point = try decoder.seekMP3(toFrame: start), point.accurate else {
            throw SonogramPiecesError.seekNotExact(start)
        }
        return PieceDecoder(decoder: decoder, offset: point.bodyOffset)
    }

    /// A decoder whose first sample frame out is frame `start` of the WAV whose samples `wav` locates, and the
    /// byte of the file to feed it from: fed the header with the `data` chunk's size cut to what is left from
    /// there, as a seek in the player does. The samples are the whole decoding's, bit for bit.
    static func decoder(wav: WAVDataLocation, fileLength: Int64?, from start: Int) throws -> PieceDecoder {
        guard start > 0 else {
            return PieceDecoder(decoder: StreamDecoder(expectedLength: fileLength, mixToMono: true), offset: 0)
        }
        let decoder = StreamDecoder(mixToMono: true)
        _ = try decoder.feed(wav.resumeHeader(atFrame: start))
        return PieceDecoder(decoder: decoder, offset: Int64(wav.byteOffset(atFrame: start)))
    }
}

/// A decoder for one piece: feed it the file from `offset`.
final class PieceDecoder {
    let decoder: StreamDecoder
    let offset: Int64
    /// Samples per frame of the batches (an MP3 is mixed to one channel; a stereo WAV is left as two).
    private(set) var channels = 1

    init(decoder: StreamDecoder, offset: Int64) {
        self.decoder = decoder
        self.offset = offset
    }

    /// The samples `bytes` complete, from the piece's first on (one channel: the decoder mixes to mono), in the
    /// decoder's batches (not joined: the accumulator takes them one by one).
    func feed(_ bytes: [UInt8]) throws -> [[Int16]] { samples(try decoder.feed(bytes)) }

    func finish() throws -> [[Int16]] { samples(try decoder.finish()) }

    private func samples(_ outputs: [DecodedAudio]) -> [[Int16]] {
        outputs.compactMap { output in
            switch output {
            case .format(let format, _):
                channels = format.channels
                return nil
            case .samples(let batch):
                return batch
            }
        }
    }
}

/// A piece's seek landed on an estimate although the probe's landed exactly: not expected (the stream is
/// CBR); the sonogram fails with this rather than draw a picture that is not the recording's.
enum SonogramPiecesError: Error, CustomStringConvertible {
    case seekNotExact(Int)

    var description: String {
        switch self {
        case .seekNotExact(let sample): "a piece's seek to sample \(sample) was not exact"
        }
    }
}
