import Testing

@testable import ChirperCore

@Suite("Mono mix: what identify reads and identify on hears, mixed alike")
struct MonoMixTests {
    @Test("stereo frames are the mean of their two channels, scaled to [-1, 1)")
    func stereoMean() {
        let samples: [Int16] = [16384, 0, -32768, -32768, 100, -100]
        #expect(MonoMix.mean(of: samples, channels: 2, frames: 0..<3) == [0.25, -1, 0])
    }

    @Test("a range of frames starts at its own first frame, and a mono block is only scaled")
    func rangeOfFrames() {
        let quad: [Int16] = [0, 0, 0, 0, 32767, 32767, 32767, 32767, 4, 4, -4, -4]
        #expect(MonoMix.mean(of: quad, channels: 4, frames: 1..<2) == [Float(32767) / 32768])
        #expect(MonoMix.mean(of: quad, channels: 4, frames: 2..<3) == [0])
        #expect(MonoMix.mean(of: [8192, -8192], channels: 1, frames: 0..<2) == [0.25, -0.25])
        #expect(MonoMix.mean(of: [1, 2], channels: 1, frames: 1..<1).isEmpty)
    }
}
