import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// Fixtures for the sonogram: generated with sox (and lame for MP3) into a temporary folder at run time.
private enum SonoFixtures {
    static let hasTools = PulseHarness.executable(named: "sox") != nil && PulseHarness.executable(named: "lame") != nil
    static let noTools: Comment = "skipped: sox and lame (to generate the sonogram fixtures) are not installed"

    /// Runs a shell pipeline; throws if it fails.
    static func shell(_ command: String) async throws {
        guard try await Tool.shell(command).status == 0 else { throw TestFailure("failed: \(command)") }
    }

    /// Writes `effects` (sox synth arguments) at `rate` as 16-bit mono WAV, or as MP3 through lame; the path.
    static func make(_ effects: String, rate: Int, mp3: Bool, in directory: String) async throws -> String {
        let wav = directory + "/fixture-\(rate).wav"
        // No dither (-D): silence is exact zeros, tones are clean.
        try await shell("sox -q -D -r \(rate) -c 1 -n -b 16 \(wav) \(effects)")
        guard mp3 else { return wav }
        let path = directory + "/fixture-\(rate).mp3"
        // No lowpass: lame's default for low bit rates would cut the 8 kHz step.
        try await shell("lame --quiet -b 64 --lowpass -1 \(wav) \(path)")
        return path
    }

    static func sonogram(path: String, columns: Int = 48, rows: Int = 24, label: String = "T") async throws -> Sonogram
    {
        let reader = SonogramReader(sources: ByteSources { _ in FileByteSource(path: path) })
        let item = PlayItem(label: label, location: .local(path: path))
        return try await reader.sonogram(of: item, shape: SonogramShape(columns: columns, rows: rows))
    }

    /// Whether column `column` lies wholly inside one segment of `length` seconds, `margin` seconds clear of
    /// each boundary (the window and the MP3 codec's delay smear a boundary over a few milliseconds).
    static func segment(of column: Int, in sonogram: Sonogram, length: Double, margin: Double) -> Int? {
        let perColumn = sonogram.duration / Double(sonogram.columns)
        let start = Double(column) * perColumn - margin
        let end = Double(column + 1) * perColumn + margin
        let segment = Int(max(0, start) / length)
        return Int(min(end, sonogram.duration - 1e-9) / length) == segment && start >= 0 ? segment : nil
    }
}

@Suite("Sonogram", .heavyWork, .enabled(if: SonoFixtures.hasTools, SonoFixtures.noTools))
struct SonogramTests {
    static let rates = [8000, 11_025, 22_050, 44_100, 48_000]

    @Test(
        "Stepped tones 1, 2, 4, 8 kHz: every column's brightest row is the tone's, within one row",
        arguments: rates, [false, true])
    func steppedTones(rate: Int, mp3: Bool) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Tones above 90 % of Nyquist are left out (8 kHz at 11.025 kHz).
        let tones = [1000.0, 2000, 4000, 8000].filter { $0 < 0.45 * Double(rate) }
        let effects = tones.map { "synth 0.5 sine \(Int($0)) vol 0.5" }.joined(separator: " : ")
        let path = try await SonoFixtures.make(effects, rate: rate, mp3: mp3, in: directory)
        let sonogram = try await SonoFixtures.sonogram(path: path)

