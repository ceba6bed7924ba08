/// Maps seconds played at the sink back to recording time, across speed changes and loop wraps.
///
/// The sink counts output seconds from the start of a segment (a play or a seek). Each mark starts a piece
/// at the output second where the audio it describes begins: from there, recording time runs from
/// `recordingStart` at `factor` recording seconds per output second. A loop wrap is a mark back to the loop's
/// start; positions are always in recording time (what the recording's own clock says), whatever the speed.
public struct PlaybackTimeline: Sendable, Hashable {
    private struct Piece: Sendable, Hashable {
        var outputStart: Double
        var recordingStart: Double
        var factor: Double
    }

    private var pieces: [Piece]

    /// A timeline whose output second 0 is `recordingStart` at `factor`.
    public init(recordingStart: Double = 0, factor: Double = 1) {
        pieces = [Piece(outputStart: 0, recordingStart: recordingStart, factor: factor)]
    }

    /// The recording time where the segment starts.
    public var start: Double { pieces[0].recordingStart }

    /// From output second `output` on, the audio is recording time `recording` at `factor` (later marks are
    /// replaced: output is only ever appended).
    public mutating func mark(atOutput output: Double, recording: Double, factor: Double) {
        pieces.removeAll { $0.outputStart >= output && $0.outputStart > 0 }
        if output <= 0 { pieces.removeAll() }
        pieces.append(Piece(outputStart: max(0, output), recordingStart: recording, factor: factor))
        // Pieces played long ago are no longer needed; the first one stays (it names the segment's start).
        if pieces.count > 64 { pieces.removeSubrange(1..<(pieces.count - 63)) }
    }

    /// The recording second heard at output second `output`.
    public func recordingTime(atOutput output: Double) -> Double {
        let piece = pieces.last { $0.outputStart <= output } ?? pieces[0]
        return piece.recordingStart + max(0, output - piece.outputStart) * piece.factor
    }
}
