/// What the listener is hearing, as the status line shows it: one value, rendered in one place.
public enum PlaybackState: Sendable, Hashable {
    /// Nothing is playing: before the first `play` (`nil`), or after a track played to its end or was
    /// stopped (the ending says which, and where). Next: `buffering` (play).
    case idle(PlaybackEnding?)
    /// A track is loading: fetching and decoding until enough audio is queued to play without a gap, at
    /// the start or after the network fell behind (an underrun). The sink is silent.
    /// Next: `playing` (enough is queued, or the recording ended), `paused`, `idle` (stop), `failed`,
    /// `buffering` of another track (play).
    case buffering(PlaybackProgress)
    /// The track is audible; fetching and decoding continue ahead of the listener.
    /// Next: `buffering` (underrun), `paused`, `idle` (played to the end, or stop), `failed`,
    /// `buffering` of another track (play).
    case playing(PlaybackProgress)
    /// The user paused: the sink is silent and keeps its place; fetching continues until the sink is full.
    /// Next: `playing` or `buffering` (resume, depending on how much is queued), `idle` (stop), `failed`,
    /// `buffering` of another track (play).
    case paused(PlaybackProgress)
    /// The last track could not be played; the reason says why and what to do. Nothing is running.
    /// Next: `buffering` (play again: the sound server is reconnected, the file fetched again), `idle` (stop).
    case failed(PlaybackFailure)

    /// Nothing played yet.
    public static let start = PlaybackState.idle(nil)

    /// The recording this state is about, if any (for `idle`, the one that ended).
    public var item: PlayItem? {
        switch self {
        case .idle(let ending): ending?.item
        case .buffering(let progress), .playing(let progress), .paused(let progress): progress.item
        case .failed(let failure): failure.item
        }
    }

    /// The play request this state is about, if any (for `idle`, the one that ended): later requests have
    /// larger tickets, so a consumer that rendered this state knows whether a request it made has ended.
    public var ticket: PlaybackTicket? {
        switch self {
        case .idle(let ending): ending?.ticket
        case .buffering(let progress), .playing(let progress), .paused(let progress): progress.ticket
        case .failed(let failure): failure.ticket
        }
    }

    /// Whether nothing is loaded and nothing failed.
    public var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }

    /// Position and buffering figures while a track is loaded.
    public var progress: PlaybackProgress? {
        switch self {
        case .idle, .failed: nil
        case .buffering(let progress), .playing(let progress), .paused(let progress): progress
        }
    }

    /// Whether a track is loaded (buffering, playing or paused).
    public var isActive: Bool { progress != nil }
}

/// Names one play request; every state about that request carries it, and later requests have larger ones.
public struct PlaybackTicket: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let value: UInt64
    public init(_ value: UInt64) { self.value = value }
    public var description: String { "#\(value)" }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }
}

/// How a track left the stage: played to its end, or stopped by the user.
public struct PlaybackEnding: Sendable, Hashable {
    public enum Reason: Sendable, Hashable {
        /// Everything was played.
        case finished
        /// The user stopped it.
        case stopped
    }

    public var item: PlayItem
    public var ticket: PlaybackTicket
    /// Seconds heard when it ended.
    public var position: Double
    public var reason: Reason
    /// Seconds the last sample had been heard when the end was reported (0 when the sink cannot tell): a sound
    /// server acknowledges a drain a period or two of its own after the sound stopped, so whatever is timed
    /// from the end counts from when it was heard.
    public var late: Double

    public init(item: PlayItem, ticket: PlaybackTicket, position: Double, reason: Reason, late: Double = 0) {
        self.item = item
        self.ticket = ticket
        self.position = position
        self.reason = reason
        self.late = late
    }
}

/// Where a loaded track stands.
public struct PlaybackProgress: Sendable, Hashable {
    /// Whether `other` shows the same place as this one: the same track, segment, settings, loop, range,
    /// landing, and damage or none, whatever the position and buffered figures. What differs otherwise is news
    /// to those who follow the state, told at once rather than with the next figures.
    public func samePlace(as other: PlaybackProgress) -> Bool {
        item == other.item && segment == other.segment && settings == other.settings && loop == other.loop
            && rangeIgnored == other.rangeIgnored && landing == other.landing
            && (damage == nil) == (other.damage == nil)
    }

    public var item: PlayItem
    /// The play request this track belongs to.
    public var ticket: PlaybackTicket
    /// Seconds of audio the listener has heard.
    public var position: Double
    /// Length in seconds when known: the decoder's figure once it has one, else the catalogue's.
    public var duration: Double?
    /// Seconds of decoded audio queued ahead of the listener (at the sink's pace, i.e. after the speed).
    public var buffered: Double
    /// Speed, volume and mute as they apply to this track.
    public var settings: PlaybackSettings
    /// The section being repeated, if any.
    public var loop: LoopSection?
    /// The server answered the last seek's `Range` request with the whole file: the seek reads forward
    /// from the start and discards, which is slower.
    public var rangeIgnored: Bool
    /// Whether `position` is exact, or an estimate since a seek that could only land near its target.
    public var landing: Landing
    /// Counts the seeks, loops and speed changes of this track (a new one is a new place to show).
    public var segment: Int
    /// The damaged frames played as silence so far, if the recording has any.
    public var damage: FLACDamage?

