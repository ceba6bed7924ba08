import CSystemd
import ChirperCore
import FoundationEssentials
import Synchronization
import Dispatch
import ChirperSystem
#if canImport(Glibc)
    import Glibc
#endif

/// MPRIS 2 on the session bus (`org.mpris.MediaPlayer2.chirper_play`): the desktop's media keys, `playerctl`
/// and the player widget see chirper-play and drive it.
///
/// The bus lives on a thread of its own (sd-bus is not thread-safe). A method call becomes a
/// ``DesktopCommand`` handed to `commands` (the REPL turns it into what the typed command does); the REPL
/// publishes each rendered ``DesktopState``, which becomes the properties, a `PropertiesChanged` signal for
/// what changed and `Seeked` when the track moved other than by playing on.
public final class MPRISServer: Sendable {
    static let path = "/org/mpris/MediaPlayer2"
    static let root = "org.mpris.MediaPlayer2"
    static let player = "org.mpris.MediaPlayer2.Player"
    static let trackList = "org.mpris.MediaPlayer2.TrackList"
    static let properties = "org.freedesktop.DBus.Properties"

    private struct Inbox {
        var states: [(DesktopState, seeked: Bool)] = []
        var stopping = false
        /// The bus's thread has ended (the bus went away): publishing does nothing.
        var ended = false
    }

    /// The bus name taken (`…chirper_play`, or `…chirper_play.instance<pid>` when another one runs).
    public let name: String
    private let inbox = Mutex(Inbox())
    private let wake: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)

    /// Connects and takes the name on its own thread; throws a one-line `DBusError` when there is no session
    /// bus. `commands` is called on the bus's thread.
    public static func start(commands: @escaping @Sendable (DesktopCommand) -> Void) throws -> MPRISServer {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw DBusError(userMessage: "D-Bus: cannot make a pipe") }
        // Both ends: the bus thread drains without blocking, and a publisher never waits on a full pipe.
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        let opened = Mutex<Result<String, DBusError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let wake = (read: fds[0], write: fds[1])
        let serverBox = Mutex<MPRISServer?>(nil)
        startDetachedThread(name: "chirper-mpris") {
            let loop: BusLoop
            do {
                loop = try BusLoop(commands: commands)
                opened.withLock { $0 = .success(loop.name) }
            } catch {
                let failure = error as? DBusError ?? DBusError(userMessage: "D-Bus: \(error)")
                opened.withLock { $0 = .failure(failure) }
                ready.signal()
                return
            }
            ready.signal()
            // Wait until the server object exists, then serve until it stops.
            go.wait()
            guard let server = serverBox.withLock({ $0 }) else { return }
            loop.run(server: server)
            server.ended()
            server.finished.signal()
        }
        ready.wait()
        switch opened.withLock({ $0 }) {
        case .success(let name):
            let server = MPRISServer(name: name, wake: wake)
            serverBox.withLock { $0 = server }
            go.signal()
            return server
        case .failure(let error):
            close(fds[0])
            close(fds[1])
            throw error
        case nil:
            throw DBusError(userMessage: "D-Bus: the bus thread did not start")
        }
    }

    /// `DBUS_SESSION_BUS_ADDRESS` is set, or the user's bus socket (`$XDG_RUNTIME_DIR/bus`) exists: where
    /// `sd_bus_open_user` would look. Callers ask before ``start`` to spare the thread and libsystemd's loading
    /// (which holds glibc's loader lock while the session starts) when there is no bus to be had.
    public static func sessionBusMayExist(_ environment: [String: String]) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        return FileManager.default.fileExists(atPath: runtime + "/bus")
    }

    private init(name: String, wake: (read: Int32, write: Int32)) {
        self.name = name
        self.wake = wake
    }

    /// The rendered state, as the desktop should now see it; `seeked`: send `Seeked` too.
    public func publish(_ state: DesktopState, seeked: Bool) {
        let taken = inbox.withLock { inbox -> Bool in
            guard !inbox.ended else { return false }
            // Every state in order (the desktop follows each change), but never an unbounded backlog.
            if inbox.states.count >= 256 { inbox.states.removeFirst(inbox.states.count - 255) }
            inbox.states.append((state, seeked))
            return true
        }
        if taken { poke() }
    }

    /// Leaves the bus (the name is released); waits for the bus's thread to end.
    public func stop() {
        let already = inbox.withLock { inbox -> Bool in
            defer { inbox.stopping = true }
            return inbox.stopping
        }
        guard !already else { return }
        poke()
        finished.wait()
        close(wake.read)
        close(wake.write)
    }

    /// The bus's thread ended: nothing more is published.
    fileprivate func ended() {
        inbox.withLock {
            $0.ended = true
            $0.states = []
        }
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// What the bus's thread takes from the inbox: the states published since, and whether to stop.
    fileprivate func take() -> (states: [(DesktopState, seeked: Bool)], stopping: Bool) {
        var drained: [UInt8] = Array(repeating: 0, count: 64)
        while read(wake.read, &drained, drained.count) > 0 {}
        return inbox.withLock { inbox in
            defer { inbox.states = [] }
            return (inbox.states, inbox.stopping)
        }
    }

    fileprivate var wakeDescriptor: Int32 { wake.read }
}

/// The bus's side, used only on its thread: the connection, the object, the state shown.
final class BusLoop {
    let connection: DBusConnection
    let name: String
    let commands: @Sendable (DesktopCommand) -> Void
    var state = DesktopState(status: .stopped)
    var stateAt = ContinuousClock.now
    var slot: OpaquePointer?

