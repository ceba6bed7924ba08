import CFLAC
import ChirperCore
import Glibc

/// Where a FLAC seek landed: feed `decoder` the body from `byteOffset`, and its output starts at `frame`.
public struct FLACSeekLanding {
    /// The body byte to feed from: the frame after the one that holds the target.
    public var byteOffset: Int64
    /// The first frame (sample per channel) of the output: the target, exactly.
    public var frame: Int
    /// Bytes of the file libFLAC read to get there.
    public var bytesRead: Int64
    /// A fed decoder that starts with the target's frame, already decoded from the target on.
    public let decoder: FLACDecoder
}

extension FLACDecoder {
    /// Seeks a local FLAC file to `frame` with libFLAC's own seek (`FLAC__stream_decoder_seek_absolute`: by the
    /// seek table when the file has one, else by bisection), which reads a few frames of the file, not the
    /// file: a seek anywhere in a night's recording is immediate. The frame that holds the target is decoded
    /// from the target on; the decoder returned goes on from the next frame with the bytes fed from
    /// `byteOffset`. Nil when libFLAC cannot seek in this file (it is then decoded from the start).
    public static func seeking(file path: String, toFrame frame: Int, channel: Int?) throws(FLACDecoderError)
        -> FLACSeekLanding?
    {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FLACDecoderError("\(path) cannot be opened (\(String(cString: strerror(errno))))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            Glibc.close(descriptor)
            return nil
        }
        var streamInfo = [UInt8](repeating: 0, count: 42)
        let got = streamInfo.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 42, 0) }
        // STREAMINFO is the first block of every FLAC stream.
        guard got == 42, streamInfo.starts(with: Array("fLaC".utf8)), streamInfo[4] & 0x7F == 0,
            streamInfo[5...7] == [0, 0, 34]
        else {
            Glibc.close(descriptor)
            return nil
        }
        streamInfo.removeFirst(8)
        // The locator owns the descriptor from here.
        let locator = try FLACDecoder(
            input: .file(descriptor: descriptor, size: Int64(status.st_size), position: 0), walk: .frames,
            channel: channel)
        try locator.check(FLAC__stream_decoder_process_until_end_of_metadata(locator.handle) != 0, nil)
        guard let info = locator.info, let choice = locator.choice else { return nil }
        var target = UInt64(max(0, frame))
        if info.totalSamples > 0 { target = min(target, info.totalSamples - 1) }
        guard FLAC__stream_decoder_seek_absolute(locator.handle, target) != 0 else { return nil }
        var position: FLAC__uint64 = 0
        guard FLAC__stream_decoder_get_decode_position(locator.handle, &position) != 0 else { return nil }
        let fed = try FLACDecoder(
            input: .fed(held: [], start: 0, ended: false), walk: .frames, channel: channel)
        fed.streamInfoBytes = streamInfo
        header(streamInfo: streamInfo).withUnsafeBytes { fed.hold($0[...]) }
        fed.info = info
        fed.choice = choice
        fed.duration = locator.duration
        // The format is the one playing: not announced again (as after a WAV or MP3 seek).
        fed.announced = true
        // The target's frame, decoded by the seek from the target on.
        fed.samples = locator.samples
        fed.nextFrame = locator.nextFrame
        // The target's frame was written from the target on: a gap after it is counted in whole blocks.
        fed.lastFrame = locator.lastFrame.map {
            var shape = $0
            shape.blockSize = FLAC__stream_decoder_get_blocksize(locator.handle)
            return shape
        }
        return FLACSeekLanding(
            byteOffset: Int64(position), frame: Int(target), bytesRead: locator.bytesRead, decoder: fed)
    }

    /// A fed decoder that decodes the stream from its first byte and drops the frames before `frame`: a seek
    /// where libFLAC cannot seek (the bytes come over the network).
    public static func restarting(atFrame frame: Int, channel: Int?) throws(FLACDecoderError) -> FLACDecoder {
        let decoder = try FLACDecoder(channel: channel)
        decoder.dropBefore = UInt64(max(0, frame))
        decoder.announced = true  // the format is the one playing

        return decoder
    }
}
