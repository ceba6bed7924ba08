import ChirperCore
import CMPG123

/// Decodes an MP3 byte stream fed in pieces of any size (libmpg123 feed mode) into 16-bit PCM.
///
/// One owner for one `mpg123_handle`: created in `init`, freed in `deinit`. The output is interleaved signed
/// 16-bit at the rate and channel count of the stream's first frame; one `.format` is emitted before the first
/// samples, and frames of another format later in the stream are converted to it by libmpg123. Not
/// thread-safe: use it from one task at a time.
public final class MP3Decoder {
    private let handle: OpaquePointer
    /// Each batch is a new array of this many samples (80 KiB) that libmpg123 decodes frames straight into
    /// (`mpg123_replace_buffer`, `mpg123_decode_frame`): the batch is handed on as it is, and no byte of
    /// output is copied (`mpg123_read` decodes into the handle's own buffer and copies from there: 1.3 % of a
    /// whole-file decode's time went to that copy).
    private static let batchSamples = 40 * 1024
    /// A frame is decoded into a batch only while this much room is left: the most one frame can make, also
    /// when libmpg123 resamples a later frame of another rate to the track's (a 576-sample frame at 8 kHz
    /// made 48 kHz stereo is 13.5 KiB), because the library checks the room when it learns the new rate.
    private static let frameRoom = 16 * 1024
    /// Where the handle's output buffer points between batches, so that it never points into an array
    /// already handed on. Nothing is decoded into it. Freed after the handle.
    private let parking = UnsafeMutableRawPointer.allocate(byteCount: MP3Decoder.frameRoom, alignment: 16)
    private var format: PCMFormat?
    /// Interleaved samples produced so far.
    private(set) public var samplesDecoded = 0
    /// Frames per channel that the Info/Xing header promises, when it has one.
    private var exactLength: Int?
    /// After a seek libmpg123 could only estimate (beyond what was fed), the gapless cut it no longer makes.
    private var trim: GaplessTrim?
    /// The frames decoded from the start: where the first starts (a CBR grid's anchor, counted as libmpg123
    /// counts its input) and their bit rates (a stream without an Info header is only known to be CBR once many
    /// frames had one rate).
    private var survey = StreamSurvey()
    /// After a seek by the frame grid: the first bytes fed from there, held until the frame's header is found
    /// among them.
    private var aligning: (grid: CBRFrameGrid, held: [UInt8])?
    /// Bytes of the whole stream (after any ID3v2 tag stripped by the caller), if known: lets libmpg123
    /// estimate the length of a stream without an Info/Xing header.
    private let streamLength: Int64?

    private static let libraryInitialised: Int32 = mpg123_init()
    private static let preframes = 9

