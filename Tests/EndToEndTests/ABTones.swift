import ChirperTestSupport
import Foundation

// The A/B scenarios' recordings, and what the sink's monitor heard of them.

/// The tones' sample rate, and the null sink's: nothing is resampled, so the monitor carries the samples played.
let toneRate = 44100
/// Each side's recording: a 0.5 s tone (1 kHz for row 1, 2 kHz for row 2).
let toneSeconds = 0.5

/// A loopback xeno-canto with two rows whose audio is a tone each, as WAV (so that every sample is known). Row 2
/// has `secondChannels` channels (the same tone in each): with 2, the sides differ in format, so each side
/// needs a stream of its own on the sound server.
func twoTones(_ request: LoopbackRequest, base: String, secondChannels: Int = 1) -> LoopbackResponse {
    if request.path == "/api/3/recordings" {
        let records = [(1, "One Kilohertz"), (2, "Two Kilohertz")].map { id, name in
            """
            {"id": "\(id)", "gen": "Tonus", "sp": "purus", "en": "\(name)", "rec": "Rec \(id)", "cnt": "Spain",
             "type": "song", "q": "A", "length": "0:01", "file": "\(base)/tones/\(id).wav",
             "url": "//xeno-canto.org/\(id)", "lic": "//creativecommons.org/licenses/by/4.0/"}
            """
        }
        return .json(
            #"{"numRecordings": "2", "numSpecies": "2", "page": 1, "numPages": 1, "recordings": [\#(records.joined(separator: ","))]}"#
        )
    }
    if request.path == "/tones/1.wav" { return .file(toneWAV(1000), contentType: "audio/wav", for: request) }
    if request.path == "/tones/2.wav" {
        return .file(toneWAV(2000, channels: secondChannels), contentType: "audio/wav", for: request)
    }
    return .text("not found", status: 404)
}

/// A tone at half scale, `toneSeconds` long.
func toneSamples(_ frequency: Double) -> [Int16] {
    (0..<Int(toneSeconds * Double(toneRate))).map {
        Int16(16000 * sin(2 * Double.pi * frequency * Double($0) / Double(toneRate)))
    }
}

/// The tone as a 16-bit WAV, the same samples in each of `channels`.
func toneWAV(_ frequency: Double, channels: Int = 1) -> [UInt8] {
    var data: [UInt8] = []
    for value in toneSamples(frequency) {
        for _ in 0..<channels { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
    }
    func le32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(v).littleEndian) { Array($0) } }
    func le16(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt16(v).littleEndian) { Array($0) } }
    let frame = 2 * channels
    let format = le16(1) + le16(channels) + le32(toneRate) + le32(toneRate * frame) + le16(frame) + le16(16)
    return Array("RIFF".utf8) + le32(36 + data.count) + Array("WAVE".utf8) + Array("fmt ".utf8) + le32(16) + format
        + Array("data".utf8) + le32(data.count) + data
}

/// A stretch of sound at the sink: where it starts and ends (samples) and its pitch.
struct Heard: CustomStringConvertible {
    var start: Int
    var end: Int
    var frequency: Double
    var seconds: Double { Double(end - start) / Double(toneRate) }
    var description: String {
        String(format: "%.0f Hz at %.3f s for %.3f s", frequency, Double(start) / Double(toneRate), seconds)
    }
}

/// Splits the monitor's samples into stretches of sound (1 ms windows above the silence threshold, joined
/// over gaps shorter than 20 ms), each with its pitch from zero crossings.
func stretches(_ samples: [Int16]) -> [Heard] {
    let window = toneRate / 1000
    var found: [Heard] = []
    var current: (start: Int, end: Int)?
    for begin in stride(from: 0, to: samples.count - window, by: window) {
        let loud = samples[begin..<begin + window].contains { abs(Int($0)) > 2000 }
        if loud {
            if let open = current, begin - open.end < toneRate / 50 {
                current = (open.start, begin + window)
            } else {
                if let open = current { found.append(heard(samples, open.start, open.end)) }
                current = (begin, begin + window)
            }
        }
    }
    if let open = current { found.append(heard(samples, open.start, open.end)) }
    return found
}

private func heard(_ samples: [Int16], _ start: Int, _ roughEnd: Int) -> Heard {
    // The null sink's silence is exact zeros: the stretch ends after its last non-zero sample.
    var end = roughEnd
    while end < samples.count, samples[end] != 0 { end += 1 }
    while end > start, samples[end - 1] == 0 { end -= 1 }
    var crossings = 0
    for i in (start + 1)..<end where (samples[i - 1] < 0) != (samples[i] < 0) { crossings += 1 }
    return Heard(
        start: start, end: end, frequency: Double(crossings) / 2 / (Double(end - start) / Double(toneRate)))
}

/// One side as the sink played it: the stretches of one tone in a row (a machine loaded by other work may
/// leave the sink without audio for a moment inside a side).
struct HeardSide: CustomStringConvertible {
    /// 1000 or 2000 (Hz), or 0 for a pitch that is neither.
    var pitch: Double
    var parts: [Heard]

    /// Where the side's first sample was played. When a stream starts, the null sink rewinds to play it at
    /// once, and its monitor, which had the silence already, misses the tone's first milliseconds; the tail is
    /// there sample for sample. So a side heard in one stretch began `toneSeconds` before its end.
    var start: Int {
        parts.count == 1 ? parts[0].end - Int(toneSeconds * Double(toneRate)) : parts[0].start
    }
    var end: Int { parts[parts.count - 1].end }
    var description: String { parts.map(\.description).joined(separator: " + ") }
}

/// The sides heard: stretches of the same tone in a row are one side.
func sides(_ heard: [Heard]) -> [HeardSide] {
    var found: [HeardSide] = []
    for stretch in heard {
        let pitch = [1000.0, 2000.0].first { abs(stretch.frequency - $0) < 100 } ?? 0
        if let last = found.last, last.pitch == pitch {
            found[found.count - 1].parts.append(stretch)
        } else {
            found.append(HeardSide(pitch: pitch, parts: [stretch]))
        }
    }
    return found
}

/// The silences the sink played between the sides, in seconds.
func silences(between sides: [HeardSide]) -> [Double] {
    zip(sides, sides.dropFirst()).map { Double($1.start - $0.end) / Double(toneRate) }
}