        #expect(abs(sonogram.duration - 0.5 * Double(tones.count)) < 0.1)
        #expect(sonogram.maxFrequency == Double(rate) / 2)
        let margin = Double(sonogram.fftSize) / Double(rate) / 2 + 0.03
        var checked = 0
        for column in 0..<sonogram.columns {
            guard let step = SonoFixtures.segment(of: column, in: sonogram, length: 0.5, margin: margin),
                step < tones.count
            else { continue }
            let expected = sonogram.row(forFrequency: tones[step])
            let brightest = sonogram.brightestRow(column: column)
            #expect(
                abs(brightest - expected) <= 1,
                "column \(column): row \(brightest), \(tones[step]) Hz is row \(expected)")
            checked += 1
        }
        #expect(checked >= sonogram.columns / 2)
    }

    @Test(
        "A rising chirp: every column's brightest row follows the sweep, within one row", arguments: rates,
        [false, true])
    func chirp(rate: Int, mp3: Bool) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let low = 300.0
        let high = (0.4 * Double(rate)).rounded()
        let seconds = 2.0
        let path = try await SonoFixtures.make(
            "synth \(seconds) sine \(Int(low)):\(Int(high)) vol 0.5", rate: rate, mp3: mp3, in: directory)
        let sonogram = try await SonoFixtures.sonogram(path: path)

        let perColumn = sonogram.duration / Double(sonogram.columns)
        let halfWindow = Double(sonogram.fftSize) / Double(rate) / 2 + (mp3 ? 0.03 : 0)
        func frequency(at time: Double) -> Double { low + (high - low) * min(1, max(0, time / seconds)) }
        for column in 1..<(sonogram.columns - 1) {
            let lowest = sonogram.row(forFrequency: frequency(at: Double(column) * perColumn - halfWindow))
            let highest = sonogram.row(forFrequency: frequency(at: Double(column + 1) * perColumn + halfWindow))
            let brightest = sonogram.brightestRow(column: column)
            #expect(
                brightest >= lowest - 1 && brightest <= highest + 1,
                "column \(column): row \(brightest), expected \(lowest)…\(highest)")
        }
    }

    @Test("A 192 kHz WAV with a 40 kHz tone: the 40 kHz row is the brightest of every column")
    func batRate() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try await SonoFixtures.make("synth 1 sine 40000 vol 0.5", rate: 192_000, mp3: false, in: directory)
        let sonogram = try await SonoFixtures.sonogram(path: path)

        #expect(sonogram.maxFrequency == 96_000)
        let expected = sonogram.row(forFrequency: 40_000)
        for column in 0..<sonogram.columns {
            #expect(abs(sonogram.brightestRow(column: column) - expected) <= 1, "column \(column)")
        }
    }

    @Test("A zoomed window shows only the tones inside it, each at its row within one pixel, at pixel resolution")
    func zoomedWindow() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 0.5 s each: 1, 3, 5, 7, 10, 4 kHz at 44.1 kHz.
        let tones: [Double] = [1000, 3000, 5000, 7000, 10_000, 4000]
        let effects = "synth " + tones.map { "0.5 sine \(Int($0))" }.joined(separator: " : synth ") + " vol 0.5"
        let path = try await SonoFixtures.make(effects, rate: 44_100, mp3: true, in: directory)
        let reader = SonogramReader(sources: ByteSources { _ in FileByteSource(path: path) })
        let item = PlayItem(label: "T", location: .local(path: path))
        // 1.0-2.0 s holds the 5 and 7 kHz tones; the band 2-9 kHz leaves out 1 and 10 kHz anyway.
        let shape = SonogramShape(
            columns: 400, rows: 280, maxFrequency: 9000, minFrequency: 2000, window: TimeSpan(start: 1.0, end: 2.0))
        let sonogram = try await reader.sonogram(of: item, shape: shape)
        #expect(sonogram.startTime == 1.0)
        #expect(abs(sonogram.duration - 1.0) < 0.01)
        #expect(sonogram.columns == 400 && sonogram.rows == 280)
        #expect(sonogram.fftSize == 512 && sonogram.hop == 128 && sonogram.dftSize == 2048)
        let perColumn = sonogram.duration / Double(sonogram.columns)
        let margin = Double(sonogram.fftSize) / 44_100 / 2 + 0.03
        var checked = 0
        for column in 0..<sonogram.columns {
            let time = 1.0 + (Double(column) + 0.5) * perColumn
            let inFirst = time > 1.0 + margin && time < 1.5 - margin
            let inSecond = time > 1.5 + margin && time < 2.0 - margin
            guard inFirst || inSecond else { continue }
            let expected = sonogram.row(forFrequency: inFirst ? 5000 : 7000)
            #expect(abs(sonogram.brightestRow(column: column) - expected) <= 1, "column \(column)")
            checked += 1
        }
        #expect(checked > 250)
        // And read back from the PNG drawn of it: the same rows.
        let image = SonogramRaster.image(sonogram)
        for column in stride(from: 40, to: 360, by: 20) where column < 170 || column > 230 {
            var darkest = (grey: 256, row: -1)
            for row in 0..<sonogram.rows {
                let grey = Int(
                    image.grey(x: SonogramRaster.left + column, y: SonogramRaster.top + sonogram.rows - 1 - row))
                if grey < darkest.grey { darkest = (grey, row) }
            }
            #expect(abs(darkest.row - sonogram.brightestRow(column: column)) <= 1)
        }
    }

    @Test("Contrast from the recording itself: over a quiet noise floor the background is light, the call dark")
    func autoContrast() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Pink noise (−26 dB) with a 3 kHz call in the middle second.
        try await SonoFixtures.shell(
            "sox -q -r 22050 -c 1 -n -b 16 \(directory)/noise.wav synth 3 pinknoise vol 0.05")
        try await SonoFixtures.shell(
            "sox -q -r 22050 -c 1 -n -b 16 \(directory)/call.wav synth 1 sine 3000 vol 0.5 pad 1 1")
        try await SonoFixtures.shell(
            "sox -q -m \(directory)/noise.wav \(directory)/call.wav \(directory)/mix.wav")
        let auto = try await SonoFixtures.sonogram(path: directory + "/mix.wav", columns: 60, rows: 40)
        let sorted = auto.levels.sorted()
        #expect(sorted[sorted.count / 2] <= 0.2, "median level \(sorted[sorted.count / 2])")
        let callRow = auto.row(forFrequency: 3000)
        #expect(auto.level(row: callRow, column: 30) >= 0.9)
        // The fixed range draws the same noise darker: the reason for auto.
        let reader = SonogramReader(sources: ByteSources { _ in FileByteSource(path: directory + "/mix.wav") })
        let fixed = try await reader.sonogram(
            of: PlayItem(label: "T", location: .local(path: directory + "/mix.wav")),
            shape: SonogramShape(columns: 60, rows: 40, contrast: .fixedDefault))
        #expect(fixed.levels.sorted()[fixed.levels.count / 2] > sorted[sorted.count / 2])
    }

    @Test("A window past the end, or a band above Nyquist, is one line")
    func outsideTheRecording() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try await SonoFixtures.make("synth 2 sine 1000", rate: 8000, mp3: false, in: directory)
        let reader = SonogramReader(sources: ByteSources { _ in FileByteSource(path: path) })
        let item = PlayItem(label: "XC1", location: .local(path: path))
        await #expect {
            try await reader.sonogram(
                of: item, shape: SonogramShape(columns: 10, rows: 4, window: TimeSpan(start: 5, end: 6)))
        } throws: { error in
            (error as? SonogramError)?.userMessage
                == "sono: cannot draw XC1: the window starts at 0:05.0, after the recording ends (0:02.0); ask for an earlier one"
        }
        await #expect {
            try await reader.sonogram(
                of: item, shape: SonogramShape(columns: 10, rows: 4, maxFrequency: 9000, minFrequency: 5000))
        } throws: { error in
            (error as? SonogramError)?.userMessage.contains("the recording goes up to 4.0 kHz") == true
        }
    }

    @Test("Silence draws the floor: every level is 0 and the pipe lines are blank")
    func silence() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try await SonoFixtures.make("trim 0 1", rate: 22_050, mp3: false, in: directory)
        let sonogram = try await SonoFixtures.sonogram(path: path, columns: 20, rows: 8)

        #expect(sonogram.levels.allSatisfy { $0 == 0 })
        let lines = SonogramRenderer.scriptLines(sonogram, label: "T")
        #expect(lines.dropFirst().allSatisfy { $0 == "sono: " + String(repeating: " ", count: 20) })
    }

    @Test("A recording that fails mid-decode gives one line naming it and how far it got")
    func failsMidDecode() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try await SonoFixtures.make("synth 2 sine 1000 vol 0.5", rate: 8000, mp3: false, in: directory)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let reader = SonogramReader(sources: ByteSources { _ in DroppingSource(bytes: Array(bytes.prefix(16_044))) })
        let item = PlayItem(label: "XC1", location: .remote("https://example.org/a.wav"))

        await #expect {
            try await reader.sonogram(of: item, shape: SonogramShape(columns: 10, rows: 4))
        } throws: { error in
            let message = (error as? SonogramError)?.userMessage ?? ""
            return message.hasPrefix("sono: XC1 failed after 1.0 s of audio: network error: connection reset")
        }
    }
}

