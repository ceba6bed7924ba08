import ChirperAudio
import Foundation
import Testing

@Suite("libpulse, loaded on demand")
struct PulseLibraryTests {
    @Test("with libpulse missing, its functions do nothing and return zero instead of crashing")
    func missingLibrary() async {
        // In a child process of its own: the library is loaded once per process.
        await #expect(processExitsWith: .success) {
            setenv("CHIRPER_LIBPULSE", "/nonexistent/libpulse.so.0", 1)
            // Each call goes through a forwarder whose libpulse function could not be looked up.
            guard PulseVolume.volume(percent: 50) == 0, PulseVolume.linear(65536) == 0 else { exit(2) }
        }
    }

    @Test("with libpulse present, the same functions are libpulse's")
    func presentLibrary() {
        #expect(PulseVolume.volume(percent: 100) == 0x10000, "PA_VOLUME_NORM")
        #expect(abs(PulseVolume.linear(PulseVolume.volume(percent: 50)) - 0.5) < 0.001)
    }
}
