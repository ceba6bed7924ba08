import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// An MP3's length is read from its first frame, as a listing reads it, and checked against what mpg123 decodes
/// (gapless, as chirper-play plays it).
@Suite(
    "An MP3's length from its header",
    .enabled(if: MP3Tools.available, MP3Tools.missing))
struct MP3LengthTests {
    /// `lame` options, and whether the length is counted (a tag) or the bytes over the bitrate.
    static let encodings: [(name: String, lame: [String], counted: Bool)] = [
        ("cbr-info", ["-b", "128"], true),
        ("vbr-xing", ["-V", "4"], true),
        ("mpeg2-22k-mono", ["-b", "64", "--resample", "22.05", "-m", "m"], true),
        // At 32 kbps a frame is too small for lame's tag: it writes none.
        ("mpeg2-22k-mono-no-room", ["-b", "32", "--resample", "22.05", "-m", "m"], false),
        ("cbr-id3v1", ["-b", "128", "-t", "--id3v1-only", "--tt", "Wren"], false),
        ("cbr-no-tag", ["-b", "128", "-t"], false),
        ("mpeg1-layer3-stereo-no-tag", ["-b", "192", "-t", "-m", "j"], false),
    ]

    @Test(
        "a tagged MP3 is as long as mpg123 decodes it, to the sample; an untagged CBR one to within a frame, and says so",
        arguments: encodings.map(\.name))
    func lengthAgreesWithTheDecoder(name: String) async throws {
        let encoding = try #require(Self.encodings.first { $0.name == name })
        let folder = try SoxFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let wav = try await SoxFiles.make("tone.wav", in: folder, ["-r", "44100", "-c", "2"], seconds: "7.3")
        let mp3 = folder + "/\(name).mp3"
        let encoded = try await Tool.run(MP3Tools.lame!, ["--quiet"] + encoding.lame + [wav, mp3])
        #expect(encoded.status == 0)

        let (step, bytesRead) = try SoxFiles.readFromDisk(mp3)
        let header = try SoxFiles.header(step)
        let decoded = try await MP3Tools.decodedSamples(mp3)
        let frames = try #require(header.frames, "no length for \(name)")
        #expect(header.sampleRate == decoded.rate)
        if encoding.counted {
            #expect(frames == decoded.samples, "\(name): \(frames) against mpg123's \(decoded.samples)")
            #expect(!header.lengthFromBitrate)
        } else {
            #expect(abs(frames - decoded.samples) <= 1152 * 2, "\(name): \(frames) against \(decoded.samples)")
            #expect(header.lengthFromBitrate)
        }
        #expect(bytesRead <= 8192, "the length is read from the first frame, not the file")
    }

    @Test(
        "the archive's real recordings are as long as mpg123 decodes them: to the sample where tagged, within two frames where not",
        .enabled(
            if: !MP3Tools.realRecordings.isEmpty, "skipped: ../shared/xeno-canto/audio/ (real recordings) is absent"))
    func realRecordings() async throws {
        for path in MP3Tools.realRecordings {
            let header = try SoxFiles.header(try SoxFiles.readFromDisk(path).step)
            let decoded = try await MP3Tools.decodedSamples(path)
            let frames = try #require(header.frames, "no length for \(path)")
            // XC5168 has no tag that counts its frames, and ends in an APEv2 tag of 556 bytes, five frames' worth.
            let within: Int64 = header.lengthFromBitrate ? 1152 * 2 : 0
            #expect(abs(frames - decoded.samples) <= within, "\(path): \(frames) against \(decoded.samples)")
        }
    }
}

/// lame and mpg123, which make the MP3s and say how long they decode.
enum MP3Tools {
    static let lame = PulseHarness.executable(named: "lame")
    static let mpg123 = PulseHarness.executable(named: "mpg123")
    static let available = SoxFiles.available && lame != nil && mpg123 != nil
    static let missing: Comment = "skipped: sox, lame and mpg123 (which make and decode the MP3s) are not installed"
    /// The MP3s of `../shared/xeno-canto/audio/`; none where the folder is absent.
    static let realRecordings: [String] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../shared/xeno-canto/audio").standardized.path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".mp3") }.sorted().map { folder + "/" + $0 }
    }()

    /// The sample frames and rate of mpg123's decoding of `path`, gapless (its default).
    static func decodedSamples(_ path: String) async throws -> (samples: Int64, rate: Int) {
        let wav = path + ".decoded.wav"
        defer { try? FileManager.default.removeItem(atPath: wav) }
        _ = try await Tool.run(mpg123!, ["-q", "-w", wav, path])
        let samples = Int64(try await SoxFiles.soxi("-s", wav)) ?? -1
        let rate = Int(try await SoxFiles.soxi("-r", wav)) ?? -1
        return (samples, rate)
    }
}
