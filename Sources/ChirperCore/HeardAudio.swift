/// A piece of what the player decoded for play request `ticket`, at its place in the recording (before the
/// speed stage): the live strip draws from it, so a recording is fetched and decoded once, however it is drawn.
public struct HeardAudio: Sendable, Equatable {
    public var ticket: PlaybackTicket
    public var sampleRate: Int
    public var channels: Int
    /// The recording frame of the first sample (a seek moves it on or back).
    public var frame: Int
    /// Interleaved 16-bit samples, whole frames.
    public var samples: [Int16]

    public init(ticket: PlaybackTicket, sampleRate: Int, channels: Int, frame: Int, samples: [Int16]) {
        self.ticket = ticket
        self.sampleRate = sampleRate
        self.channels = channels
        self.frame = frame
        self.samples = samples
    }
}

/// What the live strip's painter is handed, in order, through one channel.
public enum StripWork: Sendable {
    /// Audio the player decoded.
    case heard(HeardAudio)
    /// Draw the picture of play request `ticket` (of `item`, `duration` seconds long if known) in `shape`,
    /// replacing the one being drawn.
    case draw(PlayItem, PlaybackTicket, SonogramShape, duration: Double?)
}
