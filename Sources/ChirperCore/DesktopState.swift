import FoundationEssentials

/// What the desktop (MPRIS: media keys, `playerctl`, the player widget) asks of the player: each becomes what
/// the typed command would do.
public enum DesktopCommand: Sendable, Hashable {
    case playPause
    case play
    case pause
    case stop
    case next
    case previous
    /// Seek by this many microseconds (negative: back).
    case seek(offset: Int64)
    /// Go to this position (microseconds) of track `trackID`; ignored for another track, as MPRIS asks.
    case setPosition(trackID: String, position: Int64)
    /// The `Rate` property was set.
    case setRate(Double)
    /// The `Volume` property was set (1.0 is full volume).
    case setVolume(Double)
    /// The `LoopStatus` property was set: `None`, `Track` or `Playlist`.
    case setLoop(String)
    /// `OpenUri`: a xeno-canto page or an XC number to play.
    case openURI(String)
    /// The track list's `GoTo`: play the queue's track with this id.
    case goTo(trackID: String)

    /// The xeno-canto number `uri` names: `https://xeno-canto.org/254462` (also `www.`, `http:`, a trailing
    /// path such as `/download`), `XC254462` or `254462`; nil for anything else (a file:, an ftp: or another
    /// site's URL is never opened).
    public static func xenoCantoNumber(_ uri: String) -> Int? {
        let text = uri.trimmingSpaces
        let digits: Substring
        if let scheme = text.firstRange(of: "://") {
            guard ["http", "https"].contains(text[..<scheme.lowerBound].lowercased()) else { return nil }
            let rest = text[scheme.upperBound...]
            let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 2, ["xeno-canto.org", "www.xeno-canto.org"].contains(parts[0].lowercased()) else {
                return nil
            }
            digits = parts[1]
        } else if text.uppercased().hasPrefix("XC") {
            digits = text.dropFirst(2)
        } else {
            digits = Substring(text)
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(digits)
    }

    /// The path of a local `file://` URI (`file:///home/me/x.wav`, `file://localhost/…`), percent-escapes
    /// decoded; nil for anything else, another host's file, a path that is not absolute, or one holding a NUL or
    /// a broken escape. The file is then opened as `open` opens it: its header decides whether it plays.
    public static func filePath(_ uri: String) -> String? {
        let text = uri.trimmingSpaces
        guard text.lowercased().hasPrefix("file://") else { return nil }
        var rest = Substring(text.dropFirst(7))
        if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst(9) }
        guard rest.hasPrefix("/") else { return nil }
        var bytes: [UInt8] = []
        var utf8 = Array(rest.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        guard !bytes.contains(0), let path = String(validating: bytes, as: UTF8.self) else { return nil }
        return path
    }
}

/// One track of the desktop's track list (the play queue): its id and what is shown of it.
public struct DesktopTrack: Sendable, Hashable {
    public var id: String
    public var title: String
    public var artist: String
    public var album: String
    public var url: String
    public var licence: String
    public var length: Double?
    /// The `file://` URL of the recording's sonogram as a picture, once it is drawn.
    public var artURL: String?

    /// `recording` as track `id`; a masked one (a quiz question) shows only `label`.
    init(id: String, recording: Recording?, label: String, length: Double?) {
        self.id = id
        title = recording.map { TerminalText.sanitize($0.title) } ?? label
        artist = recording.map { TerminalText.sanitize($0.recordist) } ?? ""
        album = recording.map { TerminalText.sanitize($0.scientificName) } ?? ""
        url = recording?.pageURL ?? ""
        licence = recording?.licenceName ?? ""
        self.length = length
    }

