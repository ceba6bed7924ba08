import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// Synthetic selections with known answers, at 44.1 kHz: quiet noise (a fixed pseudo-random sequence, about
/// −70 dB) plus what each test adds.
private enum Calls {
    static let rate = 44_100

    static func noise(seconds: Double) -> [Float] {
        var state: UInt32 = 12_345
        return (0..<Int(seconds * Double(rate))).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return (Float(state >> 8) / Float(1 << 24) - 0.5) * 0.0006
        }
    }

    /// `samples` plus a tone of `frequency` (or a linear sweep to `to`) from `start` for `length` seconds.
    static func adding(
        _ samples: [Float], frequency: Double, to: Double? = nil, start: Double, length: Double, amplitude: Float
    ) -> [Float] {
        var out = samples
        let first = Int(start * Double(rate))
        let count = Int(length * Double(rate))
        var phase = 0.0
        for i in 0..<count where first + i < out.count {
            let t = Double(i) / Double(rate)
            let f = to.map { frequency + ($0 - frequency) * t / length } ?? frequency
            phase += 2 * Double.pi * f / Double(rate)
            out[first + i] += amplitude * Float(sin(phase))
        }
        return out
    }

    static func measure(_ samples: [Float], band: FrequencyBand? = nil, begin: Double = 0) throws
        -> SelectionMeasurement
    {
        let plan = MeasurementAnalysis.plan(sampleRate: rate)
        return try MeasurementAnalysis.measure(
            samples, sampleRate: rate, begin: begin, band: band, transform: try RealFFT(size: plan.size), hop: plan.hop)
    }
}

@Suite("Raven's measurements of a selection", .heavyWork)
struct SelectionMeasurementTests {
    @Test("a 0.5 s 4 kHz tone in quiet noise: peak, 5 % and 95 % within a bin of 4 kHz, dur 90 % 0.45 s within a hop")
    func tone() throws {
        let samples = Calls.adding(Calls.noise(seconds: 1), frequency: 4000, start: 0.25, length: 0.5, amplitude: 0.5)
        let m = try Calls.measure(samples, begin: 10)
        #expect(m.fftSize == 512 && m.hop == 256)
        #expect(abs(m.peakFrequency - 4000) <= m.binWidth)
        #expect(abs(m.frequency5 - 4000) <= m.binWidth && abs(m.frequency95 - 4000) <= m.binWidth)
        #expect(abs(m.centerFrequency - 4000) <= m.binWidth)
        #expect(abs(m.duration90 - 0.45) <= m.hopSeconds, "dur 90 % \(m.duration90)")
        #expect(abs(m.time5 - 10.275) <= m.hopSeconds && abs(m.time95 - 10.725) <= m.hopSeconds)
        #expect(m.peakTime >= 10.25 && m.peakTime <= 10.75)
        #expect(m.begin == 10 && abs(m.end - 11) < 1e-9 && m.low == 0 && m.high == 22_050)
        // A steady tone: a flat contour; a spectrum of few bins, far more ordered than noise alone.
        #expect(m.contourInflections <= 2 && abs(m.contourSlope) < 1)
        let toneOnly = try Calls.measure(Array(samples[(Calls.rate * 3 / 10)..<(Calls.rate * 7 / 10)]))
        let noiseOnly = try Calls.measure(Calls.noise(seconds: 0.4))
        #expect(toneOnly.averageEntropy < noiseOnly.averageEntropy - 3, "\(toneOnly.averageEntropy) bits")
    }

    @Test(
        "a linear 2-6 kHz chirp over 0.4 s: 5 % near 2.2 kHz, 95 % near 5.8 kHz, BW 90 % near 3.6 kHz, a rising contour"
    )
    func chirp() throws {
        let samples = Calls.adding(
            Calls.noise(seconds: 0.6), frequency: 2000, to: 6000, start: 0.1, length: 0.4, amplitude: 0.5)
        let m = try Calls.measure(samples)
        let twoBins = 2 * m.binWidth
        #expect(abs(m.frequency5 - 2200) <= twoBins, "freq 5 % \(m.frequency5)")
        #expect(abs(m.frequency95 - 5800) <= twoBins, "freq 95 % \(m.frequency95)")
        #expect(abs(m.bandwidth90 - 3600) <= twoBins, "BW 90 % \(m.bandwidth90)")
        #expect(abs(m.centerFrequency - 4000) <= twoBins)
        // 4 kHz in 400 ms: 10 Hz/ms over the sweep, rising throughout.
        #expect(abs(m.contourSlope - 10) < 1.5, "\(m.contourSlope) Hz/ms")
        #expect(m.contourInflections <= 2)
    }

