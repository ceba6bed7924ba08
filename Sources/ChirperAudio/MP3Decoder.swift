import CMPG123

/// An error from libmpg123, with the library's own message.
public struct MP3DecoderError: UserFacingError, Hashable, CustomStringConvertible {
    /// The libmpg123 error code (`MPG123_ERR` and friends), or 0 for errors found by this wrapper.
    public var code: Int32
    /// libmpg123's message (`mpg123_strerror`), or this wrapper's.
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var userMessage: String { "cannot decode this MP3: \(message); try another recording" }
    public var description: String { "mpg123 error \(code): \(message)" }
}

/// The MP3 ended before the length its Info/Xing header announces: the file was cut short.
public struct TruncatedAudio: UserFacingError, Hashable {
    public var playedSeconds: Double
    public var expectedSeconds: Double
    public var userMessage: String {
        let played = (playedSeconds * 10).rounded() / 10
        let expected = (expectedSeconds * 10).rounded() / 10
        return "recording cut short: the file ends after \(played) s of \(expected) s; try another recording"
    }
}

/// Decodes an MP3 byte stream fed in pieces of any size (libmpg123 feed mode) into 16-bit PCM.
///
/// One owner for one `mpg123_handle`: created in `init`, freed in `deinit`. The output is interleaved signed
/// 16-bit at the stream's own rate and channel count; a `.format` is emitted before the first samples and
/// whenever the stream changes format. Not thread-safe: use it from one task at a time.
public final class MP3Decoder {
    private let handle: OpaquePointer
    /// Reused output buffer for `mpg123_read` (samples).
    private var scratch: [Int16]
    private var format: PCMFormat?
    /// Interleaved samples produced so far.
    private(set) public var samplesDecoded = 0
    /// Frames per channel that the Info/Xing header promises, when it has one.
    private var exactLength: Int?
    /// Bytes of the whole stream (after any ID3v2 tag stripped by the caller), if known: lets libmpg123
    /// estimate the length of a stream without an Info/Xing header.
    private let streamLength: Int64?

    private static let libraryInitialised: Int32 = mpg123_init()

    /// - Parameter streamLength: the number of MP3 bytes that will be fed, if known (for the duration estimate).
    public init(streamLength: Int64? = nil) throws(MP3DecoderError) {
        _ = Self.libraryInitialised
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else {
            throw MP3DecoderError(code: error, message: String(cString: mpg123_plain_strerror(error)))
        }
        self.handle = handle
        self.streamLength = streamLength
        self.scratch = [Int16](repeating: 0, count: 32 * 1024)
        do {
            let quiet = Int(MPG123_QUIET.rawValue)
            try check(mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), quiet, 0))
            // Only 16-bit output, at every rate the library knows, mono or stereo as the stream is.
            try check(mpg123_format_none(handle))
            var rates: UnsafePointer<Int>?
            var rateCount = 0
            mpg123_rates(&rates, &rateCount)
            let channels = Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue)
            let encoding = Int32(MPG123_ENC_SIGNED_16.rawValue)
            for index in 0..<rateCount {
                if let rate = rates?[index] {
                    try check(mpg123_format(handle, rate, channels, encoding))
                }
            }
            try check(mpg123_open_feed(handle))
        } catch {
            mpg123_delete(handle)
            throw error
        }
    }

    deinit {
        mpg123_delete(handle)
    }

    /// Feeds the next bytes of the stream and returns what they decode to (possibly nothing yet).
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(MP3DecoderError) -> [DecodedAudio] {
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

    private func drain(into output: inout [DecodedAudio]) throws(MP3DecoderError) {
        while true {
            var done = 0
            let status = scratch.withUnsafeMutableBytes { buffer in
                mpg123_read(handle, buffer.baseAddress, buffer.count, &done)
            }
            if done > 0 {
                let count = done / MemoryLayout<Int16>.size
                output.append(.samples(Array(scratch[0..<count])))
                samplesDecoded += count
            }
            switch status {
            case Int32(MPG123_OK.rawValue):
                continue
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

    private func announceFormat(into output: inout [DecodedAudio]) throws(MP3DecoderError) {
        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        try check(mpg123_getformat(handle, &rate, &channels, &encoding))
        let newFormat = PCMFormat(sampleRate: rate, channels: Int(channels))
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