    /// The queue's `index`-th recording, in a queue named `generation`.
    init(_ recording: Recording, index: Int, generation: String) {
        self.init(
            id: "/org/chirper_play/queue/g\(generation)/t\(index)", recording: recording, label: recording.label,
            length: recording.lengthSeconds)
    }
}

/// What the desktop is shown: the rendered playback state as MPRIS properties. Derived, never kept beside the
/// machines.
public struct DesktopState: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        case playing = "Playing"
        case paused = "Paused"
        case stopped = "Stopped"
    }

    public var status: Status
    /// What plays (its metadata; nil when nothing is loaded). Its id is the queue's track while the queue plays
    /// it, else `/org/chirper_play/track/<ticket>`; its length the decoder's figure.
    public var track: DesktopTrack?
    /// Seconds of recording time heard, when the rendered state was taken.
    public var position: Double
    public var rate: Double
    /// 0…1.
    public var volume: Double
    /// An A–B loop is set (`LoopStatus` `Track`).
    public var looping: Bool
    public var canGoNext: Bool
    public var canGoPrevious: Bool
    /// The track's count of seeks, loops and speed changes (``PlaybackProgress/segment``).
    public var segment = 0
    /// The track list: the play queue's items.
    public var tracks: [DesktopTrack] = []

    public static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    /// The loaded track's id, or MPRIS's no-track path.
    public var trackID: String { track?.id ?? Self.noTrack }

    public init(
        status: Status, track: DesktopTrack? = nil, position: Double = 0, rate: Double = 1, volume: Double = 1,
        looping: Bool = false, canGoNext: Bool = false, canGoPrevious: Bool = false
    ) {
        self.status = status
        self.track = track
        self.position = position
        self.rate = rate
        self.volume = volume
        self.looping = looping
        self.canGoNext = canGoNext
        self.canGoPrevious = canGoPrevious
    }

    /// The desktop's view of `playback`, with `recording` the one it plays (nil: unknown, or a quiz question,
    /// whose names stay hidden) and the queue's position.
    public static func of(
        _ playback: PlaybackState, recording: Recording?, masked: Bool, queue: PlayQueueState
    ) -> DesktopState {
        let progress = playback.progress
        let status: Status
        switch playback {
        case .playing, .buffering: status = .playing
        case .paused: status = .paused
        case .idle, .failed: status = .stopped
        }
        var state = DesktopState(status: status)
        // The queue's ids change with its items (a new queue is a new track list).
        let generation = String(
            queue.items.reduce(UInt32(2_166_136_261)) { hash, item in
                item.label.utf8.reduce(hash) { ($0 ^ UInt32($1)) &* 16_777_619 } &* 16_777_619
            }, radix: 16)
        state.tracks = queue.items.enumerated().map {
            DesktopTrack($0.element.recording, index: $0.offset, generation: generation)
        }
        guard let progress else { return state }
        var id = "/org/chirper_play/track/\(progress.ticket.value)"
        if case .playing(let index) = queue.phase, queue.ticket == progress.ticket, state.tracks.indices.contains(index)
        {
            id = state.tracks[index].id
        }
        state.track = DesktopTrack(
            id: id, recording: masked ? nil : recording, label: progress.item.label,
            length: masked ? nil : progress.duration)
        state.position = progress.position
        state.rate = progress.settings.speed.factor
        state.volume = progress.settings.muted ? 0 : Double(progress.settings.volume) / 100
        state.looping = progress.loop != nil
        state.segment = progress.segment
        if case .playing(let index) = queue.phase {
            state.canGoNext = index + 1 < queue.items.count
            state.canGoPrevious = index > 0
        }
        return state
    }

    /// The position `seconds` later while playing (the desktop reads it between updates).
    public func position(after seconds: Double) -> Double {
        guard status == .playing else { return position }
        let moved = position + max(0, seconds) * rate
        return track?.length.map { min($0, moved) } ?? moved
    }

    /// The track moved other than by playing on since `old` (a seek, a loop set or wrapping back, a speed
    /// change): MPRIS's `Seeked` is due.
    public func seeked(from old: DesktopState) -> Bool {
        guard old.trackID == trackID, trackID != Self.noTrack else { return false }
        return segment != old.segment || position < old.position - 0.05
    }
}
