import FoundationEssentials

/// The desktop's cover art (MPRIS `mpris:artUrl`): the sonogram of the recording playing, drawn once into a
/// picture file of the session's own, as a pure state machine.
///
/// The owner numbers nothing and names no file: the machine numbers each picture (`file`) and the owner keeps
/// them in a folder of its own, so nothing from the API becomes a path. A recording played again keeps its
/// picture; the picture of one no longer playing is removed when the next one is drawn. A quiz question's
/// recording gets none: its sonogram could answer the question.
public struct CoverArtMachine: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        /// No picture (nothing played yet, or the last one could not be drawn).
        case nothing
        /// `item`'s picture is being drawn into `file`; `kept` is the last picture drawn, still on disk.
        case drawing(PlayItem, file: Int, kept: Drawn?)
        /// `item`'s picture is in `file`.
        case drawn(Drawn)
        /// `item`'s picture could not be drawn (it is not tried again until another recording has played).
        case failed(PlayItem, kept: Drawn?)
        /// No desktop to show a picture (no session bus): nothing is drawn.
        case off

        /// The recording the state is about: drawn, being drawn or failed.
        var item: PlayItem? {
            switch self {
            case .drawing(let item, _, _), .failed(let item, _): item
            case .drawn(let drawn): drawn.item
            case .nothing, .off: nil
            }
        }

        /// The picture on disk, if any.
        var onDisk: Drawn? {
            switch self {
            case .drawn(let drawn): drawn
            case .drawing(_, _, let kept), .failed(_, let kept): kept
            case .nothing, .off: nil
            }
        }
    }

    /// A picture on disk.
    public struct Drawn: Sendable, Hashable {
        public var item: PlayItem
        public var file: Int
    }

    public enum Action: Sendable, Hashable {
        /// Draw `item`'s sonogram into picture `file`, stopping a drawing still running; it ends as
        /// ``drawn(file:)`` or ``failed(file:)``.
        case draw(PlayItem, file: Int)
        /// Picture `file` is shown no more: remove it.
        case remove(file: Int)
        /// Stop the drawing running (nothing plays any more).
        case stop
    }

    public private(set) var state: State
    private var lastFile = 0

    /// `on`: there is a desktop to show pictures and a place to keep them; off, nothing is ever drawn.
    public init(on: Bool = true) {
        state = on ? .nothing : .off
    }

    /// The rendered playback state changed; `masked`: what plays is a quiz question.
    public mutating func playbackChanged(_ playback: PlaybackState, masked: Bool) -> [Action] {
        // Stopped, failed or ended while its picture is drawn: a download cut short would be fetched again
        // for a picture no longer shown.
        if !playback.isActive, case .drawing = state {
            state = state.onDisk.map(State.drawn) ?? .nothing
            return [.stop]
        }
        // Not before the sound has started: by then the player's download is under way, and the picture's
        // reader follows it (one download per recording), as the live strip's does.
        // Drawn, being drawn or failed already: once a recording. Another recording's drawing is stopped (one
        // that wrote before it stopped is removed when it reports); the picture on disk stays until the new one
        // is written.
        guard case .playing(let progress) = playback, !masked, state != .off, state.item != progress.item else {
            return []
        }
        return start(progress.item, kept: state.onDisk)
    }

    /// Picture `file` was written (a picture no longer wanted is removed).
    public mutating func drawn(file: Int) -> [Action] {
        guard case .drawing(let item, let drawing, let kept) = state, drawing == file else {
            return [.remove(file: file)]
        }
        state = .drawn(Drawn(item: item, file: file))
        return kept.map { [.remove(file: $0.file)] } ?? []
    }

    /// Picture `file` could not be drawn.
    public mutating func failed(file: Int) -> [Action] {
        guard case .drawing(let item, let drawing, let kept) = state, drawing == file else { return [] }
        state = .failed(item, kept: kept)
        return []
    }

    /// There is no desktop to show pictures: the ones on disk are removed and no more are drawn.
    public mutating func turnOff() -> [Action] {
        let onDisk = state.onDisk
        state = .off
        return onDisk.map { [.remove(file: $0.file)] } ?? []
    }

    /// The picture file to show with `item`, when it has one.
    public func file(for item: PlayItem?) -> Int? {
        guard case .drawn(let drawn) = state, drawn.item == item else { return nil }
        return drawn.file
    }

    /// The picture: the whole recording, 0-12 kHz (cut to its Nyquist frequency), square as cover art is.
    public static let shape = SonogramShape(columns: 256, rows: 256, maxFrequency: 12_000)

    /// Where picture `file` is kept in the owner's `folder`.
    public static func path(of file: Int, in folder: String) -> String { "\(folder)/art-\(file).png" }

    /// The `file://` URL of `path` (MPRIS's `mpris:artUrl`).
    public static func url(of path: String) -> String {
        // Named a file outright: `URL(fileURLWithPath:)` would ask the disk whether it is a folder.
        URL(filePath: path, directoryHint: .notDirectory).absoluteString
    }

    private mutating func start(_ item: PlayItem, kept: Drawn?) -> [Action] {
        lastFile += 1
        state = .drawing(item, file: lastFile, kept: kept)
        return [.draw(item, file: lastFile)]
    }
}