    public init(
        item: PlayItem,
        ticket: PlaybackTicket = PlaybackTicket(0),
        position: Double = 0,
        duration: Double? = nil,
        buffered: Double = 0,
        settings: PlaybackSettings = PlaybackSettings(),
        loop: LoopSection? = nil,
        rangeIgnored: Bool = false,
        landing: Landing = .exact,
        segment: Int = 0,
        damage: FLACDamage? = nil
    ) {
        self.item = item
        self.ticket = ticket
        self.position = position
        self.duration = duration
        self.buffered = buffered
        self.settings = settings
        self.loop = loop
        self.rangeIgnored = rangeIgnored
        self.landing = landing
        self.segment = segment
        self.damage = damage
    }
}

/// What the listener set that outlives one track: speed, volume and mute.
public struct PlaybackSettings: Sendable, Hashable {
    public var speed: PlaybackSpeed
    /// 0…100, linear in amplitude (50 is half the amplitude, −6 dB).
    public var volume: Int
    /// Silenced without losing `volume`.
    public var muted: Bool

    public init(speed: PlaybackSpeed = .normal, volume: Int = 100, muted: Bool = false) {
        self.speed = speed
        self.volume = min(max(volume, 0), 100)
        self.muted = muted
    }

    /// The volume the sink applies: 0 while muted.
    public var audibleVolume: Int { muted ? 0 : volume }
}

/// Where a segment of a track starts and how it plays: what the pipeline needs to (re)start its audio at a
/// play, a seek, a loop or a speed change. Events about the segment carry its number; older ones are stale.
public struct PlaybackSegment: Sendable, Hashable {
    /// Counts the segments of one track: 0 for the play, then one more per seek, loop or speed change.
    public var number: Int
    /// Recording time to start from (0 for a play).
    public var start: Double
    public var settings: PlaybackSettings
    /// The section to repeat, if any.
    public var loop: LoopSection?

    public init(number: Int, start: Double, settings: PlaybackSettings, loop: LoopSection? = nil) {
        self.number = number
        self.start = start
        self.settings = settings
        self.loop = loop
    }
}

/// Why a track could not be played: one line for the user, saying what to do.
public struct PlaybackFailure: Sendable, Hashable, CustomStringConvertible {
    /// The recording that failed; `nil` if none was loaded.
    public var item: PlayItem?
    /// The play request that failed; `nil` if none was made.
    public var ticket: PlaybackTicket?
    /// One line, e.g. "no sound server: is PulseAudio or PipeWire running? (or use --output wav:PATH)".
    public var reason: String

    public init(item: PlayItem?, ticket: PlaybackTicket? = nil, reason: String) {
        self.item = item
        self.ticket = ticket
        self.reason = reason
    }

    public var description: String {
        if let item { "\(item.label): \(reason)" } else { reason }
    }
}

/// When to start (and restart) the sound, in seconds of decoded audio queued ahead of the listener.
///
/// Half a second to start: a first sound that feels immediate, yet about 20 MP3 frames of slack (8 KB at
/// 128 kbit/s), so ordinary network jitter does not cause an underrun right away. One second to restart
/// after an underrun: the network has shown it can fall behind, so a larger margin (hysteresis) avoids
/// flapping between `buffering` and `playing`. The sink may hold `sinkBuffer` seconds ahead (that bounds
/// memory and gives back-pressure); both thresholds are kept below it, or the sink would fill while silent
/// and the start would never come.
public struct BufferingPolicy: Sendable, Hashable {
    /// Queued audio needed before the first sound.
    public var startThreshold: Double
    /// Queued audio needed to resume after an underrun.
    public var rebufferThreshold: Double
    /// Decoded audio that must be queued for a (re)start however much has arrived and waits to be decoded
    /// (at most the threshold): the margin for the decoder's next turn on a loaded machine. Without it a
    /// WAV started with 21 ms queued and a PipeWire sink ran dry at once while the test suite ran beside it.
    public var startFloor: Double
    /// How far ahead of the listener the sink may hold decoded audio.
    public var sinkBuffer: Double

    /// Thresholds are clamped to `0...sinkBuffer / 2` so that they can always be reached, and the sink holds
    /// at least 0.1 s: a sink that keeps everything back until the start (PulseAudio's held stream) must take a
    /// whole start piece (`max(0.05 s, startFloor)`, rounded up to whole frames) while the track buffers.
    public init(
        startThreshold: Double = 0.5, rebufferThreshold: Double = 1.0, startFloor: Double = 0.2,
        sinkBuffer: Double = 2.0
    ) {
        let sink = max(sinkBuffer, 0.1)
        self.sinkBuffer = sink
        self.startThreshold = min(max(startThreshold, 0), sink / 2)
        self.rebufferThreshold = min(max(rebufferThreshold, 0), sink / 2)
        self.startFloor = min(max(startFloor, 0), sink / 2)
    }

    /// 0.5 s to start (at least 0.2 s of it decoded), 1 s to resume after an underrun, 2 s held by the sink.
    public static let `default` = BufferingPolicy()

    /// Whether `buffered` seconds queued and `ahead` seconds arrived (not decoded yet) reach `threshold`.
    func reached(_ threshold: Double, buffered: Double, ahead: Double) -> Bool {
        buffered >= min(startFloor, threshold) && buffered + ahead >= threshold
    }
}

/// How a seek landed: on the sample asked for, or near it (a VBR MP3 beyond what arrived, placed by its Xing
/// TOC, or a stream without a header whose frames were not yet seen to share one bit rate). The position shown
/// is then recording time as the decoder reckons it, which may be off by a few MP3 frames.
public enum Landing: Sendable, Hashable {
    case exact
    case estimated
}
