import ChirperCore
import ChirperGraphics
import ChirperTestSupport
import Foundation
import Testing

/// A private session bus (`dbus-daemon --session`), ended with the test.
private struct SessionBus {
    let daemon: WatchedProcess
    let address: String

    static func start(in folder: String) async throws -> SessionBus {
        let daemon = try WatchedProcess(
            "/usr/bin/dbus-daemon",
            ["--session", "--nofork", "--print-address=1", "--address=unix:path=\(folder)/bus"], environment: [:])
        // It prints its address once it is ready.
        try await daemon.waitFor("the session bus") { !$0.isEmpty }
        return SessionBus(daemon: daemon, address: daemon.output[0])
    }

    func stop() { daemon.stop() }
}

private let tools = ["/usr/bin/dbus-daemon", "/usr/bin/playerctl", "/usr/bin/dbus-send", "/usr/bin/dbus-monitor"]
private let missingTool = tools.first { !FileManager.default.isExecutableFile(atPath: $0) }

@Suite(
    "MPRIS: the desktop's media keys and playerctl",
    .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"),
    .enabled(if: PulseHarness.unavailableReason == nil, "\(PulseHarness.unavailableReason ?? "")"),
    .enabled(if: missingTool == nil, "skipped: \(missingTool ?? "") is not installed (playerctl, dbus-bin)")
)
struct DesktopTests {
    @Test(
        "playerctl drives it (play-pause, position, next, previous, stop, metadata), Rate is speed, Seeked is signalled"
    )
    func playerctl() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-bus-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bus = try await SessionBus.start(in: folder)
        defer { bus.stop() }
        let pulse = try PulseHarness()
        try await pulse.start()
        var environment = pulse.environment.filter { $0.key.hasPrefix("PULSE_") }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["XDG_CACHE_HOME"] = folder + "/cache"
        environment["XDG_DATA_HOME"] = folder + "/data"
        environment["XDG_RUNTIME_DIR"] = folder + "/run"
        try FileManager.default.createDirectory(atPath: folder + "/run", withIntermediateDirectories: true)
        let session = try ChirperSession(["--output", "pulse"], environment: environment)
        defer { session.kill() }
        let busOnly = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let status = try WatchedProcess(
            "/usr/bin/playerctl", ["-p", "chirper_play", "--follow", "status"], environment: busOnly)
        defer { status.stop() }
        let art = try WatchedProcess(
            "/usr/bin/playerctl", ["-p", "chirper_play", "--follow", "metadata", "mpris:artUrl"], environment: busOnly)
        defer { art.stop() }
        // The desktop sees a change after the session has printed it (the bus has a thread of its own): what it
        // shows is waited for as it arrives, not read once.
        let trackID = try WatchedProcess(
            "/usr/bin/playerctl", ["-p", "chirper_play", "--follow", "metadata", "mpris:trackid"],
            environment: busOnly)
        defer { trackID.stop() }
        let seeked = try WatchedProcess(
            "/usr/bin/dbus-monitor", ["--address", bus.address, "type='signal',member='Seeked'"], environment: [:])
        defer { seeked.stop() }
        func playerctl(_ arguments: String...) async throws -> String {
            let result = try await Tool.run(
                "/usr/bin/env",
                ["DBUS_SESSION_BUS_ADDRESS=\(bus.address)", "playerctl", "-p", "chirper_play"] + arguments,
                captureOutput: true)
            return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func dbusSend(_ arguments: String...) async throws -> String {
            let result = try await Tool.run(
                "/usr/bin/env",
                [
                    "DBUS_SESSION_BUS_ADDRESS=\(bus.address)", "dbus-send", "--print-reply",
                    "--dest=org.mpris.MediaPlayer2.chirper_play", "/org/mpris/MediaPlayer2",
                ] + arguments, captureOutput: true)
            return String(decoding: result.output, as: UTF8.self)
        }
        func setRate(_ rate: String) async throws {
            _ = try await dbusSend(
                "org.freedesktop.DBus.Properties.Set", "string:org.mpris.MediaPlayer2.Player", "string:Rate",
                "variant:double:\(rate)")
        }

        // Three rows of the demo catalog queued (25 s, 30 s and 8 s): the first plays, long enough that it cannot
        // end before playerctl's commands arrive on a loaded machine (a 4 s track once did).
        try await session.run(["search nr:DEMO-24", "search len:7-30", "play 2-4"], marker: "desk-mark-1")
        try await status.waitFor("playerctl sees it playing") { $0.last == "Playing" }
        // Paused first: the track must not end while a loaded machine launches the metadata queries.
        _ = try await playerctl("pause")
        try await session.waitFor("playback paused") { $0.contains { $0.hasPrefix("playback: paused DEMO-12") } }
        try await status.waitFor("playerctl sees it paused") { $0.last == "Paused" }
        #expect(try await playerctl("metadata", "title") == "Synthetic warbler-like song")
        #expect(try await playerctl("metadata", "artist") == "chirper-play demo generator")
        #expect(try await playerctl("metadata", "xesam:album") == "Synthetica modulata")
        // The cover art: the recording's sonogram, a PNG in the session's own folder under XDG_RUNTIME_DIR.
        try await art.waitFor("the cover art's URL") { $0.contains { $0.hasPrefix("file://") } }
        let artURL = try #require(art.output.first { $0.hasPrefix("file://") })
        let artPath = try #require(URL(string: artURL)?.path)
        #expect(artPath.hasPrefix(folder + "/run/chirper-play-art."), "\(artPath)")
        let picture = try PNGFile.read(artPath)
        #expect(picture.width == 256 && picture.height == 256)
        let greys = (0..<picture.height).flatMap { y in (0..<picture.width).map { Int(picture.grey(x: $0, y: y)) } }
        #expect(greys.min()! < 100 && greys.max()! > 200, "a sonogram has dark calls on a light ground")
        _ = try await playerctl("play-pause")
        try await status.waitFor("playerctl sees it playing again") { $0.last == "Playing" && $0.contains("Paused") }

        // position 2: the player seeks there, and Seeked is signalled.
        _ = try await playerctl("position", "2")
        try await session.waitFor("the seek to 0:02") {
            $0.contains { $0.hasPrefix("playback: playing DEMO-12 position=2.0") }
        }
        try await seeked.waitFor("a Seeked signal") { $0.contains { $0.contains("member=Seeked") } }

        // Rate is speed: 0.5 is taken, 10 refused in one line as `speed 10` would be.
        try await setRate("0.5")
        try await session.waitFor("speed 0.5") { $0.contains { $0.hasPrefix("settings: speed=0.5") } }
        try await setRate("10")
        try await session.waitFor("rate 10 refused") {
            $0.contains { $0.hasPrefix("error: \"the desktop asked for rate 10.0: speed 10.0 is out of range") }
        }

        // OpenUri: xeno-canto pages, XC numbers and this machine's files (below); anything else is refused as a
        // typed command would be.
        _ = try await playerctl("open", "ftp://xeno-canto.org/1")
        try await session.waitFor("OpenUri of an ftp: URI refused") {
            $0.contains {
                $0.hasPrefix("error: \"the desktop asked to open ftp://xeno-canto.org/1: only xeno-canto pages")
            }
        }

        _ = try await playerctl("next")
        try await session.waitFor("the queue's next row") { $0.contains("queue: 2/3 DEMO-24") }
        _ = try await playerctl("previous")
        try await session.waitFor("the queue's previous row") { $0.contains { $0.hasPrefix("queue: 1/3 DEMO-12") } }

        // The track list is the queue: three tracks, the first playing; GoTo plays the third.
        let tracks = try await dbusSend(
            "org.freedesktop.DBus.Properties.Get", "string:org.mpris.MediaPlayer2.TrackList", "string:Tracks")
        let ids = tracks.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "object path \"") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != "\"" })
        }
        #expect(ids.count == 3, "\(tracks)")
        let first = try #require(ids.first)
        try await trackID.waitFor("the desktop shows the first track playing") { $0.last?.contains(first) == true }
        #expect(trackID.output.last == "'\(first)'")
        let listed = try await dbusSend(
            "org.mpris.MediaPlayer2.TrackList.GetTracksMetadata", "array:objpath:\(ids.joined(separator: ","))")
        #expect(listed.components(separatedBy: "xesam:title").count == 4, "\(listed)")
        _ = try await dbusSend("org.mpris.MediaPlayer2.TrackList.GoTo", "objpath:\(ids[2])")
        try await session.waitFor("GoTo the third track") { $0.contains("queue: 3/3 DEMO-30") }
        _ = try await playerctl("previous")
        try await session.waitFor("back to the second") {
            $0.drop { !$0.hasPrefix("queue: 3/3") }.contains { $0.hasPrefix("queue: 2/3 DEMO-24") }
        }

        // A loop's wraps are seeks too.
        let before = seeked.output.filter { $0.contains("member=Seeked") }.count
        // On the 30 s demo recording, so that the loop is set long before the track could end.
        try await session.run(["search nr:DEMO-24", "play 1", "loop 0:01 0:02"], marker: "desk-mark-2")
        try await seeked.waitFor("Seeked at the loop's wraps") {
            $0.filter { $0.contains("member=Seeked") }.count >= before + 3
        }

        // A file of one's own, by its file:// URI (a space escaped as the desktop escapes it): opened and played.
        let own = try TemporaryFolder()
        defer { own.remove() }
        let audio = ChirperBinary.packageRoot.appendingPathComponent("assets/demo/audio/demo-01.mp3").path
        try FileManager.default.createDirectory(atPath: own.path + "/my field", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: audio, toPath: own.path + "/my field/dawn.mp3")
        _ = try await playerctl("open", "file://" + own.path + "/my%20field/dawn.mp3")
        try await session.waitFor("OpenUri of a file of one's own plays it") {
            $0.contains { $0.hasPrefix("playback: playing dawn.mp3") }
        }

        _ = try await playerctl("stop")
        try await status.waitFor("playerctl sees it stopped") { $0.last == "Stopped" }
        // Every change in order: playing, paused, playing (…), stopped.
        let changes = status.output.drop { $0 != "Playing" }
        #expect(Array(changes.prefix(3)) == ["Playing", "Paused", "Playing"])
        try await session.quit()
        await pulse.stop()
        // The pictures go with the session.
        let left = try FileManager.default.contentsOfDirectory(atPath: folder + "/run")
        #expect(left.isEmpty, "\(left)")
    }

    @Test("without a session bus nothing is said in a pipe, and everything else works")
    func noBus() async throws {
        let run = try await runChirper(
            ["--output", "null"], input: ["search grp:birds", "play 1", "wait", "quit"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        #expect(run.status == 0)
        #expect(!run.stdout.contains("D-Bus") && run.stderr.isEmpty, "\(run.stdout)\(run.stderr)")
        #expect(run.lines("playback: idle").count == 1)
    }
}