    @Test("a band that leaves out a louder tone measures only what is inside it")
    func band() throws {
        var samples = Calls.adding(Calls.noise(seconds: 1), frequency: 1000, start: 0, length: 1, amplitude: 0.8)
        samples = Calls.adding(samples, frequency: 5000, start: 0.2, length: 0.5, amplitude: 0.05)
        let whole = try Calls.measure(samples)
        #expect(abs(whole.peakFrequency - 1000) <= whole.binWidth)
        let inside = try Calls.measure(samples, band: FrequencyBand(low: 3000, high: 8000))
        #expect(abs(inside.peakFrequency - 5000) <= inside.binWidth)
        #expect(inside.frequency5 >= 3000 && inside.frequency95 <= 8000)
        #expect(abs(inside.duration90 - 0.45) <= inside.hopSeconds)
        #expect(inside.low == 3000 && inside.high == 8000)
    }

    @Test("a selection shorter than one window, a band narrower than a bin, or silence: one line each")
    func refusals() throws {
        #expect(throws: MeasurementError.tooShort(seconds: 100.0 / 44_100, window: 512.0 / 44_100)) {
            try Calls.measure([Float](repeating: 0.1, count: 100))
        }
        #expect(throws: MeasurementError.bandNarrowerThanBin(binWidth: 44_100.0 / 512)) {
            try Calls.measure(Calls.noise(seconds: 0.1), band: FrequencyBand(low: 4001, high: 4002))
        }
        #expect(throws: MeasurementError.silent) { try Calls.measure([Float](repeating: 0, count: 4096)) }
        #expect(MeasurementError.silent.description.count < 100)
    }

    @Test(
        "through the decoder: a selection of a WAV file is measured from where it starts, one line when it is past the end"
    )
    func fromAFile() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 3 s: silence, then a 3 kHz tone from 1.0 to 1.5 s, then silence (written as 16-bit stereo WAV).
        var samples = Calls.adding(Calls.noise(seconds: 3), frequency: 3000, start: 1, length: 0.5, amplitude: 0.5)
        samples = samples.map { max(-1, min(1, $0)) }
        let path = directory + "/call.wav"
        try WAVFixture.write(samples, rate: Calls.rate, channels: 2, to: path)
        let reader = MeasurementReader(sources: ByteSources { _ in FileByteSource(path: path) })
        let item = PlayItem(label: "XC1", location: .local(path: path), expectedDuration: 3)
        let m = try await reader.measure(
            item, span: TimeSpan(start: 0.8, end: 1.8), band: FrequencyBand(low: 1000, high: 6000))
        #expect(abs(m.begin - 0.8) < 1e-6 && abs(m.end - 1.8) < 0.001)
        #expect(abs(m.peakFrequency - 3000) <= m.binWidth)
        #expect(abs(m.time5 - 1.025) <= m.hopSeconds && abs(m.time95 - 1.475) <= m.hopSeconds)
        await #expect {
            try await reader.measure(item, span: TimeSpan(start: 4, end: 5), band: nil)
        } throws: { error in
            (error as? MeasurementReadError)?.userMessage
                == "measure: XC1: the selection starts after the recording ends; select an earlier one"
        }
    }

    @Test("the selection table: Raven's header exactly, one row per measurement, read back column by column")
    func table() throws {
        let samples = Calls.adding(Calls.noise(seconds: 1), frequency: 4000, start: 0.25, length: 0.5, amplitude: 0.5)
        let m = try Calls.measure(samples, begin: 12)
        let rows = [
            MeasuredSelection(
                number: 1, recording: Recording(id: "254462", fileName: "XC254462-wren.mp3", audio: .restricted),
                measurement: m),
            MeasuredSelection(
                number: 2, recording: Recording(id: "5168", fileName: "a\tb.mp3", audio: .restricted), measurement: m),
        ]
        let lines = RavenSelectionTable.text(rows).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines.last == "")
        #expect(
            lines[0]
                == "Selection\tView\tChannel\tBegin Time (s)\tEnd Time (s)\tLow Freq (Hz)\tHigh Freq (Hz)\tPeak Freq (Hz)\tPeak Time (s)\tCenter Freq (Hz)\tFreq 5% (Hz)\tFreq 25% (Hz)\tFreq 75% (Hz)\tFreq 95% (Hz)\tBW 90% (Hz)\tBW 50% (Hz)\tTime 5% (s)\tTime 95% (s)\tDur 90% (s)\tAvg Entropy (bits)\tPFC Avg Slope (Hz/ms)\tPFC Num Inf Pts\tBegin File\tXC"
        )
        let header = lines[0].split(separator: "\t").map(String.init)
        for line in lines[1...2] {
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            #expect(cells.count == header.count)
            let row = Dictionary(uniqueKeysWithValues: zip(header, cells))
            #expect(row["View"] == "Spectrogram 1" && row["Channel"] == "1")
            #expect(Double(row["Begin Time (s)"]!)! == 12)
            #expect(abs(Double(row["Peak Freq (Hz)"]!)! - m.peakFrequency) < 0.05)
            #expect(abs(Double(row["Dur 90% (s)"]!)! - m.duration90) < 1e-6)
            #expect(Int(row["PFC Num Inf Pts"]!)! == m.contourInflections)
        }
        #expect(lines[2].hasSuffix("\ta b.mp3\tXC5168"), "a tab from the API does not split a row")
    }

    @Test("a whole row of songs in loud noise is measured in the band of its songs, not across the noise to Nyquist")
    func wholeRowBand() throws {
        // Ten 0.3 s sweeps from 3 to 6 kHz over 10 s of noise that holds most of the energy, spread over every
        // frequency, as a distant bird in wind and traffic.
        var samples = Calls.noise(seconds: 10).map { $0 * 300 }
        for song in 0..<10 {
            samples = Calls.adding(
                samples, frequency: 3000, to: 6000, start: Double(song) + 0.2, length: 0.3, amplitude: 0.05)
        }
        let everything = try Calls.measure(samples)
        #expect(everything.bandwidth90 > 15_000, "across 0-22 kHz the noise fills the band: \(everything.bandwidth90)")

        let plan = MeasurementAnalysis.plan(sampleRate: Calls.rate)
        let band = try #require(
            SignalBand.find(
                in: samples, sampleRate: Calls.rate, within: .birds, transform: try RealFFT(size: plan.size),
                hop: plan.hop))
        #expect(band.low >= 2_500 && band.low <= 3_000, "\(band)")
        let high = try #require(band.high)
        #expect(high >= 6_000 && high <= 6_500, "\(band)")
        let songs = try Calls.measure(samples, band: band)
        #expect(songs.bandwidth90 < 3_500 && songs.frequency5 >= 2_900, "\(songs.frequency5)-\(songs.frequency95)")
    }

    @Test("steady noise alone holds no band to measure")
    func noBandInNoise() throws {
        let plan = MeasurementAnalysis.plan(sampleRate: Calls.rate)
        let band = SignalBand.find(
            in: Calls.noise(seconds: 3), sampleRate: Calls.rate, within: .birds,
            transform: try RealFFT(size: plan.size), hop: plan.hop)
        #expect(band == nil)
    }
}

/// A 16-bit PCM WAV file of `samples` (mono values, copied to every channel).
private enum WAVFixture {
    static func write(_ samples: [Float], rate: Int, channels: Int, to path: String) throws {
        func le(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        var data: [UInt8] = []
        data.reserveCapacity(samples.count * 2 * channels)
        for sample in samples {
            let value = Int(Int16(max(-32768, min(32767, (sample * 32767).rounded()))))
            for _ in 0..<channels { data += le(value & 0xFFFF, 2) }
        }
        let format =
            le(1, 2) + le(channels, 2) + le(rate, 4) + le(rate * channels * 2, 4) + le(channels * 2, 2) + le(16, 2)
        let body =
            Array("WAVE".utf8) + Array("fmt ".utf8) + le(16, 4) + format + Array("data".utf8) + le(data.count, 4) + data
        try Data(Array("RIFF".utf8) + le(body.count, 4) + body).write(to: URL(fileURLWithPath: path))
    }
}