    init(commands: @escaping @Sendable (DesktopCommand) -> Void) throws(DBusError) {
        connection = try DBusConnection()
        self.commands = commands
        let base = MPRISServer.root + ".chirper_play"
        name = try connection.requestName(base) ? base : base + ".instance\(getpid())"
        if name != base, !(try connection.requestName(name)) {
            throw DBusError(userMessage: "D-Bus: the name \(name) is taken")
        }
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try connection.check(
            sd_bus_add_object(connection.bus, &slot, MPRISServer.path, BusLoop.handler, userdata),
            "serve \(MPRISServer.path)")
    }

    deinit {
        if let slot { sd_bus_slot_unref(slot) }
        connection.close()
    }

    static let handler: sd_bus_message_handler_t = { message, userdata, _ in
        guard let userdata else { return 0 }
        return Unmanaged<BusLoop>.fromOpaque(userdata).takeUnretainedValue().handle(message)
    }

    func run(server: MPRISServer) {
        while true {
            do {
                try connection.processAll()
            } catch {
                return
            }
            let (states, stopping) = server.take()
            for (state, seeked) in states { show(state, seeked: seeked) }
            if stopping { return }
            var fds = [
                pollfd(fd: connection.fileDescriptor, events: connection.events, revents: 0),
                pollfd(fd: server.wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let timeout = connection.timeout.map { usec -> Int32 in
                let now = UInt64(DispatchTime.now().uptimeNanoseconds / 1000)
                return usec <= now ? 0 : Int32(min(1_000, (usec - now) / 1000 + 1))
            }
            _ = poll(&fds, 2, timeout ?? 1_000)
        }
    }

    // MARK: - Properties

    private var positionMicroseconds: Int64 {
        let elapsed = ContinuousClock.now - stateAt
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Int64((state.position(after: seconds) * 1_000_000).rounded())
    }

    /// The loaded track's metadata (MPRIS's no-track id alone when nothing is loaded).
    private var metadata: [String: DBusValue] {
        state.track.map(metadata(of:)) ?? ["mpris:trackid": .objectPath(DesktopState.noTrack)]
    }

    func properties(of interface: String) -> [String: DBusValue]? {
        switch interface {
        case MPRISServer.root:
            return [
                "CanQuit": .bool(false), "CanRaise": .bool(false), "HasTrackList": .bool(true),
                "Identity": .string("chirper-play"), "SupportedUriSchemes": .strings(["https", "http", "file"]),
                "SupportedMimeTypes": .strings(["audio/mpeg", "audio/wav", "audio/x-wav", "audio/flac"]),
            ]
        case MPRISServer.player:
            let loaded = state.trackID != DesktopState.noTrack
            return [
                "PlaybackStatus": .string(state.status.rawValue),
                "LoopStatus": .string(state.looping ? "Track" : "None"), "Rate": .double(state.rate),
                "Shuffle": .bool(false), "Metadata": .dictionary(metadata), "Volume": .double(state.volume),
                "Position": .int64(positionMicroseconds), "MinimumRate": .double(0.1), "MaximumRate": .double(2.0),
                "CanGoNext": .bool(state.canGoNext), "CanGoPrevious": .bool(state.canGoPrevious),
                "CanPlay": .bool(true), "CanPause": .bool(true), "CanSeek": .bool(loaded), "CanControl": .bool(true),
            ]
        case MPRISServer.trackList:
            return ["Tracks": .objectPaths(state.tracks.map(\.id)), "CanEditTracks": .bool(false)]
        default:
            return nil
        }
    }

    /// A track's metadata (the one playing, or an entry of the track list).
    func metadata(of track: DesktopTrack) -> [String: DBusValue] {
        var entries: [String: DBusValue] = [
            "mpris:trackid": .objectPath(track.id), "xesam:title": .string(track.title),
        ]
        if let length = track.length { entries["mpris:length"] = .int64(Int64((length * 1_000_000).rounded())) }
        if !track.artist.isEmpty { entries["xesam:artist"] = .strings([track.artist]) }
        if !track.album.isEmpty { entries["xesam:album"] = .string(track.album) }
        if !track.url.isEmpty { entries["xesam:url"] = .string(track.url) }
        if !track.licence.isEmpty { entries["xesam:comment"] = .strings([track.licence]) }
        if let art = track.artURL { entries["mpris:artUrl"] = .string(art) }
        return entries
    }

    /// Takes a new rendered state: `PropertiesChanged` for what changed (never for the position, as MPRIS
    /// asks), `Seeked` when asked.
    func show(_ new: DesktopState, seeked: Bool) {
        let before = properties(of: MPRISServer.player) ?? [:]
        let tracksBefore = state.tracks.map(\.id)
        state = new
        stateAt = ContinuousClock.now
        let after = properties(of: MPRISServer.player) ?? [:]
        let changed = after.filter { $0.key != "Position" && before[$0.key] != $0.value }
        if !changed.isEmpty,
            let signal = try? connection.signal(
                path: MPRISServer.path, interface: MPRISServer.properties, member: "PropertiesChanged")
        {
            let writer = DBusWriter(message: signal)
            writer.string(MPRISServer.player)
            writer.dictionary(changed.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            writer.container("a", "s") {}
            try? connection.send(signal)
        }
        if new.tracks.map(\.id) != tracksBefore,
            let signal = try? connection.signal(
                path: MPRISServer.path, interface: MPRISServer.trackList, member: "TrackListReplaced")
        {
            let writer = DBusWriter(message: signal)
            DBusValue.objectPaths(new.tracks.map(\.id)).write(writer)
            writer.string(new.tracks.contains { $0.id == new.trackID } ? new.trackID : DesktopState.noTrack, type: "o")
            try? connection.send(signal)
        }
        if seeked,
            let signal = try? connection.signal(path: MPRISServer.path, interface: MPRISServer.player, member: "Seeked")
        {
            DBusWriter(message: signal).int64(positionMicroseconds)
            try? connection.send(signal)
        }
    }
}
