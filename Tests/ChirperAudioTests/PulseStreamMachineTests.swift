import Testing

@testable import ChirperAudio

@Suite("A PulseAudio stream's gate, lease and parking")
struct PulseStreamMachineTests {
    @Test("a track starts held: start hands the audio over with no uncork; pause corks; resume uncorks")
    func startPauseResume() {
        var stream = PulseStreamMachine()
        #expect(stream.handle(.start(lease: 0)) == [.hand])
        #expect(stream.handle(.start(lease: 0)) == [])
        #expect(stream.handle(.pause(lease: 0)) == [.cork])
        #expect(stream.handle(.pause(lease: 0)) == [])
        #expect(stream.handle(.start(lease: 0)) == [.uncork, .hand])
        #expect(stream.gate == .open)
    }

    @Test("a playing track's stop corks, flushes and uncorks in one go, then parks the stream for the next lease")
    func stopParks() {
        var stream = PulseStreamMachine()
        _ = stream.handle(.start(lease: 0))
        #expect(stream.handle(.stop(lease: 0, ready: true, canPark: true)) == [.cork, .flush, .uncork, .park])
        #expect(stream.parked && stream.gate == .held && stream.lease == 1)
        // The old output's late calls find the stream gone.
        #expect(stream.handle(.start(lease: 0)) == [])
        #expect(stream.handle(.pause(lease: 0)) == [])
        #expect(stream.handle(.stop(lease: 0, ready: true, canPark: true)) == [])
        // A parked stream is not playing: the server's empty stream is no underrun.
        #expect(stream.handle(.underflow) == [])
    }

    @Test(
        "a parked stream corks once it idled, and is uncorked when the next track takes it; once taken, idling does nothing"
    )
    func idleThenReuse() {
        var stream = PulseStreamMachine()
        _ = stream.handle(.start(lease: 0))
        _ = stream.handle(.stop(lease: 0, ready: true, canPark: true))
        #expect(stream.handle(.idled) == [.cork])
        #expect(stream.handle(.reuse) == [.uncork, .beginLease(2)])
        #expect(stream.handle(.idled) == [])
        #expect(stream.handle(.reuse) == [])
        #expect(stream.handle(.start(lease: 2)) == [.hand])
    }

    @Test("a stream reused before it idled needs no round trip")
    func quickReuse() {
        var stream = PulseStreamMachine()
        _ = stream.handle(.stop(lease: 0, ready: true, canPark: true))
        #expect(stream.handle(.reuse) == [.beginLease(2)])
    }

    @Test("underruns count only once the track's audio was handed over")
    func underflows() {
        var stream = PulseStreamMachine()
        #expect(stream.handle(.underflow) == [])
        _ = stream.handle(.start(lease: 0))
        #expect(stream.handle(.underflow) == [.reportUnderrun])
        _ = stream.handle(.pause(lease: 0))
        #expect(stream.handle(.underflow) == [.reportUnderrun])
    }

    @Test("a stream the server has not made ready, or a connection going away, is torn down, never parked")
    func tearDown() {
        var connecting = PulseStreamMachine()
        #expect(connecting.handle(.stop(lease: 0, ready: false, canPark: true)) == [.tearDown])

        var closing = PulseStreamMachine()
        _ = closing.handle(.start(lease: 0))
        #expect(closing.handle(.stop(lease: 0, ready: true, canPark: false)) == [.cork, .flush, .uncork, .tearDown])
        #expect(!closing.parked)

        var held = PulseStreamMachine()
        #expect(held.handle(.stop(lease: 0, ready: true, canPark: true)) == [.park])
    }
}
