/// libmpg123's gapless cut (`frame_buffercheck`), made outside the library after a seek it could only
/// estimate.
///
/// After a fuzzy seek libmpg123 starts with the first sample of the frame that holds the target and no longer
/// drops the encoder's padding at the end ("when we have no accurate position, gapless code does not make
/// sense", frame.c). This cut keeps what an exact seek would have given: from the target on, without the
/// padding between the recording's end (the Info header's length) and the end of its last whole frame; frames
/// after that (data appended to a stream after its Info header was written) are kept, as libmpg123 keeps them.
/// Positions are output frames (one sample per channel) from the start of the recording, gapless.
struct GaplessTrim: Hashable {
    /// libmpg123's own delay (`GAPLESS_DELAY`): the decoder's output lags the encoder's input by 529 samples.
    static let decoderDelay = 529

    /// The frame the next output sample is.
    var position: Int
    /// The encoder's and the decoder's delay in front of the recording's first sample (0 without an Info
    /// header, as libmpg123 counts it).
    let delay: Int
    let samplesPerFrame: Int
    /// The first frame to keep: the seek's target.
    let start: Int
    /// The recording's end (its gapless length), if known.
    let end: Int?
    /// Where the padding after `end` ends (the stream's whole frames), if known.
    let paddingEnd: Int?

    /// The MPEG frame (counted from the first frame of audio) whose first sample `position` is.
    var landingFrame: Int { (position + delay) / samplesPerFrame }

    /// Which of the next `frames` output frames to keep, as ranges of them (relative to the first); moves on.
    mutating func keep(frames: Int) -> [Range<Int>] {
        let batch = position..<(position + frames)
        position += frames
        var wanted: [Range<Int>]
        switch (end, paddingEnd) {
        case (let end?, let paddingEnd?) where paddingEnd > end:
            wanted = [start..<max(start, end), paddingEnd..<Int.max]
        case (let end?, _): wanted = [start..<max(start, end)]
        case (nil, _): wanted = [start..<Int.max]
        }
        return wanted.map { $0.clamped(to: batch) }.filter { !$0.isEmpty }.map {
            ($0.lowerBound - batch.lowerBound)..<($0.upperBound - batch.lowerBound)
        }
    }
}
