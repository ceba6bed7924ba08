/// The live sonogram strip above the status line (`sono on` / `sono off`): a pure state machine.
///
/// While it is on, the owner listens to what the player decodes (`listen`), and every recording whose sound
/// starts gets its sonogram computed (`compute`): whole from its file when it is on disk, otherwise grown from
/// that audio as it is heard, each larger picture replacing the last. The strip shows it around the position
/// heard. The picture belongs to one play request (ticket): a late picture of an older request is dropped.
public struct SonogramStripMachine: Sendable {
    public enum State: Sendable, Hashable {
        /// Not shown.
        case off
        /// On, but nothing is playing.
        case waiting
        /// On; the picture of this request is being computed.
        case loading(PlaybackTicket)
        /// On; this request's picture.
        case showing(PlaybackTicket, Sonogram)
        /// On; this request's picture could not be made (the line says why).
        case failed(PlaybackTicket, String)
    }

    public indirect enum Action: Sendable, Hashable {
        case nothing
        /// Turned on: listen to what the player decodes from now on (the pictures grow from it), then `then`.
        case listen(then: Action)
        /// Compute `item`'s picture for request `ticket` (cancelling any computation still running).
        case compute(PlayItem, PlaybackTicket)
        /// Stop any computation still running, and listening.
        case cancel
        /// Nothing changed: tell the user why.
        case refuse(String)
    }

    public private(set) var state: State = .off
    /// Lines the strip takes above the status line.
    public private(set) var lines = SonogramStripMachine.defaultLines
    /// The band it shows (the top is cut to the recording's Nyquist frequency).
    public private(set) var band = SonogramStripMachine.defaultBand
    /// Real pixels where the terminal draws them (nil: half-blocks).
    public private(set) var canvas: PixelCanvas?

    public init() {}

    /// 8 lines: 16 frequency rows in half-blocks.
    public static let defaultLines = 8
    /// 0-12 kHz: the band of most birds' songs.
    public static let defaultBand = FrequencyBand(low: 0, high: 12_000)

    /// `sono on [lines] [lo-hi]`, given what is playing now (the owner passes the rendered state) and where
    /// pictures are drawn (`canvas`: real pixels; nil: half-blocks). On again with other lines or another band
    /// redraws what plays.
    public mutating func turnOn(
        playing: PlaybackState, lines: Int? = nil, band: FrequencyBand? = nil, canvas: PixelCanvas? = nil
    ) -> Action {
        let lines = lines ?? (state == .off ? Self.defaultLines : self.lines)
        let band = band ?? (state == .off ? Self.defaultBand : self.band)
        guard state == .off || lines != self.lines || band != self.band || canvas != self.canvas else {
            return .refuse("the live strip is already on; sono off hides it")
        }
        let wasOff = state == .off
        self.lines = lines
        self.band = band
        self.canvas = canvas
        state = .waiting
        return wasOff ? .listen(then: follow(playing)) : follow(playing)
    }

    /// `graphics <mode>` chose where pictures are drawn: a strip that is on is computed again for it.
    public mutating func canvasChanged(_ canvas: PixelCanvas?, playing: PlaybackState) -> Action {
        guard state != .off, canvas != self.canvas else { return .nothing }
        self.canvas = canvas
        state = .waiting
        return follow(playing)
    }

    /// `sono off`.
    public mutating func turnOff() -> Action {
        guard state != .off else { return .refuse("the live strip is not on; sono on shows it while playing") }
        state = .off
        return .cancel
    }

    /// The rendered playback state changed: a new request gets its picture.
    public mutating func playbackChanged(_ playback: PlaybackState) -> Action {
        guard state != .off else { return .nothing }
        return follow(playback)
    }

    /// A picture of request `ticket` is ready: the first, or one grown further from what was heard since.
    public mutating func ready(_ sonogram: Sonogram, ticket: PlaybackTicket) -> Action {
        switch state {
        case .loading(let waiting) where waiting == ticket, .showing(let waiting, _) where waiting == ticket:
            state = .showing(ticket, sonogram)
        default:
            break
        }
        return .nothing
    }

    /// The picture of request `ticket` could not be made (or grown further: the line says why).
    public mutating func failed(_ reason: String, ticket: PlaybackTicket) -> Action {
        switch state {
        case .loading(let waiting) where waiting == ticket, .showing(let waiting, _) where waiting == ticket:
            state = .failed(ticket, reason)
        default:
            break
        }
        return .nothing
    }

    /// The picture to draw with `playback`, if the strip is on and has the picture of what is playing.
    public func picture(for playback: PlaybackState) -> Sonogram? {
        guard case .showing(let ticket, let sonogram) = state, playback.isActive, playback.ticket == ticket else {
            return nil
        }
        return sonogram
    }

    private mutating func follow(_ playback: PlaybackState) -> Action {
        // Nothing plays: keep the picture of the last request (it shows nothing until it plays again).
        guard playback.isActive, let ticket = playback.ticket, let item = playback.item else { return .nothing }
        // Not before the sound has started: by then the decoder has said how long the recording is, which lays
        // out the strip's pages (what the player decoded before is kept for the picture meanwhile).
        if case .buffering = playback { return .nothing }
        switch state {
        case .loading(let current) where current == ticket, .showing(let current, _) where current == ticket,
            .failed(let current, _) where current == ticket:
            return .nothing
        case .off:
            return .nothing
        case .waiting, .loading, .showing, .failed:
            state = .loading(ticket)
            return .compute(item, ticket)
        }
    }
}