/// Serves `bytes` in one chunk, then fails as a dropped connection does.
private struct DroppingSource: ByteSource {
    let bytes: [UInt8]

    func open(from offset: Int64) async throws -> any ByteReader {
        Reader(bytes: bytes)
    }

    final class Reader: ByteReader {
        var bytes: [UInt8]?
        init(bytes: [UInt8]) { self.bytes = bytes }
        var totalLength: Int64? { nil }
        func read() async throws -> [UInt8]? {
            guard let chunk = bytes else { throw ByteSourceError.network("connection reset") }
            bytes = nil
            return chunk
        }
    }
}

@Suite("Sonogram memory", .heavyWork)
struct SonogramMemoryTests {
    /// One second of a 1 kHz tone at 8 kHz, stereo, fed over and over.
    static let second: [Int16] = (0..<8000).flatMap { frame -> [Int16] in
        let value = Int16((sin(2 * .pi * 1000 * Double(frame) / 8000) * 8000).rounded())
        return [value, value]
    }

    @Test(
        "30 minutes fed in chunks: storage stays twice the picture's size, columns never exceed the width",
        arguments: [Double?.none, 60, 1800])
    func thirtyMinutes(expected: Double?) throws {
        let shape = SonogramShape(columns: 64, rows: 16)
        let accumulator = SonogramAccumulator(
            shape: shape, sampleRate: 8000, expectedDuration: expected, transform: try RealFFT(size: 512))
        accumulator.feed(Self.second, channels: 2)
        let storage = accumulator.storageCount
        for _ in 1..<1800 { accumulator.feed(Self.second, channels: 2) }

        #expect(accumulator.storageCount == storage)
        // The cells twice (their power, and their dB kept for the next picture), and a few windows.
        #expect(storage <= 2 * 64 * 16 + 5 * 512)
        let picture = accumulator.picture()
        #expect(picture.duration == 1800)
        // An unknown or wrong length ends with columns merged pairwise: between half and all of the width.
        #expect(picture.columns <= 64 && picture.columns > 32)
        #expect(
            (0..<picture.columns).allSatisfy { picture.brightestRow(column: $0) == picture.row(forFrequency: 1000) })
    }
}

