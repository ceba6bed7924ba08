import ChirperCore

/// The speed stage of the pipeline: decoded samples in, samples to play out, at `PlaybackSpeed`.
///
/// `tape` runs libsyn123's resampler (`Syn123Resampler`), `keep` libsonic's time-stretch (`SonicStretcher`);
/// until the first speed other than 1 the samples pass through untouched. Once an engine runs it stays for
/// its mode, at factor 1 too, so within one processor a factor change only retunes it (no click). The player
/// does not use that: a speed change while playing starts a new segment at the sample heard, with a new
/// processor, after a short rebuffer (the sink's queue was rendered at the old speed). A change of mode first
/// lets out what the old engine holds. A new tape resampler is warmed up on the last input frames (its output
/// for them dropped), so it does not start from silence. Output rate and channels equal the input's; create a
/// new processor when the format changes or after a seek. Not thread-safe.
public final class SpeedProcessor {
    private enum Engine {
        case passThrough
        case tape(Syn123Resampler)
        case keep(SonicStretcher)
    }

    public let format: PCMFormat
    public private(set) var speed: PlaybackSpeed
    private var engine: Engine = .passThrough
    /// The last input frames, to warm up a new resampler.
    private var history: [Int16] = []
    private static let historyFrames = 512
    /// Samples still to drop from a new resampler's output: the part of the warm-up it lags behind, which
    /// was already played.
    private var pendingDrop = 0

    public init(format: PCMFormat, speed: PlaybackSpeed = .normal) throws {
        self.format = format
        self.speed = .normal
        try setSpeed(speed)
    }

    /// Applies `speed` (clamped to 0.1…2.0) from the next samples on; returns any samples the previous
    /// engine still held, to be played before the next `process` output.
    @discardableResult
    public func setSpeed(_ newSpeed: PlaybackSpeed) throws -> [Int16] {
        let range = PlaybackSpeed.range
        let factor = min(max(newSpeed.factor, range.lowerBound), range.upperBound)
        speed = PlaybackSpeed(factor: factor, mode: newSpeed.mode)
        switch (engine, newSpeed.mode) {
        case (.tape(let resampler), .tape):
            try resampler.setSpeed(factor)
            return []
        case (.keep(let stretcher), .keep):
            stretcher.setSpeed(factor)
            return []
        case (.passThrough, _) where factor == 1:
            return []
        default:
            let tail = try flush()
            let channels = format.channels
            switch newSpeed.mode {
            case .tape:
                // Mid-stream, start at 1 (where the audio is), warm up on what was just played, then glide to `factor`.
                let start = history.isEmpty ? factor : 1
                let resampler = try Syn123Resampler(sampleRate: format.sampleRate, channels: channels, speed: start)
                let warm = try resampler.process(history)
                pendingDrop = Self.delay(of: warm, behind: history, channels: channels) * channels
                try resampler.setSpeed(factor)
                engine = .tape(resampler)
            case .keep:
                engine = .keep(try SonicStretcher(sampleRate: format.sampleRate, channels: channels, speed: factor))
            }
            return tail
        }
    }

    /// Transforms the next interleaved samples (whole frames).
    public func process(_ samples: [Int16]) throws -> [Int16] {
        switch engine {
        case .passThrough:
            remember(samples)
            return samples
        case .tape(let resampler):
            var output = try resampler.process(samples)
            if pendingDrop > 0 {
                let dropped = min(pendingDrop, output.count)
                output.removeFirst(dropped)
                pendingDrop -= dropped
            }
            return output
        case .keep(let stretcher):
            return try stretcher.process(samples)
        }
    }

    /// At the end of the stream (or before a seek drops the rest): what the engine still holds.
    public func flush() throws -> [Int16] {
        switch engine {
        case .passThrough, .tape: []
        case .keep(let stretcher): try stretcher.flush()
        }
    }

    /// How many frames `warm` (the resampler's 1:1 output for `history`) lags behind it: the shift, up to 32
    /// frames, that best matches the last 256 frames (first channel).
    private static func delay(of warm: [Int16], behind history: [Int16], channels: Int) -> Int {
        let window = 256
        let historyFrames = history.count / channels
        let warmFrames = warm.count / channels
        guard historyFrames >= window + 32, warmFrames >= window else { return 0 }
        var best = (shift: 0, error: Double.infinity)
        for shift in 0...32 {
            var error = 0.0
            for index in 0..<window {
                let produced = Double(warm[(warmFrames - window + index) * channels])
                let source = Double(history[(historyFrames - window + index - shift) * channels])
                error += (produced - source) * (produced - source)
            }
            if error < best.error { best = (shift, error) }
        }
        // Frames of history not yet out = the lag plus any frames the resampler produced fewer of.
        return max(0, best.shift - (historyFrames - warmFrames))
    }

    private func remember(_ samples: [Int16]) {
        let keep = Self.historyFrames * format.channels
        if samples.count >= keep {
            history = Array(samples.suffix(keep))
        } else {
            history = Array((history + samples).suffix(keep))
        }
    }
}
