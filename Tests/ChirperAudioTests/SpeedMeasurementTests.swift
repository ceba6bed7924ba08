import ChirperTestSupport
import ChirperAudio
import ChirperCore
import Foundation
import Testing

/// CPU cost of the speed stage, for the note (not a timed test): run on demand with
/// `CHIRPER_MEASURE=1 swift test --filter SpeedMeasurementTests` (build with `-c release` for real figures).
@Suite("SpeedMeasurements", .heavyWork)
struct SpeedMeasurementTests {
    static let measuring = ProcessInfo.processInfo.environment["CHIRPER_MEASURE"] != nil

    /// Process CPU seconds (user + system) so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }

    @Test(
        "CPU of 60 s of stereo 44.1 kHz through the speed stage",
        .enabled(if: measuring, "skipped: set CHIRPER_MEASURE=1 to measure"))
    func cpu() throws {
        let rate = 44100
        let input = StudySignals.tone(440, seconds: 60, sampleRate: rate, channels: 2)
        for speed in [
            PlaybackSpeed.normal, PlaybackSpeed(factor: 0.5, mode: .keep), PlaybackSpeed(factor: 0.5, mode: .tape),
            PlaybackSpeed(factor: 0.1, mode: .keep), PlaybackSpeed(factor: 0.1, mode: .tape),
        ] {
            let processor = try SpeedProcessor(format: PCMFormat(sampleRate: rate, channels: 2), speed: speed)
            let before = Self.cpuSeconds()
            var produced = 0
            var start = 0
            while start < input.count {
                let end = min(input.count, start + 4608)  // two MP3 frames, as the decoder hands them out
                produced += try processor.process(Array(input[start..<end])).count
                start = end
            }
            produced += try processor.flush().count
            let cpu = Self.cpuSeconds() - before
            let seconds = Double(produced / 2) / Double(rate)
            let percent = (cpu / seconds * 1000).rounded() / 10
            print("speed \(speed): \(cpu) s CPU for 60 s of input, \(seconds) s of output (\(percent) % of one core)")
        }
    }
}
