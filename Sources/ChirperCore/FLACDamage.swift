/// Damaged frames libFLAC skipped (or played as silence, when only their checksum was wrong), as `flac -F`
/// does: the rest of the recording plays, and this is said once.
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
        return "this FLAC file has \(count) from \(at) s on: skipped, as flac -F does; the rest plays"
    }
}