@Suite("A picture drawn while the audio arrives")
struct GrowingPictureTests {
    /// A second of a tone gliding up from `from` Hz at 8 kHz, mono, louder each second.
    static func second(_ index: Int, from: Double) -> [Int16] {
        (0..<8000).map { frame in
            let time = Double(frame) / 8000
            let phase = 2 * .pi * (from * time + 200 * time * time)
            return Int16((sin(phase) * Double(1000 + 500 * index)).rounded())
        }
    }

    @Test(
        "a picture drawn after every second, through a jump back and columns merged, is the one drawn once at the end",
        arguments: [Double?.none, 20])
    func drawnAsItGrows(expected: Double?) throws {
        let shape = SonogramShape(columns: 32, rows: 12)
        let growing = SonogramAccumulator(
            shape: shape, sampleRate: 8000, expectedDuration: expected, transform: try RealFFT(size: 256))
        let once = SonogramAccumulator(
            shape: shape, sampleRate: 8000, expectedDuration: expected, transform: try RealFFT(size: 256))
        // Seconds 0-5, a jump back to 2 (a seek), then on to 40: past the expected length, so columns merge.
        let order = Array(0..<6) + Array(2..<40)
        var last = 0
        for (step, index) in order.enumerated() {
            let jump = step > 0 && index != last + 1 ? index * 8000 : nil
            growing.feed(Self.second(index, from: 300 + Double(index * 50)), channels: 1, at: jump)
            once.feed(Self.second(index, from: 300 + Double(index * 50)), channels: 1, at: jump)
            last = index
            _ = growing.picturePlanned()
        }
        #expect(growing.picturePlanned() == once.picturePlanned())
        #expect(growing.picture() == once.picture())
    }
}

/// `CHIRPER_MEASURE=1 swift test --filter SonogramMeasure`: the wall time of `sono` on a 5-minute MP3
/// beside `mpg123 -w` then `sox -n spectrogram` on the same file (printed, never asserted: figures belong in the bench).
@Suite(
    "SonogramMeasure",
    .enabled(
        if: ProcessInfo.processInfo.environment["CHIRPER_MEASURE"] != nil && SonoFixtures.hasTools,
        "skipped: set CHIRPER_MEASURE=1 to measure (needs sox and lame)"))
struct SonogramMeasure {
    @Test("Prints the time to draw a 5-minute 44.1 kHz stereo MP3, and sox's")
    func fiveMinutes() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/long.mp3"
        try await SonoFixtures.shell(
            "sox -q -r 44100 -c 2 -n -b 16 -t wav - synth 300 pinknoise vol 0.3 | lame --quiet -b 128 - \(path)")
        let clock = ContinuousClock()
        let ours = try await clock.measure {
            _ = try await SonoFixtures.sonogram(path: path, columns: 100, rows: 64)
        }
        let sox = try await clock.measure {
            // Debian's sox reads MP3 only with libsox-fmt-mp3; mpg123 decodes for it instead (both decode).
            try await SonoFixtures.shell(
                "mpg123 -q -w \(directory)/long.wav \(path) && sox \(directory)/long.wav -n spectrogram -r -m -l -x 100 -y 65 -o \(directory)/sox.png"
            )
        }
        print("sono 5-minute MP3: chirper-play \(ours), sox spectrogram \(sox)")
    }
}

@Suite(
    "Sonogram of real recordings", .heavyWork, .enabled(if: Fixtures.hasRecordings, Fixtures.noRecordings))
struct SonogramRecordingTests {
    @Test(
        "Every real recording draws: axis to its Nyquist, its length, birds above the floor",
        arguments: Fixtures.mp3Names)
    func draws(_ name: String) async throws {
        let sonogram = try await SonoFixtures.sonogram(path: Fixtures.path(name), columns: 72, rows: 16, label: name)
        let lines = SonogramRenderer.scriptLines(sonogram, label: String(name.prefix(8)))
        if ProcessInfo.processInfo.environment["CHIRPER_SHOW_SONO"] != nil { print(lines.joined(separator: "\n")) }
        #expect(sonogram.maxFrequency == Double(sonogram.sampleRate) / 2)
        #expect(sonogram.columns > 36 && sonogram.columns <= 72)
        #expect(sonogram.duration > 1)
        #expect(sonogram.levels.contains { $0 > 0.3 })
        #expect(lines.count == 17)
    }
}
