import CFLAC
import ChirperCore
import Glibc

/// Decodes a FLAC stream into 16-bit PCM with libFLAC: fed in pieces of any size, as the MP3 and WAV decoders
/// are, or read from a local file (`FLACDecoder.seeking(file:toFrame:)`, which seeks with libFLAC's own seek).
///
/// One owner for one `FLAC__StreamDecoder`: created in `init`, deleted in `deinit`; every libFLAC call's
/// outcome goes through `check`. libFLAC pulls its bytes through callbacks: fed, it is given the bytes held here,
/// and it is only asked for a frame while a whole one is held (the largest frame STREAMINFO promises), so it
/// never waits inside a call; at the end of the stream it gets the rest. Of the metadata only STREAMINFO is
/// handed to libFLAC: the other blocks (a cover picture, a seek table) stream past without being held.
///
/// The output is the samples `flac -d` writes, made 16-bit as `sox -D … -b 16` makes them (rounded, not
/// dithered, as `WAVDecoder` does). Mono and stereo are played whole, more channels one at a time
/// (`ChannelChoice`). A damaged frame is silence in its place, as `flac -F` plays it (`damage` says so once),
/// not an abort, and the frames after it keep their time.
/// Not thread-safe.
public final class FLACDecoder {
    typealias Handle = UnsafeMutablePointer<FLAC__StreamDecoder>

    /// Where libFLAC's bytes come from.
    enum Input {
        /// Bytes fed: `held[start...]` are not yet handed to libFLAC; `ended` once no more will come.
        case fed(held: [UInt8], start: Int, ended: Bool)
        /// A local file read with `pread` at `position` (for a seek by libFLAC).
        case file(descriptor: Int32, size: Int64, position: Int64)
    }

    /// The walk over the stream's own header while fed: only STREAMINFO is kept.
    enum Walk {
        case signature
        case blockHeader
        case streamInfo(last: Bool)
        case skip(remaining: Int, last: Bool)
        /// Audio frames: every byte goes to libFLAC.
        case frames
    }

    /// What STREAMINFO says, as libFLAC read it.
    struct StreamInfo {
        var sampleRate: Int
        var channels: Int
        var totalSamples: UInt64
        var maxFrameBytes: Int
        var maxBlockSize: Int
        var bits: Int
    }

    let handle: Handle
    var input: Input
    var walk: Walk
    /// A header field collected across feeds while walking.
    var partial: [UInt8] = []
    /// STREAMINFO's 34 bytes, as in the file.
    var streamInfoBytes: [UInt8]?
    var info: StreamInfo?
    var choice: ChannelChoice?
    let requestedChannel: Int?
    /// Samples converted since the output was last handed on, and the formats before them.
    var output: [DecodedAudio] = []
    var samples: [Int16] = []
    var announced = false
    /// Frames (samples per channel) before this one are dropped (a seek that restarts from the start).
    var dropBefore: UInt64 = 0
    /// The frame after the last one decoded.
    var nextFrame: UInt64 = 0
    /// The last frame written, once one is: frames missing after it are played as silence.
    var lastFrame: FrameShape?
    /// A failure met inside a callback, thrown by `check` once libFLAC returns.
    var failure: FLACDecoderError?
    /// Why the current call to libFLAC is to be made again (see `check`), once a callback found it so.
    var retry: Retry?
    /// After a starved read, the bytes to hold beyond libFLAC's position before it is asked again.
    var retryAfter = 0
    /// What damage was met before the current call to libFLAC (a call made again meets its errors again).
    var metBefore = DamageMet()
    /// libFLAC has written a frame since it was last flushed, so it would fill a gap after it itself.
    var libFLACFillsGaps = false
    /// Where the frame being decoded starts in the fed input (libFLAC's decode position before the call), if
    /// known: only then can the call be made again from there.
    var frameStart: Int64?
    /// The start of the frame libFLAC last abandoned unannounced (see `check`).
    var lastAbandoned: Int64?
    /// Fed bytes libFLAC had read and `hold` let go of.
    var droppedBytes: Int64 = 0
    /// Bytes libFLAC read from the file (a seek's cost).
    public internal(set) var bytesRead: Int64 = 0
    /// Damaged frames met so far, if any.
    public var damage: FLACDamage? { met.damage }
    /// What damage was met so far.
    var met = DamageMet()
    /// The recording's length in seconds, once STREAMINFO is read (nil when it does not say).
    public internal(set) var duration: Double?

