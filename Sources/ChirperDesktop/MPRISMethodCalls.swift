import CSystemd
import ChirperCore
import FoundationEssentials
import Synchronization
import Dispatch
import ChirperSystem
#if canImport(Glibc)
    import Glibc
#endif

/// The MPRIS methods the desktop calls, answered on the bus's thread.
extension BusLoop {
    // MARK: - Method calls

    func handle(_ message: OpaquePointer?) -> Int32 {
        guard sd_bus_message_is_method_call(message, nil, nil) > 0,
            let interface = sd_bus_message_get_interface(message).map({ String(cString: $0) }),
            let member = sd_bus_message_get_member(message).map({ String(cString: $0) })
        else { return 0 }
        let reader = DBusReader(message: message)
        switch (interface, member) {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            return reply(message) { $0.string(Self.introspection) }
        case (MPRISServer.properties, "Get"):
            guard let target = reader.string(), let property = reader.string(),
                let value = properties(of: target)?[property]
            else { return error(message, "org.freedesktop.DBus.Error.UnknownProperty", "no such property") }
            return reply(message) { $0.variant(value) }
        case (MPRISServer.properties, "GetAll"):
            guard let target = reader.string(), let all = properties(of: target) else {
                return error(message, "org.freedesktop.DBus.Error.UnknownInterface", "no such interface")
            }
            return reply(message) { $0.dictionary(all.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }) }
        case (MPRISServer.properties, "Set"):
            guard reader.string() == MPRISServer.player, let property = reader.string(), let value = reader.variant()
            else { return error(message, "org.freedesktop.DBus.Error.InvalidArgs", "cannot set that") }
            switch (property, value) {
            case ("Rate", .double(let rate)): commands(.setRate(rate))
            case ("Volume", .double(let volume)): commands(.setVolume(volume))
            case ("LoopStatus", .string(let status)): commands(.setLoop(status))
            case ("Shuffle", .bool): break
            default:
                return error(message, "org.freedesktop.DBus.Error.PropertyReadOnly", "\(property) cannot be set")
            }
            return reply(message) { _ in }
        case (MPRISServer.root, "Raise"), (MPRISServer.root, "Quit"):
            return reply(message) { _ in }
        case (MPRISServer.trackList, "GetTracksMetadata"):
            guard let ids = reader.objectPaths() else { return error(message, Self.invalidArgs, "takes ao") }
            let found = ids.compactMap { id in state.tracks.first { $0.id == id } }
            return reply(message) { writer in
                writer.container("a", "a{sv}") {
                    for track in found {
                        writer.dictionary(metadata(of: track).sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
                    }
                }
            }
        case (MPRISServer.trackList, "GoTo"):
            guard let id = reader.objectPath() else { return error(message, Self.invalidArgs, "GoTo takes o") }
            commands(.goTo(trackID: id))
            return reply(message) { _ in }
        case (MPRISServer.trackList, "AddTrack"), (MPRISServer.trackList, "RemoveTrack"):
            return error(
                message, "org.freedesktop.DBus.Error.NotSupported",
                "the track list is the play queue: play 3-7 makes a new one")
        case (MPRISServer.player, _):
            let command: DesktopCommand
            switch member {
            case "PlayPause": command = .playPause
            case "Play": command = .play
            case "Pause": command = .pause
            case "Stop": command = .stop
            case "Next": command = .next
            case "Previous": command = .previous
            case "Seek":
                guard let offset = reader.int64() else { return error(message, Self.invalidArgs, "Seek takes x") }
                command = .seek(offset: offset)
            case "SetPosition":
                guard let track = reader.objectPath(), let position = reader.int64() else {
                    return error(message, Self.invalidArgs, "SetPosition takes o and x")
                }
                command = .setPosition(trackID: track, position: position)
            case "OpenUri":
                guard let uri = reader.string() else { return error(message, Self.invalidArgs, "OpenUri takes s") }
                command = .openURI(uri)
            default:
                return 0
            }
            commands(command)
            return reply(message) { _ in }
        default:
            return 0
        }
    }

    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"

