import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// The stall watchdog judges the network only on time it was there to watch: a wake-up long after its
/// deadline (a laptop that slept, a process that got no processor) is not a stall by itself.
@Suite("Stall watchdog's late wake-up")
struct StallGraceTests {
    /// How a stalled track's watchdog went on after it woke: it slept again, or the track failed.
    private enum AfterWake: Equatable {
        case sleptAgain
        case failed(String)
    }

    @Test(
        "a watchdog woken a minute past its deadline gives the transfer its grace first, then fails the track in one line"
    )
    func lateWakeIsGraced() async throws {
        // A server that never answers: no sign of life at all, so the watch never changes.
        let server = try await LoopbackServer.start { _ in LoopbackResponse(delayBeforeHead: .seconds(3600)) }
        let clock = ManualClock()
        let player = Player(
            sink: NullSink(), sources: Transport.http.sources,
            clocks: Player.Clocks(stall: clock, backoff: RecordingClock()),
            configuration: .init(stallTimeout: .seconds(5), lateWakeGrace: .seconds(2)))
        player.play(PlayItem(label: "SLEPT", location: .remote(server.baseURL + "/stall.wav")))
        await server.waitForRequests(1)
        await clock.waitForSleepers()

        clock.advance(by: .seconds(60))
        let afterWake = try await withThrowingTaskGroup(of: AfterWake.self) { group in
            group.addTask {
                await clock.waitForSleepers()
                return .sleptAgain
            }
            group.addTask {
                .failed(try await player.waitFor("stalled") { $0.failureReason != nil }.failureReason ?? "")
            }
            defer { group.cancelAll() }
            return try await group.next()
        }
        #expect(afterWake == .sleptAgain)
        #expect(player.state.failureReason == nil)

        clock.advance(by: .seconds(2))
        let reason = try await player.waitFor("stalled") { $0.failureReason != nil }.failureReason
        #expect(reason == "network stalled: no audio for 5 s; check the connection and play again")
        await server.shutdown()
    }
}
