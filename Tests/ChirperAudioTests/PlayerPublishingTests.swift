import ChirperAudio
import ChirperCore
import ChirperSystem
import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// What the player's subscribers (the status line, MPRIS, a pipe's `playback:` lines) are told, and when, and
/// the output agreeing with it.
@Suite("Player: what its subscribers are told, and the output agreeing with it")
struct PlayerPublishingTests {
    /// Gives `command` to the player the first time the sink is about to act on `call` (between the decision
    /// and the act); its answer (nil: taken) is kept in what is returned, nil until then.
    static func once(before call: String, on sink: GatedSink, _ command: @escaping @Sendable () -> String?)
        -> NIOLockedValueBox<String??>
    {
        let answer = NIOLockedValueBox<String??>(nil)
        let fired = NIOLockedValueBox(false)
        sink.before { made in
            let first = fired.withLockedValue { fired in
                guard made == call, !fired else { return false }
                fired = true
                return true
            }
            guard first else { return }
            // Outside the boxes: the command may bring the sink back here (the same call, once more).
            let result = command()
            answer.withLockedValue { $0 = .some(result) }
        }
        return answer
    }

    @Test(
        "`playing` reaches a subscriber only once the output is started: a status never reads playing before the sound")
    func playingAfterTheOutputStarts() async throws {
        let (server, sink, player, item) = try await PlayerStudyTests.rig()
        let updates = player.stateUpdates()
        // What the subscriber had been told when each output was started.
        let toldAtStart = NIOLockedValueBox<[[PlaybackState]]>([])
        sink.before { call in
            if call == "start" { toldAtStart.withLockedValue { $0.append(updates.pollAll()) } }
        }
        player.play(item)
        try await player.waitFor("playing") { $0.isPlaying }
        let output = try #require(sink.outputs.first)
        #expect(output.log == ["start"])
        let told = toldAtStart.withLockedValue { $0 }
        #expect(told.count == 1)
        #expect(told.first?.contains { $0.isPlaying } == false, "\(told)")
        // And `playing` follows, after the start.
        var next = await updates.next()
        while let state = next, !state.isPlaying { next = await updates.next() }
        #expect(next?.isPlaying == true)
        await player.shutdown()
        await server.shutdown()
    }

    @Test("a pause decided while the output is being started wins: the output ends paused, as the status says")
    func pauseAsTheOutputStarts() async throws {
        let (server, sink, player, item) = try await PlayerStudyTests.rig()
        // The first start only: the pause is decided and performed between the decision to start and the start.
        let refusal = Self.once(before: "start", on: sink) { player.pause() }
        player.play(item)
        try await player.waitFor("paused") { $0.isPaused }
        #expect(refusal.withLockedValue { $0 } == .some(nil), "the pause was taken")
        let output = try #require(sink.outputs.first)
        #expect(!output.isRunning, "the output runs while the status says paused: \(output.log)")
        #expect(output.log.last == "pause")
        player.resume()
        try await player.waitFor("playing again") { $0.isPlaying }
        #expect(output.isRunning)
        await player.shutdown()
        await server.shutdown()
    }

    @Test("a volume set while a new output takes the old one is the volume it plays at")
    func volumeAsTheOutputOpens() async throws {
        let (server, sink, player, item) = try await PlayerStudyTests.rig()
        // The new output's first volume (the one it is installed with) is set after the command's.
        let refusal = Self.once(before: "volume", on: sink) { player.setVolume(30) }
        player.play(item)
        try await player.waitFor("playing") { $0.isPlaying }
        #expect(refusal.withLockedValue { $0 } == .some(nil), "the volume was taken")
        let output = try #require(sink.outputs.first)
        #expect(output.volume == 30)
        await player.shutdown()
        await server.shutdown()
    }
}
