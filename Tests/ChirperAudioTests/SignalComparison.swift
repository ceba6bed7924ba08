/// How a recording of the sink's monitor compares with a reference decode.
struct SignalComparison: CustomStringConvertible {
    /// Frames of the recording before the reference starts.
    var lagFrames: Int
    /// Normalised cross-correlation over the reference's length, at that lag.
    var correlation: Double
    /// Seconds of sound (first to last non-silent sample) in the recording and in the reference.
    var recordedSeconds: Double
    var referenceSeconds: Double
    /// Where the reference's first sound is, in seconds from its start.
    var referenceFirstSound: Double

    var durationError: Double { abs(recordedSeconds - referenceSeconds) / referenceSeconds }

    var description: String {
        let percent = (durationError * 1000).rounded() / 10
        let ncc = (correlation * 10000).rounded() / 10000
        return
            "lag \(lagFrames) frames, correlation \(ncc), sound \(recordedSeconds) s vs \(referenceSeconds) s (\(percent) %)"
    }

    /// Aligns `recorded` to `reference` (both interleaved, `channels` wide): a first guess from the first
    /// sound in each, then the best correlation within ±`search` frames on a window from the middle of the
    /// reference (the monitor may miss the first milliseconds of a stream, so the start is not trusted).
    init?(recorded: [Int16], reference: [Int16], channels: Int, sampleRate: Int, search: Int = 2048) {
        let threshold = 64
        guard let recordedFirst = Self.firstSound(recorded, threshold),
            let referenceFirst = Self.firstSound(reference, threshold),
            let recordedLast = Self.lastSound(recorded, threshold),
            let referenceLast = Self.lastSound(reference, threshold)
        else { return nil }
        let guess = recordedFirst / channels - referenceFirst / channels
        let frames = reference.count / channels
        let windowFrames = min(frames / 2, 4096)
        let windowStart = (frames / 2 - windowFrames / 2) * channels
        let window = windowFrames * channels
        // Every lag, on every other sample of the window; then every sample near the best lag.
        var best = (lag: guess, score: -Double.infinity)
        for lag in (guess - search)...(guess + search) {
            let score = Self.correlation(
                recorded, reference, lag: lag * channels, from: windowStart, count: window, step: 2)
            if score > best.score { best = (lag, score) }
        }
        let coarse = best.lag
        best.score = -Double.infinity
        for lag in (coarse - 2)...(coarse + 2) {
            let score = Self.correlation(
                recorded, reference, lag: lag * channels, from: windowStart, count: window, step: 1)
            if score > best.score { best = (lag, score) }
        }
        lagFrames = best.lag
        correlation = Self.correlation(
            recorded, reference, lag: best.lag * channels, from: 0, count: reference.count, step: 1)
        recordedSeconds = Double((recordedLast - recordedFirst) / channels) / Double(sampleRate)
        referenceSeconds = Double((referenceLast - referenceFirst) / channels) / Double(sampleRate)
        referenceFirstSound = Double(referenceFirst / channels) / Double(sampleRate)
    }

    private static func firstSound(_ samples: [Int16], _ threshold: Int) -> Int? {
        samples.firstIndex { abs(Int($0)) > threshold }
    }

    private static func lastSound(_ samples: [Int16], _ threshold: Int) -> Int? {
        samples.lastIndex { abs(Int($0)) > threshold }
    }

    /// Normalised cross-correlation of reference[from..<from+count] with recorded shifted by `lag` samples;
    /// reference samples the recording does not cover count as compared with silence.
    private static func correlation(
        _ recorded: [Int16],
        _ reference: [Int16],
        lag: Int,
        from: Int,
        count: Int,
        step: Int
    ) -> Double {
        recorded.withUnsafeBufferPointer { x in
            reference.withUnsafeBufferPointer { r in
                var dot = 0.0
                var rr = 0.0
                var xx = 0.0
                var index = from
                let end = min(from + count, r.count)
                while index < end {
                    let a = Double(r[index])
                    rr += a * a
                    let j = index + lag
                    if j >= 0 && j < x.count {
                        let b = Double(x[j])
                        dot += a * b
                        xx += b * b
                    }
                    index += step
                }
                guard rr > 0, xx > 0 else { return 0 }
                return dot / (rr * xx).squareRoot()
            }
        }
    }
}
