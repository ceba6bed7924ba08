/// Where a recording's audio can be read from, once a source has vetted it.
///
/// Text from the API only ever becomes `.remote` with an `http`/`https` URL; `.local` is produced by the
/// offline catalog alone, for files inside its own folder. Nothing else is ever opened or fetched.
public enum AudioLocation: Sendable, Hashable {
    /// An `http` or `https` URL (already checked).
    case remote(String)
    /// An absolute path to a file inside an offline catalog's folder (already checked).
    case local(path: String)
}

/// What a player needs to know to play one recording and to describe it while it plays.
public struct PlayItem: Sendable, Hashable {
    /// The catalogue label shown to the user, e.g. `XC254462` or `DEMO-07`.
    public var label: String
    public var location: AudioLocation
    /// Length from the catalogue, in seconds, when known; the decoder's own figure wins once it has one.
    public var expectedDuration: Double?
    /// The channel of a WAV or FLAC file of several to play alone, counted from 1; nil plays mono and stereo
    /// whole and the first of more channels (`ChannelChoice`).
    public var channel: Int?

    public init(label: String, location: AudioLocation, expectedDuration: Double? = nil, channel: Int? = nil) {
        self.label = label
        self.location = location
        self.expectedDuration = expectedDuration
        self.channel = channel
    }
}