    /// - Parameters:
    ///   - streamLength: the number of MP3 bytes that will be fed, if known (for the duration estimate).
    ///   - mixToMono: decode both channels mixed into one (libmpg123 mixes before its synthesis filter bank,
    ///     which saves about half the synthesis: for analysis, e.g. the sonogram).
    public init(streamLength: Int64? = nil, mixToMono: Bool = false) throws(MP3DecoderError) {
        _ = Self.libraryInitialised
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else {
            parking.deallocate()
            throw MP3DecoderError(code: error, message: String(cString: mpg123_plain_strerror(error)))
        }
        self.handle = handle
        self.streamLength = streamLength
        do {
            let quiet = Int(MPG123_QUIET.rawValue)
            try check(mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), quiet, 0))
            // Only 16-bit output, at every rate the library knows, mono or stereo as the stream is.
            try check(mpg123_format_none(handle))
            var rates: UnsafePointer<Int>?
            var rateCount = 0
            mpg123_rates(&rates, &rateCount)
            if mixToMono {
                try check(mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_MONO_MIX.rawValue), 0))
            }
            let channels = Int32(mixToMono ? MPG123_MONO.rawValue : MPG123_MONO.rawValue | MPG123_STEREO.rawValue)
            let encoding = Int32(MPG123_ENC_SIGNED_16.rawValue)
            for index in 0..<rateCount {
                if let rate = rates?[index] {
                    try check(mpg123_format(handle, rate, channels, encoding))
                }
            }
            // Frames decoded in advance of a seek's target, so that its bit reservoir is whole: a frame's data
            // may begin up to 511 bytes back (255 for MPEG-2 and 2.5), that is 8 of the smallest frames; with
            // libmpg123's default of 4, a seek in quiet low-rate VBR starts with a frame of silence.
            try check(mpg123_param2(handle, Int32(MPG123_PREFRAMES.rawValue), Self.preframes, 0))
            try check(mpg123_open_feed(handle))
            try check(mpg123_replace_buffer(handle, parking, Self.frameRoom))
        } catch {
            mpg123_delete(handle)
            parking.deallocate()
            throw error
        }
    }

    deinit {
        mpg123_delete(handle)
        parking.deallocate()
    }

    /// Feeds the next bytes of the stream and returns what they decode to (possibly nothing yet).
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(MP3DecoderError) -> [DecodedAudio] {
        if let (grid, earlier) = aligning {
            // After a seek by the frame grid: the header is among the first bytes; libmpg123 gets it first.
            let held = earlier + bytes
            guard let start = grid.headerStart(in: held) else {
                aligning = (grid, held)
                return []
            }
            aligning = nil
            return try feed(Array(held[start...]))
        }
        var output: [DecodedAudio] = []
        if let base = bytes.baseAddress, !bytes.isEmpty {
            let status = mpg123_feed(handle, base.assumingMemoryBound(to: UInt8.self), bytes.count)
            try check(status)
        }
        try drain(into: &output)
        return output
    }

    /// Feeds bytes from an array.
    public func feed(_ bytes: [UInt8]) throws(MP3DecoderError) -> [DecodedAudio] {
        var result: Result<[DecodedAudio], MP3DecoderError> = .success([])
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(MP3DecoderError) in try feed(raw) }
        }
        return try result.get()
    }

    /// Call at the end of the stream: checks that it was not cut short, by the Info/Xing header's count.
    public func finish() throws(TruncatedAudio) {
        guard let format, let exactLength, format.channels > 0 else { return }
        let frames = samplesDecoded / format.channels
        // One MP3 frame of slack (1152 samples) for encoders that count differently.
        if frames + 1152 < exactLength {
            throw TruncatedAudio(
                playedSeconds: Double(frames) / Double(format.sampleRate),
                expectedSeconds: Double(exactLength) / Double(format.sampleRate)
            )
        }
    }

    /// The recording's length in seconds, once the format is known (exact from an Info/Xing header, or
    /// estimated from `streamLength`).
    public private(set) var duration: Double?
    /// Whether `duration` is the stream's own (its Info/Xing header's frame count), not an estimate.
    public var durationIsExact: Bool { exactLength != nil }

    private func drain(into output: inout [DecodedAudio]) throws(MP3DecoderError) {
        while true {
            var status = Int32(MPG123_OK.rawValue)
            let samples = [Int16](unsafeUninitializedCapacity: Self.batchSamples) { buffer, initialized in
                status = decodeFrames(into: UnsafeMutableRawBufferPointer(buffer), filled: &initialized)
            }
            let kept = trim == nil ? samples : trimmed(samples)
            if !kept.isEmpty {
                output.append(.samples(kept))
                samplesDecoded += kept.count
            }
            switch status {
            case Int32(MPG123_OK.rawValue):
                continue  // the batch is full
            case Int32(MPG123_NEW_FORMAT.rawValue):
                try announceFormat(into: &output)
            case Int32(MPG123_NEED_MORE.rawValue), Int32(MPG123_DONE.rawValue):
                return
            default:
                try check(status)
                return
            }
        }
    }

    /// Decodes whole frames into `batch` while a frame's room is left; `filled` counts the samples written.
    /// Returns `MPG123_OK` when the batch is full, or the status that stopped it.
    private func decodeFrames(into batch: UnsafeMutableRawBufferPointer, filled: inout Int) -> Int32 {
        guard let base = batch.baseAddress else { return Int32(MPG123_ERR.rawValue) }
        defer { mpg123_replace_buffer(handle, parking, Self.frameRoom) }
        var bytes = 0
        while batch.count - bytes >= Self.frameRoom {
            let target = base + bytes
            var status = mpg123_replace_buffer(handle, target, batch.count - bytes)
            guard status == Int32(MPG123_OK.rawValue) else { break }
            var audio: UnsafeMutablePointer<UInt8>?
            var count = 0
            var number: off_t = 0
            status = mpg123_decode_frame(handle, &number, &audio, &count)
            var info = mpg123_frameinfo2()
            if status == Int32(MPG123_OK.rawValue), survey.counting,
                mpg123_info2(handle, &info) == Int32(MPG123_OK.rawValue)
            {
                survey.frameDecoded(bitRate: Int(info.bitrate)) {
                    var word: UInt = 0
                    var body: UnsafeMutablePointer<UInt8>?
                    var size = 0
                    _ = mpg123_framedata(handle, &word, &body, &size)
                    return (Int(number), Int64(mpg123_framepos(handle)), UInt32(truncatingIfNeeded: word))
                }
            }
            if count > 0, let audio {
                // A frame trimmed at its start (gapless, or a seek inside it) begins further in.
                if UnsafeMutableRawPointer(audio) != target { target.copyMemory(from: audio, byteCount: count) }
                bytes += count
            }
            guard status == Int32(MPG123_OK.rawValue) else {
                filled = bytes / MemoryLayout<Int16>.size
                return status
            }
        }
        filled = bytes / MemoryLayout<Int16>.size
        return Int32(MPG123_OK.rawValue)
    }

    private func announceFormat(into output: inout [DecodedAudio]) throws(MP3DecoderError) {
        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        try check(mpg123_getformat(handle, &rate, &channels, &encoding))
        let newFormat = PCMFormat(sampleRate: rate, channels: Int(channels))
        if format == nil {
            // One output format for the whole track: from now on libmpg123 may only produce this one, so a
            // later change in the stream (mono ↔ stereo between frames, another sample rate in joined files)
            // is converted by the library itself (mixing to mono or duplicating to stereo, NtoM resampling)
            // and the sink, or the one WAV file, never sees a change. The result equals
            // `mpg123 -s -r RATE --resample NtoM --mono|--stereo` (StreamFamilyTests). Plain `mpg123 -r`
            // resamples with libsyn123 in the front end instead and differs by ±1 after the change; plain
            // `mpg123 -s` writes the change out raw, which no single-format sink can play.
            try check(mpg123_format_none(handle))
            try check(mpg123_format(handle, rate, channels, encoding))
            try check(mpg123_param2(handle, Int32(MPG123_FORCE_RATE.rawValue), rate, 0))
        } else if newFormat == format {
            return  // the stream changed, the output did not
        }
        if duration == nil {
            // In feed mode a length is only known from an Info/Xing header: that one is exact.
            let frames = mpg123_length(handle)
            if frames > 0 {
                exactLength = Int(frames)
                duration = Double(frames) / Double(rate)
            } else if let streamLength, streamLength > 0 {
                _ = mpg123_set_filesize(handle, off_t(streamLength))
                let estimate = mpg123_length(handle)
                if estimate > 0 { duration = Double(estimate) / Double(rate) }
            }
        }
        format = newFormat
        output.append(.format(newFormat, duration: duration))
    }

    private func check(_ status: Int32) throws(MP3DecoderError) {
        guard status != Int32(MPG123_OK.rawValue) else { return }
        let message: String
        if status == Int32(MPG123_ERR.rawValue) {
            message = String(cString: mpg123_strerror(handle))
        } else {
            message = String(cString: mpg123_plain_strerror(status))
        }
        throw MP3DecoderError(code: status, message: message)
    }
}

