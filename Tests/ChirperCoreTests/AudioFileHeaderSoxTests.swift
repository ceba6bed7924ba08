import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// Files made by sox for the header tests, and soxi's answers about them.
enum SoxFiles {
    static let sox = PulseHarness.executable(named: "sox")
    static let soxi = PulseHarness.executable(named: "soxi")
    static let available = sox != nil && soxi != nil
    static let missing: Comment = "skipped: sox and soxi (which make and describe the files) are not installed"

    /// A fresh folder for one test's files, removed by the caller.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "/chirper-header-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `sox -n OPTIONS FOLDER/NAME synth SECONDS sine 1000`; the file's path.
    static func make(_ name: String, in folder: String, _ options: [String], seconds: String = "1") async throws
        -> String
    {
        let path = "\(folder)/\(name)"
        let result = try await Tool.run(sox!, ["-n"] + options + [path, "synth", seconds, "sine", "1000"])
        guard result.status == 0 else { throw SoxFailure(description: "sox \(options) \(name) failed") }
        return path
    }

    /// What `soxi -FLAG` says of a file.
    static func soxi(_ flag: String, _ path: String) async throws -> String {
        let result = try await Tool.run(soxi!, [flag, path], captureOutput: true)
        return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Reads a header from disk as a listing would: only the ranges the reader asks for (each read at least
    /// 4 KiB). Returns the step and the bytes read.
    static func readFromDisk(_ path: String) throws -> (step: AudioFileHeaderReader.Step, bytesRead: Int) {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let size = Int64(try handle.seekToEnd())
        var read = 0
        let step = try AudioFileHeaderReader.read(fileSize: size) { offset, count in
            try handle.seek(toOffset: UInt64(offset))
            let bytes = [UInt8](try handle.read(upToCount: max(count, 4096)) ?? Data())
            read += bytes.count
            return bytes
        }
        return (step, read)
    }

    static func header(_ step: AudioFileHeaderReader.Step) throws -> AudioFileHeader {
        guard case .header(let header) = step else { throw SoxFailure(description: "no header: \(step)") }
        return header
    }

    static func problem(_ step: AudioFileHeaderReader.Step) throws -> AudioFileProblem {
        guard case .problem(let problem) = step else { throw SoxFailure(description: "no problem: \(step)") }
        return problem
    }
}

/// What soxi says of a file: rate, channels, samples per channel, precision, bits per sample, encoding.
struct SoxiAnswers {
    var rate, channels, samples, precision, bits, encoding: String

    init(_ path: String) async throws {
        rate = try await SoxFiles.soxi("-r", path)
        channels = try await SoxFiles.soxi("-c", path)
        samples = try await SoxFiles.soxi("-s", path)
        precision = try await SoxFiles.soxi("-p", path)
        bits = try await SoxFiles.soxi("-b", path)
        encoding = try await SoxFiles.soxi("-e", path)
    }
}

struct SoxFailure: Error, CustomStringConvertible {
    var description: String
}

@Suite(
    "Audio file headers: what sox's files say, as soxi reads them", .enabled(if: SoxFiles.available, SoxFiles.missing))
struct AudioFileHeaderSoxTests {
    @Test(
        "a WAV's rate, channels, samples, precision and encoding are soxi's",
        arguments: [
            ["-r", "48000", "-c", "2", "-b", "24"],
            ["-r", "44100", "-c", "1", "-b", "16"],
            ["-r", "48000", "-c", "1", "-b", "32", "-e", "floating-point"],
            ["-r", "22050", "-c", "2", "-b", "64", "-e", "floating-point"],
            ["-r", "8000", "-c", "1", "-b", "8", "-e", "unsigned-integer"],
            ["-r", "48000", "-c", "6", "-b", "16"],
            ["-r", "96000", "-c", "8", "-b", "24"],
            ["-r", "384000", "-c", "1", "-b", "16"],
            ["-r", "8000", "-c", "1", "-e", "a-law"],
            ["-r", "8000", "-c", "1", "-e", "u-law"],
            ["-r", "48000", "-c", "4", "-b", "32"],
        ])
    func wavAsSoxi(options: [String]) async throws {
        let folder = try SoxFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try await SoxFiles.make("out.wav", in: folder, options, seconds: "0.5")
        let header = try SoxFiles.header(SoxFiles.readFromDisk(path).step)
        let soxi = try await SoxiAnswers(path)
        #expect(header.format == .wav)
        #expect(header.sampleRate.map(String.init) == soxi.rate)
        #expect(header.channels.map(String.init) == soxi.channels)
        #expect(header.frames.map(String.init) == soxi.samples)
        #expect(header.precision.map(String.init) == soxi.precision)
        #expect(header.encoding?.description == "\(soxi.bits)-bit \(soxi.encoding)")
        #expect(header.duration == Double(header.frames ?? 0) / Double(header.sampleRate ?? 1))
        let size = Int64(try SoxFiles.bytes(path).count)
        #expect(header.audio.offset + header.audio.length == size)  // sox writes the data chunk last
        #expect(header.audio.declared == .whole)
        #expect((header.channelMask != nil) == (header.channels! > 2 || options.contains("24")))
    }

    @Test("a FLAC's rate, channels, samples and bits are soxi's; its comment and encoder are read")
    func flacAsSoxi() async throws {
        let folder = try SoxFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for options in [["-r", "48000", "-c", "2", "-b", "24"], ["-r", "44100", "-c", "1", "-b", "16"]] {
            let path = try await SoxFiles.make(
                "out.flac", in: folder, ["--comment", "Dawn chorus, Wren"] + options, seconds: "1.5")
            let header = try SoxFiles.header(SoxFiles.readFromDisk(path).step)
            let soxi = try await SoxiAnswers(path)
            #expect(header.format == .flac)
            #expect(header.sampleRate.map(String.init) == soxi.rate)
            #expect(header.channels.map(String.init) == soxi.channels)
            #expect(header.frames.map(String.init) == soxi.samples)
            #expect(header.precision.map(String.init) == soxi.precision)
            #expect(header.encoding?.description == "\(soxi.precision)-bit \(soxi.encoding)")
            #expect(header.metadata.comment == "Dawn chorus, Wren")
            #expect(header.metadata.vorbisVendor?.hasPrefix("reference libFLAC") == true)
            #expect(!header.hasSeekTable)
            let bytes = try SoxFiles.bytes(path)
            #expect(header.audio.offset + header.audio.length == Int64(bytes.count))
            #expect(bytes[Int(header.audio.offset)] == 0xFF && bytes[Int(header.audio.offset) + 1] & 0xFE == 0xF8)
        }
    }

    @Test("a FLAC's SEEKTABLE is noted, and blocks after it are still read")
    func flacSeekTable() async throws {
        let folder = try SoxFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try SoxFiles.bytes(try await SoxFiles.make("out.flac", in: folder, ["--comment", "Owl"]))
        // After fLaC and STREAMINFO (4 + 4 + 34 bytes): a seek table of two points.
        let table: [UInt8] =
            [0x03, 0x00, 0x00, 36] + [UInt8](repeating: 0, count: 18) + [UInt8](repeating: 0xFF, count: 18)
        let file = Array(bytes[0..<42]) + table + bytes[42...]
        let header = try SoxFiles.header(AudioFileHeaderReader.read(file))
        #expect(header.hasSeekTable)
        #expect(header.metadata.comment == "Owl")
        #expect(header.audio.offset + header.audio.length == Int64(file.count))
    }

    @Test("an MP3 is named MP3 with its first frame's rate, channels and length, behind an ID3 tag or not")
    func mp3() async throws {
        let lame = try #require(PulseHarness.executable(named: "lame"), "lame makes the MP3s")
        let folder = try SoxFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let wav = try await SoxFiles.make("in.wav", in: folder, ["-r", "22050", "-c", "1", "-b", "16"])
        for (name, options) in [("plain.mp3", ["-t"]), ("tagged.mp3", ["--add-id3v2", "--tt", "Wren"])] {
            _ = try await Tool.run(lame, ["--quiet", "-b", "64"] + options + [wav, "\(folder)/\(name)"])
            let bytes = try SoxFiles.bytes("\(folder)/\(name)")
            let header = try SoxFiles.header(AudioFileHeaderReader.read(bytes))
            #expect(header.format == .mp3)
            #expect(header.sampleRate == 22050)
            #expect(header.channels == 1)
            #expect(header.encoding == .mpeg(layer: 3))
            #expect(header.duration.map { abs($0 - 1) < 0.1 } == true, "\(String(describing: header.duration))")
            #expect(bytes[Int(header.audio.offset)] == 0xFF)
            #expect((header.audio.offset > 0) == (name == "tagged.mp3"))
        }
    }

    @Test(
        "another format is named in one line with the ffmpeg command that converts it",
        arguments: [("out.ogg", "Ogg Vorbis"), ("out.aiff", "AIFF"), ("out.au", "Sun/NeXT audio (AU)")])
    func otherFormatsNamed(file: String, name: String) async throws {
        let folder = try SoxFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try await SoxFiles.make(file, in: folder, ["-r", "44100"])
        let problem = try SoxFiles.problem(SoxFiles.readFromDisk(path).step)
        #expect(problem.reason == .otherFormat(name))
        #expect(
            problem.userMessage
                == "\(name), which is not read (WAV, FLAC and MP3 are); convert it: ffmpeg -i IN out.flac")
    }

    @Test("a WAV of 12 channels or of 500 kHz says what is not read and how to convert it")
    func unsupportedWAV() async throws {
        let folder = try SoxFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let twelve = try await SoxFiles.make("twelve.wav", in: folder, ["-r", "48000", "-c", "12", "-b", "16"])
        #expect(
            try SoxFiles.problem(SoxFiles.readFromDisk(twelve).step).userMessage
                == "12 channels are not read (1 to 8 are); convert it: ffmpeg -i IN out.flac")
        let fast = try await SoxFiles.make(
            "fast.wav", in: folder, ["-r", "500000", "-c", "1", "-b", "16"], seconds: "0.1")
        #expect(
            try SoxFiles.problem(SoxFiles.readFromDisk(fast).step).reason
                == .unsupported("a sample rate of 500000 Hz is not read (8 to 384 kHz are)"))
    }
}
