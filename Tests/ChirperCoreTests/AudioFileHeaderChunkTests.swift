import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// A WAV's pieces, to put back together with chunks of the test's own.
struct WAVParts {
    var format: [UInt8]
    var samples: [UInt8]

    /// The `fmt ` chunk (whole) and the `data` body of a WAV sox wrote (fmt first, data last).
    init(_ file: [UInt8]) throws {
        var at = 12
        var format: [UInt8]? = nil
        var samples: [UInt8]? = nil
        while at + 8 <= file.count {
            let id = String(decoding: file[at..<at + 4], as: UTF8.self)
            let size = Int(file[at + 4]) | Int(file[at + 5]) << 8 | Int(file[at + 6]) << 16 | Int(file[at + 7]) << 24
            if id == "fmt " { format = Array(file[at..<at + 8 + size]) }
            if id == "data" { samples = Array(file[(at + 8)...]) }
            at += 8 + size + size % 2
        }
        self.format = try #require(format)
        self.samples = try #require(samples)
    }

    static func chunk(_ id: String, _ body: [UInt8], size: Int? = nil) -> [UInt8] {
        let stated = size ?? body.count
        return Array(id.utf8) + (0..<4).map { UInt8(truncatingIfNeeded: stated >> (8 * $0)) } + body
            + (body.count % 2 == 1 ? [0] : [])
    }

    static func riff(_ chunks: [UInt8], type: String = "RIFF") -> [UInt8] {
        let size = chunks.count + 4
        return Array(type.utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + Array("WAVE".utf8)
            + chunks
    }

    static func info(_ entries: [(String, String)]) -> [UInt8] {
        chunk("LIST", Array("INFO".utf8) + entries.flatMap { chunk($0.0, Array($0.1.utf8) + [0]) })
    }
}

@Suite("Audio file headers: chunks the tests write, and bad input", .enabled(if: SoxFiles.available, SoxFiles.missing))
struct AudioFileHeaderChunkTests {
    static let guano = """
        GUANO|Version: 1.0
        Timestamp: 2025-06-12T05:30:00+02:00
        Loc Position: 52.3702 4.8952
        Make: Wildlife Acoustics
        Model: Song Meter Mini Bat
        Species Manual ID: Pippip
        WA|Song Meter|Prefix: SMM12345
        """

    /// A stereo 16-bit WAV of `seconds` at 48 kHz, in parts.
    static func parts(seconds: String = "0.5") async throws -> WAVParts {
        let folder = try SoxFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try await SoxFiles.make(
            "out.wav", in: folder, ["-r", "48000", "-c", "2", "-b", "16"], seconds: seconds)
        return try WAVParts(SoxFiles.bytes(path))
    }

    @Test("INFO before the audio and GUANO after it are read; odd and unknown chunks are jumped over")
    func infoAndGuano() async throws {
        let wav = try await Self.parts()
        let file = WAVParts.riff(
            WAVParts.chunk("junk", [1, 2, 3]) + wav.format
                + WAVParts.info([
                    ("ICMT", "Dawn chorus at the lake"), ("IART", "AudioMoth 24F319"), ("INAM", "Wren"),
                    ("ICRD", "2025-06-12"),
                ])
                + WAVParts.chunk("data", wav.samples) + WAVParts.chunk("guan", Array(Self.guano.utf8)))
        let header = try SoxFiles.header(AudioFileHeaderReader.read(file))
        #expect(header.frames == 24000)
        #expect(header.metadata.comment == "Dawn chorus at the lake")
        #expect(header.metadata.artist == "AudioMoth 24F319")
        #expect(header.metadata.title == "Wren")
        #expect(header.metadata.creationDate == "2025-06-12")
        let guano = try #require(header.metadata.guano)
        #expect(guano.timestamp?.description == "2025-06-12 05:30:00 UTC+02:00")
        #expect(guano.position?.latitude == 52.3702)
        #expect(guano.speciesManualID == "Pippip")
        #expect(guano["WA|Song Meter|Prefix"] == "SMM12345")
        #expect(header.metadata.device == "Wildlife Acoustics Song Meter Mini Bat")
        #expect(header.recordedTime(fileName: "SMM12345_20250101_000000.wav") == guano.timestamp)
        let plain = try SoxFiles.header(
            AudioFileHeaderReader.read(WAVParts.riff(wav.format + WAVParts.chunk("data", wav.samples))))
        #expect(plain.recordedTime(fileName: "SMM12345_20250101_000000.wav")?.description == "2025-01-01 00:00:00")
        #expect(header.metadata.lines.contains(FileMetadata.Line(label: "comment", value: "Dawn chorus at the lake")))
        #expect(
            header.metadata.lines.contains(FileMetadata.Line(label: "recorded", value: "2025-06-12 05:30:00 UTC+02:00"))
        )
    }

