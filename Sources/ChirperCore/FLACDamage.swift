/// Damaged frames libFLAC could not decode, played as silence in their place as `flac -F` plays them: the rest
/// of the recording plays at its own time, and this is said once.
public struct FLACDamage: Sendable, Hashable {
    /// Frames played as silence in place of those lost (blocks of the frame before them).
    public var frames: Int
    /// Where the first one was met, in seconds from the start.
    public var firstAt: Double

    public init(frames: Int, firstAt: Double) {
        self.frames = frames
        self.firstAt = firstAt
    }

    /// The one line that says it.
    public var notice: String {
        let at = (firstAt * 10).rounded() / 10
        let count = frames == 1 ? "a damaged frame" : "\(frames) damaged frames"
        // Short enough for an 80-column terminal after the recording's label: what flac -F does is the README's.
        return "this FLAC file has \(count) from \(at) s on, played as silence"
    }
}
