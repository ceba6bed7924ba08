import ChirperCatalog
import Testing

@testable import ChirperCore
@testable import ChirperREPL

private let script = Presenter(style: .script, width: 100, sourceName: "the test catalog")

/// A field recorder's file of `channels` channels, opened as one's own.
private func ownFile(channels: Int) -> Recording {
    let header = AudioFileHeader(
        format: .wav, sampleRate: 48_000, channels: channels, encoding: nil, precision: 16, frames: 480_000,
        audio: AudioFileHeader.AudioData(offset: 44, length: Int64(960_000 * channels), declared: .whole),
        channelMask: nil, hasSeekTable: false, metadata: FileMetadata())
    return Recording(
        id: "array.wav", englishName: "", length: "0:10",
        audio: .playable(.local(path: "/field/array.wav")),
        ownFile: OwnFile(path: "/field/array.wav", header: header, dateSource: .modified))
}

private func playing(_ recording: Recording, channel: Int? = nil, at position: Double) -> PlaybackState {
    var item = recording.playItem!
    item.channel = channel
    return .playing(PlaybackProgress(item: item, ticket: PlaybackTicket(1), position: position, duration: 10))
}

/// A script session playing `recording` at `position` (the actions of getting there are dropped).
private func session(playing recording: Recording, at position: Double) -> SessionMachine {
    var machine = SessionMachine(
        .init(interactive: false, presenter: script, saveDirectory: "/saves", homeDirectory: "/home/birder"))
    _ = machine.handle(.answered(.started(PlaybackTicket(1), recording, forQueue: false)))
    _ = machine.handle(.playback(playing(recording, at: position)))
    return machine
}

@Suite("channel: one channel of a file of several, chosen while it plays")
struct ChannelSessionTests {
    @Test("channel 3 plays the same file's third channel from where it is; channel alone says which plays")
    func choosesAChannel() {
        let file = ownFile(channels: 4)
        var machine = session(playing: file, at: 4.5)
        #expect(
            machine.handle(.typed("channel", columns: 100)) == [
                .print([#"channel: id="array.wav" played=1 channels=4"#])
            ])
        var third = file.playItem!
        third.channel = 3
        #expect(
            machine.handle(.typed("channel 3", columns: 100)) == [.request(.play(third, file, forQueue: false))])
        #expect(
            machine.handle(.answered(.started(PlaybackTicket(2), file, forQueue: false))).contains(
                .request(.control(.seek(.absolute(4.5))))),
            "then on from where it was")
    }

    @Test("a channel the file lacks, a stereo file and nothing playing: one line each, and playback goes on")
    func refusals() {
        var four = session(playing: ownFile(channels: 4), at: 1)
        #expect(
            four.handle(.typed("channel 5", columns: 100)) == [
                .print([script.refusal("this recording has no channel 5: it has 4; choose 1 to 4")])
            ])
        var stereo = session(playing: ownFile(channels: 2), at: 1)
        #expect(
            stereo.handle(.typed("channel 2", columns: 100)) == [
                .print([script.refusal("array.wav is stereo: both channels always play")])
            ])
        var idle = SessionMachine(
            .init(interactive: false, presenter: script, saveDirectory: "/saves", homeDirectory: "/home/birder"))
        #expect(
            idle.handle(.typed("channel 2", columns: 100)) == [
                .print([
                    script.refusal("nothing plays: play a file of several channels first, e.g. play 1, then channel 2")
                ])
            ])
        #expect(throws: CommandError.self) { try CommandParser.parse("channel 9") }
    }
}
