/// Which of a recording's channels are played: a file of more than two channels (an array of microphones, a
/// recorder with four inputs) is played one channel at a time, the first unless another is chosen.
public struct ChannelChoice: Sendable, Hashable, CustomStringConvertible {
    /// The channels the file holds.
    public var fileChannels: Int
    /// The channel played alone, counted from 1; nil when every channel is played (mono, stereo).
    public var played: Int?

    public init(fileChannels: Int, played: Int?) {
        self.fileChannels = fileChannels
        self.played = played
    }

    /// The choice for a file of `fileChannels` channels when `requested` (counted from 1) is asked for, or nil
    /// when asked for none: mono and stereo are played whole, more channels from the first. A channel the file
    /// does not have is refused (`ChannelChoiceError`).
    public static func choose(requested: Int?, fileChannels: Int) throws(ChannelChoiceError) -> ChannelChoice {
        if let requested {
            guard (1...max(1, fileChannels)).contains(requested) else {
                throw ChannelChoiceError(requested: requested, fileChannels: fileChannels)
            }
            return ChannelChoice(fileChannels: fileChannels, played: fileChannels == 1 ? nil : requested)
        }
        return ChannelChoice(fileChannels: fileChannels, played: fileChannels > 2 ? 1 : nil)
    }

    /// Channels in what is played: 1 when one channel is played alone.
    public var outputChannels: Int { played == nil ? fileChannels : 1 }

    /// "channel 2 of 4", or "4 channels" / "stereo" / "mono" when all are played.
    public var description: String {
        if let played { return "channel \(played) of \(fileChannels)" }
        return fileChannels == 1 ? "mono" : fileChannels == 2 ? "stereo" : "\(fileChannels) channels"
    }
}

/// A channel was asked for that the recording does not have.
public struct ChannelChoiceError: UserFacingError, Hashable {
    public var requested: Int
    public var fileChannels: Int

    public init(requested: Int, fileChannels: Int) {
        self.requested = requested
        self.fileChannels = fileChannels
    }

    public var userMessage: String {
        "this recording has no channel \(requested): it has \(fileChannels); choose 1 to \(fileChannels)"
    }
}
