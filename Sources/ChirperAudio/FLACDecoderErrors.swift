import ChirperCore

/// A FLAC stream that cannot be played, with libFLAC's own words for why.
public struct FLACDecoderError: UserFacingError, Hashable, CustomStringConvertible {
    public var message: String
    /// libFLAC is not there: what to install, not another recording, is the way on.
    public var libraryMissing: Bool
    public init(_ message: String, libraryMissing: Bool = false) {
        self.message = message
        self.libraryMissing = libraryMissing
    }
    public var userMessage: String {
        libraryMissing
            ? "cannot play FLAC: \(message)" : "cannot play this FLAC file: \(message); try another recording"
    }
    public var description: String { "libFLAC: \(message)" }
}
