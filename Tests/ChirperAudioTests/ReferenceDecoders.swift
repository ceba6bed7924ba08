import ChirperAudio
import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// Files made by sox and flac in a temporary folder, and those tools' own decodings of them, as 16-bit samples:
/// what chirper-play's decoders are compared with, sample for sample.
enum ReferenceDecoders {
    static let sox = PulseHarness.executable(named: "sox")
    static let flac = PulseHarness.executable(named: "flac")
    static let available = sox != nil && flac != nil
    static let missing: Comment = "skipped: sox and flac (the reference tools) are not installed"

    /// Runs a tool; a failure is the test's.
    static func run(_ tool: String?, _ arguments: [String], allowFailure: Bool = false) async throws {
        guard let tool else { throw TestFailure("a reference tool is missing") }
        let result = try await Tool.run(tool, arguments)
        if !allowFailure && result.status != 0 {
            throw TestFailure("\(tool) \(arguments.joined(separator: " ")) failed (\(result.status))")
        }
    }

    /// Makes a WAV file with sox: `seconds` of a sweep and a tone (each channel its own) in `encoding` (sox's
    /// `-e … -b …` words).
    static func makeWAV(
        _ path: String, rate: Int, channels: Int, encoding: [String], seconds: Double = 1.5, gain: String = "-3"
    ) async throws {
        // Each channel its own: sweeps whose ranges differ, so a channel mixed up shows. Not dithered (`-D`):
        // sox's dither is random, and a file that differs at each run made a scenario that damages its bytes
        // damage a different frame each time.
        let synth = (0..<channels).flatMap { index in
            ["sine", "\(200 + 150 * index)-\(min(rate / 2 - 100, 3000 + 500 * index))"]
        }
        try await run(
            sox,
            ["-D", "-n", "-r", "\(rate)", "-c", "\(channels)"] + encoding
                + [path, "synth", "\(seconds)"] + synth + ["gain", gain])
    }

    /// Encodes a WAV file as FLAC with flac's defaults (a seek point every 10 s).
    static func encodeFLAC(_ wav: String, _ path: String) async throws {
        // sox leaves the channel mask of more than two channels empty, which flac refuses unless told.
        try await run(flac, ["-s", "-f", "--channel-map=none", "-o", path, wav])
    }

    /// `sox -D FILE -t raw -e signed-integer -b 16` (rounded to 16 bits, not dithered), with one channel alone
    /// (`remix k`) when given.
    static func sox16(_ path: String, channel: Int? = nil) async throws -> [Int16] {
        let out = path + ".sox.raw"
        defer { try? FileManager.default.removeItem(atPath: out) }
        try await run(
            sox,
            ["-D", path, "-t", "raw", "-e", "signed-integer", "-b", "16", out]
                + (channel.map { ["remix", "\($0)"] } ?? []))
        return try raw16(out)
    }

    /// `flac -d` (with `-F`, through damage, when `throughErrors`), then to 16-bit by `sox16`.
    static func flac16(_ path: String, channel: Int? = nil, throughErrors: Bool = false) async throws -> [Int16] {
        let wav = path + ".flac.wav"
        defer { try? FileManager.default.removeItem(atPath: wav) }
        try await run(
            flac, ["-d", "-s", "-f"] + (throughErrors ? ["-F"] : []) + ["-o", wav, path], allowFailure: throughErrors)
        return try await sox16(wav, channel: channel)
    }

    /// Where each frame of a FLAC file starts, in bytes, as `flac -a` (its analysis) gives them, and the file's
    /// length after the last.
    static func frameOffsets(_ path: String) async throws -> [Int] {
        let analysis = path + ".ana"
        defer { try? FileManager.default.removeItem(atPath: analysis) }
        try await run(flac, ["-a", "-s", "-f", "-o", analysis, path])
        let text = try String(contentsOfFile: analysis, encoding: .utf8)
        let offsets = text.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("frame="),
                let field = line.split(separator: "\t").first(where: { $0.hasPrefix("offset=") })
            else { return nil }
            return Int(field.dropFirst("offset=".count))
        }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        return offsets + [size]
    }

    static func raw16(_ path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { raw in
            (0..<raw.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Decodes a file's bytes with `StreamDecoder` in pieces of the sizes given (cycled), as the player feeds it.
    static func decode(_ bytes: [UInt8], channel: Int? = nil, pieces: [Int] = [4096, 7, 65536, 1000])
        throws -> (decoded: Decoded, decoder: StreamDecoder)
    {
        let decoder = StreamDecoder(expectedLength: Int64(bytes.count), channel: channel)
        var decoded = Decoded()
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + pieces[index % pieces.count])
            index += 1
            decoded.append(try bytes[offset..<end].withUnsafeBytes { try decoder.feed($0) })
            offset = end
        }
        decoded.append(try decoder.finish())
        return (decoded, decoder)
    }

    /// The first index where two sample arrays differ, for a failure's message.
    static func firstDifference(_ a: [Int16], _ b: [Int16]) -> String {
        guard let index = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) else {
            return a.count == b.count ? "equal" : "lengths \(a.count) and \(b.count)"
        }
        return "first difference at sample \(index): \(a[index]) vs \(b[index]) (lengths \(a.count), \(b.count))"
    }
}
