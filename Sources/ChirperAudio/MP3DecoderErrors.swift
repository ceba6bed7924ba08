import ChirperCore

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