// MARK: - Seeking

/// Where libmpg123 will resume after a seek: feed it from `inputOffset`, and its first output is `frame`.
public struct MP3SeekPoint: Sendable, Hashable {
    /// The MP3 byte (counted from the first byte fed to this decoder) to feed from next.
    public var inputOffset: Int64
    /// The frame (sample per channel) the first output will be, as libmpg123 reckons it.
    public var frame: Int
    /// False when `frame` is an estimate: a VBR stream beyond what was fed (placed by its Xing TOC or the mean
    /// frame size), or a stream without an Info header not yet seen to be CBR.
    public var accurate: Bool
}

extension MP3Decoder {
    /// Prepares a seek to `frame` (samples per channel from the start) with `mpg123_feedseek`.
    ///
    /// Inside what was fed, libmpg123's frame index gives an exact byte and the position is sample-exact.
    /// Beyond it, the seek is fuzzy (`MPG123_FUZZY`): for VBR with a Xing TOC and a known stream length, from
    /// the 100-entry table; otherwise from the mean frame size. A fuzzy landing turns libmpg123's gapless cut
    /// off (it neither skips to the sample inside the first frame nor drops the encoder's padding at the end),
    /// so this decoder makes that cut itself (`GaplessTrim`) from the frame libmpg123 landed on.
    ///
    /// For CBR the frames lie on a grid (`CBRFrameGrid`), so the byte of the frame libmpg123 believes it lands
    /// on is known and the first sample out is `frame`, exactly (`SampleExactSeekTests`, 20 random seeks per
    /// kind of stream): `accurate` is true. For VBR the TOC only places the frame near it (measured 0 to 4
    /// frames early): `accurate` is false and `frame` is then an estimate. After this call, feed the bytes from
    /// `inputOffset` on (if that is where the fed bytes end, just keep feeding).
    public func seek(toFrame frame: Int) throws(MP3DecoderError) -> MP3SeekPoint {
        let samplesPerFrame = max(1, Int(mpg123_spf(handle)))
        if exactLength == nil, frame < Self.restartBelowFrames * samplesPerFrame {
            return try restart(atFrame: max(0, frame), samplesPerFrame: samplesPerFrame)
        }
        try check(mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_FUZZY.rawValue), 0))
        var info = mpg123_frameinfo2()
        let variable = mpg123_info2(handle, &info) == Int32(MPG123_OK.rawValue) && info.vbr != 0
        if variable, let streamLength, streamLength > 0 {
            // The Xing TOC's byte positions are fractions of the stream's length; a known length turns it on.
            try check(mpg123_set_filesize(handle, off_t(streamLength)))
        } else if !variable {
            // CBR: the mean frame size is exact, the TOC (used whenever a length is known, e.g. from the Info
            // header) only has 1/256 steps of the stream. Length 0 turns the TOC off; the duration is known.
            try check(mpg123_set_filesize(handle, 0))
        }
        let target = max(0, frame)
        var inputOffset: off_t = 0
        let seekSet: Int32 = 0  // SEEK_SET
        let landed = mpg123_feedseek(handle, off_t(target), seekSet, &inputOffset)
        if landed < 0 { try check(Int32(truncatingIfNeeded: landed)) }
        var accurate = 0
        var unused = 0.0
        _ = mpg123_getstate2(handle, Int32(MPG123_ACCURATE.rawValue), &accurate, &unused)
        trim = nil
        aligning = nil
        var exact = accurate != 0
        if !exact {
            let cut = fuzzyTrim(target: target)
            survey.jumped()
            if !variable, let grid = survey.grid(info) {
                // libmpg123 guessed the byte from a running mean of the frame sizes and resyncs to the next
                // frame after it, believing it is the first frame it decodes in advance. The grid knows where
                // that frame starts: feed from just before it, and the belief is the truth, if the stream is
                // CBR (its Info header says so, or a second of frames had one rate).
                inputOffset = off_t(grid.resyncByte(forFrame: primingFrame(for: cut, info: info)))
                aligning = (grid, [])
                exact = survey.constant(withInfoHeader: exactLength != nil)
            } else if !variable && exactLength != nil && inputOffset > 0 {
                // A CBR guess is `audio_start + mean frame size × frame`, and `audio_start` is the Info
                // header's frame, which holds no audio: the guess is one frame early (measured). One frame
                // on, libmpg123 resyncs to the frame it believes it is at.
                inputOffset += off_t(info.framesize)
            }
            trim = cut
        }
        // The truncation check in `finish` counts output from the start: count the skipped part as played.
        if let format { samplesDecoded = target * format.channels }
        return MP3SeekPoint(inputOffset: Int64(inputOffset), frame: target, accurate: exact)
    }

    /// Seeks into a stream's first frames that start over from its first byte instead (frames of samples per
    /// channel, as libmpg123's frames are counted).
    static let restartBelowFrames = 16

    /// A seek into the first frames of a stream without an Info header: libmpg123's seek there gives the
    /// first ~1,000 samples otherwise than decoding from the start does (measured on MPEG-1 and MPEG-2, CBR and
    /// VBR: its start-up is left out), so the stream starts over from its first byte, as a new one, and the
    /// samples before `target` are dropped. Exact: the output is the decoding from the start, from `target` on.
    private func restart(atFrame target: Int, samplesPerFrame: Int) throws(MP3DecoderError) -> MP3SeekPoint {
        try check(mpg123_open_feed(handle))
        try check(mpg123_replace_buffer(handle, parking, Self.frameRoom))
        survey = StreamSurvey()
        aligning = nil
        trim = GaplessTrim(
            position: 0, delay: 0, samplesPerFrame: samplesPerFrame, start: target, end: nil, paddingEnd: nil)
        // The truncation check in `finish` counts output from the start: count the skipped part as played.
        if let format { samplesDecoded = target * format.channels }
        return MP3SeekPoint(inputOffset: 0, frame: target, accurate: true)
    }

    /// The frame libmpg123 believes it finds first after a seek that lands with `cut`: the frame that holds the
    /// target, less the frames it decodes in advance to fill the bit reservoir (`ignoreframe` in frame.c).
    private func primingFrame(for cut: GaplessTrim, info: mpg123_frameinfo2) -> Int {
        let preshift = info.layer == 3 ? max(1, Self.preframes) : min(2, Self.preframes)
        return max(0, cut.landingFrame - preshift)
    }

    /// The cut libmpg123 would make after an exact seek to `target`, for the frame it landed on now. Its
    /// first output is the whole frame that holds the target (counted, as the library does, with the
    /// encoder's delay and its own 529-sample decoder delay in front when the Info header gives them).
    private func fuzzyTrim(target: Int) -> GaplessTrim {
        let samplesPerFrame = max(1, Int(mpg123_spf(handle)))
        var encoderDelay = 0
        var unused = 0.0
        _ = mpg123_getstate2(handle, Int32(MPG123_ENC_DELAY.rawValue), &encoderDelay, &unused)
        let delay = exactLength != nil && encoderDelay >= 0 ? encoderDelay + GaplessTrim.decoderDelay : 0
        let frames = Int(mpg123_framelength(handle))
        return GaplessTrim(
            position: (target + delay) / samplesPerFrame * samplesPerFrame - delay,
            delay: delay,
            samplesPerFrame: samplesPerFrame,
            start: target,
            end: exactLength,
            paddingEnd: exactLength != nil && frames > 0 ? frames * samplesPerFrame - delay : nil)
    }

    /// The samples of `batch` that `trim` keeps (the batch itself when it keeps them all).
    private func trimmed(_ batch: [Int16]) -> [Int16] {
        guard let format, format.channels > 0, var cut = trim else { return batch }
        let kept = cut.keep(frames: batch.count / format.channels)
        trim = cut
        if kept.count == 1, kept[0] == 0..<(batch.count / format.channels) { return batch }
        var samples: [Int16] = []
        for range in kept {
            samples += batch[(range.lowerBound * format.channels)..<(range.upperBound * format.channels)]
        }
        return samples
    }
}
