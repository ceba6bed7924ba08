import ChirperCore

/// What a decoder produces, in order: a format, then samples in that format, maybe a new format, and so on.
public enum DecodedAudio: Sendable, Hashable {
    /// The samples that follow are in this format; `duration` is the whole recording's length if known.
    case format(PCMFormat, duration: Double?)
    /// Interleaved 16-bit samples in the last announced format (always whole frames).
    case samples([Int16])
}
