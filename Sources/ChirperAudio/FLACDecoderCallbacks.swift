import CFLAC
import ChirperCore
import Glibc

// libFLAC's callbacks: C functions that find their decoder through the client pointer, which is the
// `FLACDecoder` itself (it owns the libFLAC decoder, so it outlives every call).

extension FLACDecoder {
    private static func owner(_ client: UnsafeMutableRawPointer?) -> FLACDecoder {
        Unmanaged<FLACDecoder>.fromOpaque(client!).takeUnretainedValue()
    }

    static let read: FLAC__StreamDecoderReadCallback = { _, buffer, bytes, client in
        guard let buffer, let bytes else { return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
        return owner(client).read(into: buffer, count: bytes)
    }

    static let seek: FLAC__StreamDecoderSeekCallback = { _, offset, client in
        guard offset <= UInt64(Int64.max), owner(client).rewind(to: Int64(offset)) else {
            return FLAC__STREAM_DECODER_SEEK_STATUS_ERROR
        }
        return FLAC__STREAM_DECODER_SEEK_STATUS_OK
    }

    static let tell: FLAC__StreamDecoderTellCallback = { _, offset, client in
        offset?.pointee = UInt64(owner(client).consumed)
        return FLAC__STREAM_DECODER_TELL_STATUS_OK
    }

    static let length: FLAC__StreamDecoderLengthCallback = { _, length, client in
        guard case .file(_, let size, _) = owner(client).input else {
            return FLAC__STREAM_DECODER_LENGTH_STATUS_UNSUPPORTED
        }
        length?.pointee = UInt64(size)
        return FLAC__STREAM_DECODER_LENGTH_STATUS_OK
    }

    static let endOfFile: FLAC__StreamDecoderEofCallback = { _, client in
        switch owner(client).input {
        case .fed(let held, let start, let ended): ended && start >= held.count ? 1 : 0
        case .file(_, let size, let position): position >= size ? 1 : 0
        }
    }

    static let write: FLAC__StreamDecoderWriteCallback = { _, frame, channels, client in
        guard let frame, let channels else { return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT }
        return owner(client).write(frame.pointee.header, channels, footerCRC: frame.pointee.footer.crc)
    }

    static let metadata: FLAC__StreamDecoderMetadataCallback = { _, block, client in
        guard let block, block.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
        owner(client).streamInfo(block.pointee.data.stream_info)
    }

    static let error: FLAC__StreamDecoderErrorCallback = { _, _, client in
        owner(client).noteDamage()
    }

    // MARK: - What they do

    private func read(into buffer: UnsafeMutablePointer<FLAC__byte>, count: UnsafeMutablePointer<Int>)
        -> FLAC__StreamDecoderReadStatus
    {
        switch input {
        case .fed(let held, let start, let ended):
            let taken = min(count.pointee, held.count - start)
            count.pointee = taken
            if taken == 0 {
                if ended { return FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM }
                retry = .starved
                return FLAC__STREAM_DECODER_READ_STATUS_ABORT
            }
            held.withUnsafeBufferPointer { source in
                buffer.update(from: source.baseAddress! + start, count: taken)
            }
            input = .fed(held: held, start: start + taken, ended: ended)
        case .file(let descriptor, let size, let position):
            var got = 0
            repeat {
                got = pread(descriptor, buffer, count.pointee, off_t(position))
            } while got < 0 && errno == EINTR
            guard got >= 0 else {
                failure = FLACDecoderError("the file cannot be read (\(String(cString: strerror(errno))))")
                count.pointee = 0
                return FLAC__STREAM_DECODER_READ_STATUS_ABORT
            }
            count.pointee = got
            bytesRead += Int64(got)
            input = .file(descriptor: descriptor, size: size, position: position + Int64(got))
            if got == 0 { return FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM }
        }
        return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
    }

    private func streamInfo(_ block: FLAC__StreamMetadata_StreamInfo) {
        let info = StreamInfo(
            sampleRate: Int(block.sample_rate), channels: Int(block.channels), totalSamples: block.total_samples,
            maxFrameBytes: Int(block.max_framesize), maxBlockSize: Int(block.max_blocksize),
            bits: Int(block.bits_per_sample))
        guard WAVSampleLayout.sampleRates.contains(info.sampleRate) else {
            failure = FLACDecoderError("a sample rate of \(info.sampleRate) Hz is not played (8 to 384 kHz are)")
            return
        }
        do {
            choice = try ChannelChoice.choose(requested: requestedChannel, fileChannels: info.channels)
        } catch {
            failure = FLACDecoderError(error.userMessage)
            return
        }
        self.info = info
        if info.totalSamples > 0 { duration = Double(info.totalSamples) / Double(info.sampleRate) }
        // The stream starts at its frame 0: a first frame lost is silence too, so the rest keep their time.
        if lastFrame == nil, nextFrame == 0 {
            lastFrame = FrameShape(
                sampleRate: block.sample_rate, channels: block.channels, bits: block.bits_per_sample,
                blockSize: block.max_blocksize)
        }
    }

    /// Converts a decoded frame to 16-bit (the frames before `dropBefore` left out) and announces the format
    /// before the first.
    private func write(
        _ header: FLAC__FrameHeader, _ channels: UnsafePointer<UnsafePointer<FLAC__int32>?>, footerCRC: UInt16
    ) -> FLAC__StreamDecoderWriteStatus {
        guard let info, let choice, Int(header.channels) == info.channels else {
            failure = failure ?? FLACDecoderError("a frame has another channel count than the stream")
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        // libFLAC's own silence for a gap (no checksum, every sample 0) is refused, with or without a word to the
        // error callback: the call is made again with libFLAC flushed (see `check`). A silent frame whose checksum
        // happens to be 0 costs that call and nothing more.
        if frameStart != nil, libFLACFillsGaps, footerCRC == 0,
            (0..<info.channels).allSatisfy({ channel in
                UnsafeBufferPointer(start: channels[channel], count: Int(header.blocksize)).allSatisfy { $0 == 0 }
            })
        {
            retry = .libFLACSilence
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        libFLACFillsGaps = true
        let first = header.number.sample_number
        let count = Int(header.blocksize)
        let shape = FrameShape(header)
        if case .fed = input, let lastFrame, first > nextFrame,
            let missing = lastFrame.silenceBefore(shape, gap: first - nextFrame)
        {
            // Said as damage whether or not libFLAC reported it (a frame cut out whole makes no error).
            if met.firstGapAt == nil { met.firstGapAt = seconds(atFrame: nextFrame) }
            met.silencedFrames += (missing + Int(lastFrame.blockSize) - 1) / max(1, Int(lastFrame.blockSize))
            emit(from: nextFrame, count: missing, channels: choice.outputChannels) { _, _ in 0 }
        }
        lastFrame = shape
        nextFrame = first + UInt64(count)
        let shift = Int32(32 - min(32, max(1, Int(header.bits_per_sample))))
        let played = choice.played.map { [$0 - 1] } ?? Array(0..<info.channels)
        emit(from: first, count: count, channels: played.count) { index, channel in
            WAVDecoder.wideTo16(channels[played[channel]]![index] << shift)
        }
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }

    /// Appends `count` frames from frame `first` on (those before `dropBefore` left out), announcing the format
    /// before the first.
    private func emit(from first: UInt64, count: Int, channels: Int, sample: (Int, Int) -> Int16) {
        let skip = first < dropBefore ? min(count, Int(dropBefore - first)) : 0
        guard skip < count, let info, let choice else { return }
        if !announced {
            announced = true
            output.append(
                .format(PCMFormat(sampleRate: info.sampleRate, channels: choice.outputChannels), duration: duration))
        }
        samples.reserveCapacity(samples.count + (count - skip) * channels)
        for index in skip..<count {
            for channel in 0..<channels { samples.append(sample(index, channel)) }
        }
    }
}

/// What libFLAC compares of two frames before it plays the frames missing between them as silence.
struct FrameShape: Equatable {
    var sampleRate: UInt32
    var channels: UInt32
    var bits: UInt32
    var blockSize: UInt32

    /// The frames of silence libFLAC puts in a gap of `gap` frames before `next`: none unless both frames are
    /// alike, and at most 5 s or 50 blocks (a header damaged after all must not make a long silence).
    /// libFLAC does this itself unless it was flushed between the two (after a starved read), so it is done
    /// here, the same way, so the frames after a loss keep their time whichever way the bytes came.
    func silenceBefore(_ next: FrameShape, gap: UInt64) -> Int? {
        guard sampleRate == next.sampleRate, channels == next.channels, bits == next.bits, blockSize >= 16 else {
            return nil
        }
        return Int(min(gap, UInt64(5 * sampleRate), 50 * UInt64(blockSize)))
    }
}

extension FrameShape {
    init(_ header: FLAC__FrameHeader) {
        self.init(
            sampleRate: header.sample_rate, channels: header.channels, bits: header.bits_per_sample,
            blockSize: header.blocksize)
    }
}