    @Test("a GUANO chunk after an hour of audio is reached by jumping: the reader asks for the chunk, not the audio")
    func guanoAfterLongAudio() async throws {
        let wav = try await Self.parts()
        let audioSize = 48000 * 4 * 3600
        let head = WAVParts.riff(wav.format + WAVParts.chunk("data", [], size: audioSize))
        let guan = WAVParts.chunk("guan", Array(Self.guano.utf8))
        var reader = AudioFileHeaderReader(fileSize: Int64(head.count + audioSize + guan.count))
        #expect(reader.step == .need(offset: 0, count: 36))
        let afterAudio = Int64(head.count + audioSize)
        let first = reader.feed(head, at: 0)
        #expect(first == .need(offset: afterAudio, count: 8))
        let second = reader.feed(Array(guan.prefix(8)), at: afterAudio)
        #expect(second == .need(offset: afterAudio + 8, count: Self.guano.utf8.count))
        let header = try SoxFiles.header(reader.feed(guan, at: afterAudio))
        #expect(header.duration == 3600)
        #expect(header.metadata.guano?.make == "Wildlife Acoustics")
    }

    @Test("bytes that do not hold the range asked for are ignored")
    func wrongBytesIgnored() async throws {
        let wav = try await Self.parts()
        let file = WAVParts.riff(wav.format + WAVParts.chunk("data", wav.samples))
        var reader = AudioFileHeaderReader(fileSize: Int64(file.count))
        let late = reader.feed(Array(file[1..<100]), at: 1)
        #expect(late == .need(offset: 0, count: 36))
        let short = reader.feed(Array(file[0..<20]), at: 0)
        #expect(short == .need(offset: 0, count: 36))
        #expect(try SoxFiles.header(reader.feed(file, at: 0)).frames == 12000 * 2)
    }

    @Test("a WAV cut short plays what it holds, flagged as truncated")
    func truncated() async throws {
        let wav = try await Self.parts()
        let whole = WAVParts.riff(wav.format + WAVParts.chunk("data", wav.samples))
        let cut = Array(whole.prefix(whole.count / 2 + 1))
        let header = try SoxFiles.header(AudioFileHeaderReader.read(cut))
        #expect(header.isTruncated)
        #expect(header.audio.declared == .truncated(declared: Int64(wav.samples.count)))
        #expect(header.audio.length == Int64(cut.count) - header.audio.offset)
        #expect(header.frames == header.audio.length / 4)
    }

    @Test("a data size larger than the file, or 0, or 0xFFFFFFFF: the length is what the file holds")
    func dataSizes() async throws {
        let wav = try await Self.parts()
        for (size, declared) in [
            (0x7FFF_FFF0, AudioFileHeader.DataLength.truncated(declared: 0x7FFF_FFF0)), (0, .unstated),
            (0xFFFF_FFFF, .unstated),
        ] {
            let file = WAVParts.riff(wav.format + WAVParts.chunk("data", wav.samples, size: size))
            let header = try SoxFiles.header(AudioFileHeaderReader.read(file))
            #expect(header.audio.declared == declared)
            #expect(header.frames == 24000)
            #expect(header.duration == 0.5)
        }
    }