    /// STREAMINFO as a stream of its own: the signature, and the block marked last (a seek's fresh decoder).
    static func header(streamInfo: [UInt8]) -> [UInt8] {
        Array("fLaC".utf8) + [0x80, 0, 0, UInt8(streamInfo.count)] + streamInfo
    }

    /// A decoder to feed a FLAC stream's bytes, from its first.
    /// - Parameter channel: the channel to play alone (counted from 1); nil plays mono and stereo whole and
    ///   the first of more channels.
    public convenience init(channel: Int? = nil) throws(FLACDecoderError) {
        try self.init(input: .fed(held: [], start: 0, ended: false), walk: .signature, channel: channel)
    }

    init(input: Input, walk: Walk, channel: Int?) throws(FLACDecoderError) {
        var reason = [CChar](repeating: 0, count: 256)
        guard chirper_flac_load(&reason, reason.count) == 0 else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw FLACDecoderError("cannot load libFLAC (\(text)); install libflac12", libraryMissing: true)
        }
        guard let handle = FLAC__stream_decoder_new() else { throw FLACDecoderError("libFLAC is out of memory") }
        self.handle = handle
        self.input = input
        self.walk = walk
        requestedChannel = channel
        let client = Unmanaged.passUnretained(self).toOpaque()
        // Fed, `seek` moves within the bytes held: libFLAC goes back to the sync of a frame that proves damaged,
        // as it does in a file, and `tell` gives the start of each frame, which a starved read rewinds to.
        let status = FLAC__stream_decoder_init_stream(
            handle, Self.read, Self.seek, Self.tell, Self.length, Self.endOfFile, Self.write, Self.metadata,
            Self.error, client)
        // A failure here leaves the decoder to `deinit`, which deletes it.
        try check(status == FLAC__STREAM_DECODER_INIT_STATUS_OK, "it cannot start (init status \(status.rawValue))")
    }

    deinit {
        _ = FLAC__stream_decoder_finish(handle)
        FLAC__stream_decoder_delete(handle)
        if case .file(let descriptor, _, _) = input { Glibc.close(descriptor) }
    }

    /// The channels played, once STREAMINFO is read.
    public var channelChoice: ChannelChoice? { choice }

    /// The fed input held (behind what libFLAC read, and not read yet).
    var heldBytes: Int {
        if case .fed(let held, _, _) = input { return held.count }
        return 0
    }

    /// Whether `duration` is the stream's own count of samples.
    public var durationIsExact: Bool { (info?.totalSamples ?? 0) > 0 }

    /// Feeds the next bytes of the stream and returns what they decode to (possibly nothing yet).
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(FLACDecoderError) -> [DecodedAudio] {
        try walkHeader(bytes[...])
        try decodeHeld()
        return takeOutput()
    }

    /// Feeds bytes from an array.
    public func feed(_ bytes: [UInt8]) throws(FLACDecoderError) -> [DecodedAudio] {
        var result: Result<[DecodedAudio], FLACDecoderError> = .success([])
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(FLACDecoderError) in try feed(raw) }
        }
        return try result.get()
    }

    /// Call at the end of the stream: decodes what is held and returns it. A stream that ended before its
    /// audio is an error; one that ends early is not (what arrived was played).
    public func finish() throws(FLACDecoderError) -> [DecodedAudio] {
        switch walk {
        case .frames: break
        case .signature where partial.isEmpty: throw FLACDecoderError("the file is empty")
        default: throw FLACDecoderError("the file ends inside its header")
        }
        if case .fed(let held, let start, _) = input { input = .fed(held: held, start: start, ended: true) }
        try decodeHeld()
        return takeOutput()
    }

    func takeOutput() -> [DecodedAudio] {
        if !samples.isEmpty {
            output.append(.samples(samples))
            samples = []
        }
        defer { output = [] }
        return output
    }

    // MARK: - The stream's header

    /// Walks the metadata blocks as they stream past; from the first audio frame on, holds the bytes for
    /// libFLAC behind STREAMINFO alone.
    private func walkHeader(_ bytes: Slice<UnsafeRawBufferPointer>) throws(FLACDecoderError) {
        var rest = bytes
        while !rest.isEmpty {
            switch walk {
            case .signature:
                guard let field = collect(4, from: &rest) else { return }
                guard field == Array("fLaC".utf8) else { throw FLACDecoderError("it does not start with fLaC") }
                walk = .blockHeader
            case .blockHeader:
                guard let field = collect(4, from: &rest) else { return }
                let last = field[0] & 0x80 != 0
                let length = Int(field[1]) << 16 | Int(field[2]) << 8 | Int(field[3])
                if field[0] & 0x7F == 0 {
                    guard length == 34, streamInfoBytes == nil else {
                        throw FLACDecoderError("its STREAMINFO block is damaged")
                    }
                    walk = .streamInfo(last: last)
                } else {
                    walk = .skip(remaining: length, last: last)
                }
            case .streamInfo(let last):
                guard let field = collect(34, from: &rest) else { return }
                streamInfoBytes = field
                try afterBlock(last: last)
            case .skip(let remaining, let last):
                let skipped = min(remaining, rest.count)
                rest = rest.dropFirst(skipped)
                if skipped < remaining {
                    walk = .skip(remaining: remaining - skipped, last: last)
                    return
                }
                try afterBlock(last: last)
            case .frames:
                hold(rest)
                return
            }
        }
    }

    private func afterBlock(last: Bool) throws(FLACDecoderError) {
        guard last else {
            walk = .blockHeader
            return
        }
        guard let streamInfoBytes else { throw FLACDecoderError("it has no STREAMINFO block") }
        walk = .frames
        Self.header(streamInfo: streamInfoBytes).withUnsafeBytes { hold($0[...]) }
    }

    /// `count` bytes, joining what was collected before; nil (collecting them) when too few are there.
    private func collect(_ count: Int, from rest: inout Slice<UnsafeRawBufferPointer>) -> [UInt8]? {
        let taken = rest.prefix(count - partial.count)
        partial += taken
        rest = rest.dropFirst(taken.count)
        guard partial.count == count else { return nil }
        defer { partial = [] }
        return partial
    }

    /// Keeps bytes for libFLAC, dropping those it has read once they are many, but for a frame and libFLAC's
    /// own buffer behind it (where it goes back to on damage).
    func hold(_ bytes: Slice<UnsafeRawBufferPointer>) {
        guard case .fed(var held, var start, let ended) = input else { return }
        input = .fed(held: [], start: 0, ended: ended)  // the only reference left is `held`: appended in place
        let drop = start - wholeFrame - (1 << 16)
        if drop >= 1 << 16, drop * 2 >= held.count {
            held.removeFirst(drop)
            droppedBytes += Int64(drop)
            start -= drop
        }
        held += bytes
        input = .fed(held: held, start: start, ended: ended)
    }

    // MARK: - Decoding

    /// Bytes that hold any frame whole: the largest STREAMINFO promises, or the largest its block size and
    /// sample width allow; before STREAMINFO is read, its own block.
    var wholeFrame: Int {
        guard let info else { return 42 }
        let widest = info.maxBlockSize * info.channels * (info.bits + 1) / 8 + 64
        return (info.maxFrameBytes > 0 ? min(info.maxFrameBytes + 64, widest) : widest) + 1024
    }

    /// Decodes frames while a whole one is held (all of them once the stream ended).
    private func decodeHeld() throws(FLACDecoderError) {
        guard case .frames = walk else { return }
        while case .fed(let held, let start, let ended) = input {
            let state = FLAC__stream_decoder_get_state(handle)
            if state == FLAC__STREAM_DECODER_END_OF_STREAM { return }
            if !ended && held.count - start < max(wholeFrame, retryAfter) { return }
            var frameAt: UInt64 = 0
            frameStart = FLAC__stream_decoder_get_decode_position(handle, &frameAt) != 0 ? Int64(frameAt) : nil
            metBefore = met
            let succeeded = FLAC__stream_decoder_process_single(handle) != 0
            if retry != .starved { retryAfter = 0 }
            try check(succeeded, nil)
        }
    }

    /// The one funnel for libFLAC's outcomes: a failure a callback met, or a call that failed (with libFLAC's
    /// state as the reason). Two fed calls are not failures but are made again from the byte they started at,
    /// with libFLAC flushed, so the outcome does not depend on how the bytes were split:
    /// - a read abandoned for want of bytes (damage longer than a frame), once twice the bytes are held; past
    ///   `retryReach` of them (a long stretch of garbage) the search goes on in what comes, so memory stays flat;
    /// - a call whose write was libFLAC's silence for a gap: libFLAC 1.4.2 writes it in the buffer of the frame
    ///   after the gap, which is lost too (mended in 1.4.3); flushed, libFLAC leaves the gap to `write`.
    func check(_ succeeded: Bool, _ reason: @autoclosure () -> String?) throws(FLACDecoderError) {
        if let failure {
            self.failure = nil
            throw failure
        }
        if let retry {
            self.retry = nil
            let reach = consumed - (frameStart ?? consumed)
            try flush()
            guard let frameStart, retry != .starved || reach <= retryReach, rewind(to: frameStart),
                case .fed(let held, let start, _) = input
            else {
                noteDamage()
                return
            }
            met = metBefore
            if retry == .starved { retryAfter = 2 * (held.count - start) }
            return
        }
        guard !succeeded, FLAC__stream_decoder_get_state(handle) != FLAC__STREAM_DECODER_END_OF_STREAM else { return }
        // libFLAC 1.4 gives up on a frame whose Rice code runs past its limit without a word to the error
        // callback, its state left at READ_FRAME, and on a frame its own buffer cannot hold once it went back in
        // it for damage, its state left at SEARCH_FOR_FRAME_SYNC (later versions report the first and resync,
        // and mend the second). That frame is skipped like the others: the search for the next frame starts one
        // byte after its sync, not after what libFLAC had read ahead, so the frames behind it play.
        let state = FLAC__stream_decoder_get_state(handle)
        if state == FLAC__STREAM_DECODER_READ_FRAME || state == FLAC__STREAM_DECODER_SEARCH_FOR_FRAME_SYNC,
            let frameStart, frameStart != lastAbandoned
        {
            lastAbandoned = frameStart
            noteDamage()
            let resume = afterLastSync(from: frameStart)
            try flush()
            rewind(to: resume)
            return
        }
        let resolved = String(cString: FLAC__stream_decoder_get_resolved_state_string(handle))
        throw FLACDecoderError(reason() ?? "libFLAC stopped (\(resolved))")
    }

    /// Empties libFLAC's buffer and has it look for the next frame, with no frame before it.
    private func flush() throws(FLACDecoderError) {
        guard FLAC__stream_decoder_flush(handle) != 0 else { throw FLACDecoderError("libFLAC cannot resync") }
        libFLACFillsGaps = false
    }

    /// Bytes of the input handed to libFLAC so far (its decode position once it has read the frame before).
    var consumed: Int64 {
        switch input {
        case .fed(_, let start, _): Int64(start) + droppedBytes
        case .file(_, _, let position): position
        }
    }

    /// Hands libFLAC the input from byte `offset` on; false when that is no longer held.
    @discardableResult
    func rewind(to offset: Int64) -> Bool {
        switch input {
        case .fed(let held, _, let ended):
            let start = offset - droppedBytes
            guard start >= 0, start <= Int64(held.count) else { return false }
            input = .fed(held: [], start: 0, ended: ended)
            input = .fed(held: held, start: Int(start), ended: ended)
        case .file(let descriptor, let size, _):
            guard offset >= 0, offset <= size else { return false }
            input = .file(descriptor: descriptor, size: size, position: offset)
        }
        return true
    }
}
