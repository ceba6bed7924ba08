import CPulse
import Testing

@testable import ChirperAudio

@Suite("The position read from PulseAudio's clock")
struct PulsePositionTests {
    /// 44.1 kHz stereo, 16-bit.
    private let bytesPerSecond = 176_400

    @Test("is the stream's time since the track's lease began, while the server plays what it was given")
    func timeSinceLease() {
        let played = PulseOutput.played(
            time: 7_500_000, timeBase: 5_000_000, handedBytes: 3 * bytesPerSecond, bytesPerSecond: bytesPerSecond)
        #expect(played == 2.5)
        #expect(
            PulseOutput.played(time: 4_000_000, timeBase: 5_000_000, handedBytes: 0, bytesPerSecond: bytesPerSecond)
                == 0)
    }

    @Test("never runs past the audio handed to the server, however far the interpolated clock has run on")
    func heldToWhatWasHanded() {
        // An underrun the client has not heard of yet: the clock says 3.5 s, the server was given 2 s.
        let played = PulseOutput.played(
            time: 3_500_000, timeBase: 0, handedBytes: 2 * bytesPerSecond, bytesPerSecond: bytesPerSecond)
        #expect(played == 2.0)
        // More is handed over while the stream is corked to rebuffer: what is queued beyond it now counts as
        // buffered, so the restart can come.
        let later = PulseOutput.played(
            time: 3_500_000, timeBase: 0, handedBytes: 2 * bytesPerSecond + bytesPerSecond / 10,
            bytesPerSecond: bytesPerSecond)
        #expect(later == 2.1)
    }
}