    @Test("an RF64 file's data size comes from its ds64 chunk")
    func rf64() async throws {
        let wav = try await Self.parts()
        let ds64 = WAVParts.chunk(
            "ds64",
            [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: wav.samples.count >> (8 * $0)) }
                + [UInt8](repeating: 0, count: 12))
        let file = WAVParts.riff(
            ds64 + wav.format + WAVParts.chunk("data", wav.samples, size: 0xFFFF_FFFF), type: "RF64")
        let header = try SoxFiles.header(AudioFileHeaderReader.read(file))
        #expect(header.audio.declared == .whole)
        #expect(header.frames == 24000)
    }

    @Test("metadata with terminal escapes is shown without them, each value on one line")
    func sanitised() async throws {
        let wav = try await Self.parts()
        let file = WAVParts.riff(
            wav.format + WAVParts.info([("ICMT", "Wren\u{1B}]0;pwned\u{07}\u{1B}[2J\nsecond line")])
                + WAVParts.chunk("data", wav.samples)
                + WAVParts.chunk("guan", Array("Make: Evil\u{1B}[31mCorp\nNote: a\\nb\u{9B}2J".utf8)))
        let header = try SoxFiles.header(AudioFileHeaderReader.read(file))
        let lines = header.metadata.lines
        #expect(lines.contains(FileMetadata.Line(label: "comment", value: "Wren second line")))
        #expect(lines.contains(FileMetadata.Line(label: "Make", value: "EvilCorp")))
        #expect(lines.contains(FileMetadata.Line(label: "Note", value: "a b")))
        #expect(
            lines.allSatisfy {
                !$0.value.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
            })
        #expect(header.metadata.comment?.contains("\u{1B}") == true)  // the raw text stays as the file has it
    }

    @Test("garbage, an empty file, text and broken headers each get one line")
    func garbage() async throws {
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let cases: [([UInt8], AudioFileProblem.Reason)] = [
            ([], .damaged("the file is empty")),
            (Array("Dawn chorus notes\n".utf8), .unrecognised("text")),
            ([0, 1, 2, 3, 4, 5, 6, 7, 8], .unrecognised("bytes 00 01 02 03 04 05 06 07")),
            (WAVParts.riff(WAVParts.chunk("data", [1, 2, 3, 4])), .damaged("the WAV file has no fmt chunk")),
            (WAVParts.riff(WAVParts.chunk("fmt ", [1, 0])), .damaged("its fmt chunk is too short (2 bytes)")),
            (Array("fLaC".utf8) + [0x81, 0, 0, 4, 0, 0, 0, 0], .damaged("the FLAC file has no STREAMINFO block")),
            (
                Array("fLaC".utf8) + [0x00, 0, 0, 34] + [UInt8](repeating: 0, count: 10),
                .damaged("the file ends inside its FLAC metadata")
            ),
        ]
        for (bytes, reason) in cases {
            #expect(try SoxFiles.problem(AudioFileHeaderReader.read(bytes)).reason == reason)
        }
        let wav = try await Self.parts()
        #expect(
            try SoxFiles.problem(AudioFileHeaderReader.read(WAVParts.riff(wav.format))).userMessage
                == "the WAV file has no data chunk: the file is damaged or cut short")
        for _ in 0..<200 {
            let start = Int.random(in: 0..<noise.count, using: &generator)
            switch AudioFileHeaderReader.read(Array(noise[start...])) {
            case .header(let header): #expect(header.format == .mp3)  // noise may open with a frame sync
            case .problem(let problem): #expect(!problem.userMessage.isEmpty)
            case .need: Issue.record("a file held whole needs nothing more")
            }
        }
    }
}