    private func reply(_ call: OpaquePointer?, _ body: (DBusWriter) -> Void) -> Int32 {
        // A caller that asked for no reply gets none (dbus-daemon would reject it as unexpected).
        guard sd_bus_message_get_expect_reply(call) > 0 else { return 1 }
        var reply: OpaquePointer?
        guard sd_bus_message_new_method_return(call, &reply) >= 0 else { return -ENOMEM }
        body(DBusWriter(message: reply))
        do {
            try connection.send(reply)
        } catch {
            return -EIO
        }
        return 1
    }

    private func error(_ call: OpaquePointer?, _ name: String, _ text: String) -> Int32 {
        name.withCString { name in
            text.withCString { text in
                var failure = sd_bus_error(name: name, message: text, _need_free: 0)
                return sd_bus_reply_method_error(call, &failure) >= 0 ? 1 : -EIO
            }
        }
    }

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
            <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
            <method name="Set"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="in"/></method>
            <signal name="PropertiesChanged"><arg type="s"/><arg type="a{sv}"/><arg type="as"/></signal>
          </interface>
          <interface name="org.mpris.MediaPlayer2">
            <method name="Raise"/><method name="Quit"/>
            <property name="CanQuit" type="b" access="read"/><property name="CanRaise" type="b" access="read"/>
            <property name="HasTrackList" type="b" access="read"/><property name="Identity" type="s" access="read"/>
            <property name="SupportedUriSchemes" type="as" access="read"/>
            <property name="SupportedMimeTypes" type="as" access="read"/>
          </interface>
          <interface name="org.mpris.MediaPlayer2.TrackList">
            <method name="GetTracksMetadata"><arg name="TrackIds" type="ao" direction="in"/><arg name="Metadata" type="aa{sv}" direction="out"/></method>
            <method name="AddTrack"><arg name="Uri" type="s" direction="in"/><arg name="AfterTrack" type="o" direction="in"/><arg name="SetAsCurrent" type="b" direction="in"/></method>
            <method name="RemoveTrack"><arg name="TrackId" type="o" direction="in"/></method>
            <method name="GoTo"><arg name="TrackId" type="o" direction="in"/></method>
            <signal name="TrackListReplaced"><arg name="Tracks" type="ao"/><arg name="CurrentTrack" type="o"/></signal>
            <property name="Tracks" type="ao" access="read"/>
            <property name="CanEditTracks" type="b" access="read"/>
          </interface>
          <interface name="org.mpris.MediaPlayer2.Player">
            <method name="Next"/><method name="Previous"/><method name="Pause"/><method name="PlayPause"/>
            <method name="Stop"/><method name="Play"/>
            <method name="Seek"><arg name="Offset" type="x" direction="in"/></method>
            <method name="SetPosition"><arg name="TrackId" type="o" direction="in"/><arg name="Position" type="x" direction="in"/></method>
            <method name="OpenUri"><arg name="Uri" type="s" direction="in"/></method>
            <signal name="Seeked"><arg name="Position" type="x"/></signal>
            <property name="PlaybackStatus" type="s" access="read"/>
            <property name="LoopStatus" type="s" access="readwrite"/>
            <property name="Rate" type="d" access="readwrite"/>
            <property name="Shuffle" type="b" access="readwrite"/>
            <property name="Metadata" type="a{sv}" access="read"/>
            <property name="Volume" type="d" access="readwrite"/>
            <property name="Position" type="x" access="read"/>
            <property name="MinimumRate" type="d" access="read"/>
            <property name="MaximumRate" type="d" access="read"/>
            <property name="CanGoNext" type="b" access="read"/>
            <property name="CanGoPrevious" type="b" access="read"/>
            <property name="CanPlay" type="b" access="read"/>
            <property name="CanPause" type="b" access="read"/>
            <property name="CanSeek" type="b" access="read"/>
            <property name="CanControl" type="b" access="read"/>
          </interface>
        </node>
        """
}
