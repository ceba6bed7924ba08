import ChirperAudio
import ChirperCore
import ChirperSystem
import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// What the player's subscribers (the status line, MPRIS, a pipe's `playback:` lines) are told, and when.
@Suite("Player: publishing its states")
struct PlayerPublishingTests {
    @Test(
        "`playing` reaches a subscriber only once the output is started: a status never reads playing before the sound")
    func playingAfterTheOutputStarts() async throws {
        let (server, sink, player, item) = try await PlayerStudyTests.rig()
        let updates = player.stateUpdates()
        // What the subscriber had been told when each output was started.
        let toldAtStart = NIOLockedValueBox<[[PlaybackState]]>([])
        sink.onStart { toldAtStart.withLockedValue { $0.append(updates.pollAll()) } }
        player.play(item)
        try await player.waitFor("playing") { $0.isPlaying }
        let output = try #require(sink.outputs.first)
        #expect(output.log == ["start"])
        let told = toldAtStart.withLockedValue { $0 }
        #expect(told.count == 1)
        #expect(told.first?.contains { $0.isBuffering } == true, "\(told)")
        #expect(told.first?.contains { $0.isPlaying } == false, "\(told)")
        // And `playing` follows, after the start.
        var next = await updates.next()
        while let state = next, !state.isPlaying { next = await updates.next() }
        #expect(next?.isPlaying == true)
        await player.shutdown()
        await server.shutdown()
    }
}
