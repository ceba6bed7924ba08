/// Damaged frames libFLAC could not decode, played as silence in their place as `flac -F` plays them: the rest
/// of the recording plays at its own time, and this is said once.
public struct FLACDamage: Sendable, Hashable {
    /// Errors libFLAC reported (a lost sync, a bad frame header, a checksum that does not match).
    public var errors: Int
    /// Where the first one was met, in seconds from the start.
    public var firstAt: Double

    public init(errors: Int, firstAt: Double) {
        self.errors = errors
        self.firstAt = firstAt
    }

    /// The one line that says it.
    public var notice: String {
        let at = (firstAt * 10).rounded() / 10
        let count = errors == 1 ? "a damaged frame" : "\(errors) damaged frames"
        return "this FLAC file has \(count) from \(at) s on, played as silence (as flac -F does)"
    }
}
