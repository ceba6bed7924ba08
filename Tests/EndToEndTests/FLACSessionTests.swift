import ChirperTestSupport
import Foundation
import Testing

/// A FLAC in an offline catalog, played by the chirper-play binary in a pipe, as a user plays one.
@Suite(
    "A FLAC played by the binary",
    .enabled(
        if: PulseHarness.executable(named: "sox") != nil && PulseHarness.executable(named: "flac") != nil,
        "skipped: sox and flac are not installed"))
struct FLACSessionTests {
    /// A folder with a catalog of one recording, `audio/own.flac`: 2 s of a 24-bit stereo sweep.
    static func catalog() async throws -> (folder: URL, flac: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-flac-\(UUID())")
        let audio = folder.appendingPathComponent("audio")
        try FileManager.default.createDirectory(at: audio, withIntermediateDirectories: true)
        let wav = audio.appendingPathComponent("own.wav").path
        let flac = audio.appendingPathComponent("own.flac").path
        let sox = try #require(PulseHarness.executable(named: "sox"))
        let encoder = try #require(PulseHarness.executable(named: "flac"))
        _ = try await Tool.run(
            sox, ["-n", "-r", "44100", "-c", "2", "-b", "24", wav, "synth", "2", "sine", "300-3000", "sine", "800"])
        _ = try await Tool.run(encoder, ["-s", "-f", "-o", flac, wav])
        try FileManager.default.removeItem(atPath: wav)
        let demo = try Data(contentsOf: ChirperBinary.packageRoot.appendingPathComponent("assets/demo/catalog.json"))
        var catalog = try #require(try JSONSerialization.jsonObject(with: demo) as? [String: Any])
        var first = try #require((catalog["recordings"] as? [[String: Any]])?.first)
        first["id"] = "OWN-1"
        first["file"] = "audio/own.flac"
        first["file-name"] = "own.flac"
        first["length"] = "0:02"
        catalog["recordings"] = [first]
        catalog["numRecordings"] = "1"
        catalog["numSpecies"] = "1"
        let data = try JSONSerialization.data(withJSONObject: catalog)
        try data.write(to: folder.appendingPathComponent("catalog.json"))
        return (folder, flac)
    }

    /// 16-bit samples of a WAV file as `sox -D … -b 16` writes them.
    static func samples(_ path: String) async throws -> [Int16] {
        let sox = try #require(PulseHarness.executable(named: "sox"))
        let raw = path + ".raw"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        _ = try await Tool.run(sox, ["-D", path, "-t", "raw", "-e", "signed-integer", "-b", "16", raw])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { bytes in
            (0..<bytes.count / 2).map {
                Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))
            }
        }
    }

    @Test("a FLAC in the catalog plays to its end, the samples flac -d writes; without libFLAC, one line says why")
    func playsAndSaysWhenLibFLACIsMissing() async throws {
        let (folder, flac) = try await Self.catalog()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.wav").path
        let run = try await runChirper(
            ["--catalog", folder.path, "--output", "wav:\(out)", "--no-mpris"],
            input: ["search en:trill", "play 1", "wait"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.lines("playback: failed").isEmpty, "\(run.stdout)")
        let decoded = folder.appendingPathComponent("flac-d.wav").path
        let encoder = try #require(PulseHarness.executable(named: "flac"))
        _ = try await Tool.run(encoder, ["-d", "-s", "-f", "-o", decoded, flac])
        let reference = try await Self.samples(decoded)
        let played = try await Self.samples(out)
        #expect(reference.count == 2 * 2 * 44100)
        #expect(played == reference)

        let missing = try await runChirper(
            ["--catalog", folder.path, "--output", "null", "--no-mpris"],
            input: ["search en:trill", "play 1", "wait", "list"],
            environment: ["CHIRPER_LIBFLAC": "/nonexistent/libFLAC.so.12"])
        #expect(missing.status == 0)
        let failed = missing.lines("playback: failed OWN-1")
        #expect(failed.count == 1, "\(missing.stdout)")
        #expect(failed.first?.contains("cannot play FLAC: cannot load libFLAC (/nonexistent/libFLAC.so.12") == true)
        #expect(failed.first?.hasSuffix("; install libflac12\"") == true, "\(failed)")
        #expect(missing.lines("list: populated rows=1").count == 2, "the list is still there for `list`")
    }

    @Test("a FLAC of one's own with a damaged frame plays to its end and says once, in its playback line, where")
    func damagedFrameIsSaidOnce() async throws {
        let (folder, flac) = try await Self.catalog()
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: flac)))
        for index in (bytes.count / 2)..<(bytes.count / 2 + 24) { bytes[index] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: flac))
        let run = try await runChirper(["--output", "null", "--no-mpris", flac], input: ["play 1", "wait"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let damaged = run.lines("playback: playing own.flac").filter { $0.contains(" damaged_frames=") }
        #expect(damaged.count == 1, "\(run.stdout)")
        let from = damaged.first?.split(separator: " ").first { $0.hasPrefix("damaged_from=") }
        let seconds = from.flatMap { Double($0.dropFirst("damaged_from=".count)) }
        #expect(seconds.map { (0.5...1.5).contains($0) } == true, "\(damaged)")
        #expect(run.lines("playback: failed").isEmpty, "\(run.stdout)")
        #expect(run.lines("playback: idle").count == 1, "\(run.stdout)")
    }

    @Test(
        "a damaged FLAC fetched over HTTP and the same file on disk write the same samples: the damaged frames silent in their place, every other frame the file's"
    )
    func damagedFLACOverHTTP() async throws {
        let (folder, flac) = try await Self.catalog()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clean = folder.appendingPathComponent("clean.wav").path
        let encoder = try #require(PulseHarness.executable(named: "flac"))
        _ = try await Tool.run(encoder, ["-d", "-s", "-f", "-o", clean, flac])
        let reference = try await Self.samples(clean)
        // 24 bytes in the middle of the file: one or two of its 22 frames of 4096.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: flac)))
        for index in (bytes.count / 2)..<(bytes.count / 2 + 24) { bytes[index] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: flac))
        let damaged = bytes
        let base = ServerBase()
        let server = try await LoopbackServer.start { request in
            if request.path == "/api/3/recordings" {
                return .json(
                    #"{"numRecordings": "1", "numSpecies": "1", "page": 1, "numPages": 1, "recordings": [{"id": "7", "gen": "Tonus", "sp": "fractus", "en": "Broken Sweep", "rec": "Rec", "cnt": "Spain", "type": "song", "q": "A", "length": "0:02", "file": "\#(base.value)/own.flac", "url": "//xeno-canto.org/7", "lic": "//creativecommons.org/licenses/by/4.0/"}]}"#
                )
            }
            // Pieces of 1,000 bytes: unlike the pieces a file is read in.
            return .file(damaged, contentType: "audio/flac", for: request, chunkSize: 1000)
        }
        base.value = server.baseURL
        defer { Task { await server.shutdown() } }
        var written: [[Int16]] = []
        for (name, arguments, input) in [
            ("network", ["--api-url", server.baseURL + "/api/3/recordings"], ["search tonus", "play 1", "wait"]),
            ("disk", [flac], ["play 1", "wait"]),
        ] {
            let out = folder.appendingPathComponent("\(name).wav").path
            let run = try await runChirper(
                ["--output", "wav:\(out)", "--no-mpris"] + arguments, input: input,
                environment: ["XENO_CANTO_API_KEY": "flac-test-KEY-3c1"])
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.lines("playback: failed").isEmpty, "\(name): \(run.stdout)")
            #expect(run.stdout.contains(" damaged_frames="), "\(name): \(run.stdout)")
            written.append(try await Self.samples(out))
        }
        #expect(written[0] == written[1], "the network and the disk decode otherwise")
        let played = written[0]
        try #require(played.count == reference.count, "the frames keep their time")
        let block = 4096 * 2
        let lost = stride(from: 0, to: reference.count, by: block).filter { start in
            played[start..<min(reference.count, start + block)]
                != reference[start..<min(reference.count, start + block)]
        }
        #expect((1...2).contains(lost.count), "frames lost at samples \(lost)")
        for start in lost {
            #expect(played[start..<min(played.count, start + block)].allSatisfy { $0 == 0 })
        }
    }

    @Test(
        "seek 1:30 in a 2-minute FLAC of one's own: what is written from there is flac -d's decode from 1:30 to the end"
    )
    func seekInOwnFLAC() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-flac-seek-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = folder.appendingPathComponent("field.wav").path
        let flac = folder.appendingPathComponent("20250612_053000.flac").path
        let sox = try #require(PulseHarness.executable(named: "sox"))
        let encoder = try #require(PulseHarness.executable(named: "flac"))
        _ = try await Tool.run(
            sox, ["-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "120", "sine", "200-4000"])
        _ = try await Tool.run(encoder, ["-s", "-f", "-o", flac, wav])
        let reference = try await Self.samples(wav)
        let out = folder.appendingPathComponent("out.wav").path
        let run = try await runChirper(
            ["--output", "wav:\(out)", "--no-mpris", flac], input: ["play 1", "seek 1:30", "wait"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.lines("playback: failed").isEmpty, "\(run.stdout)")
        let written = try await Self.samples(out)
        let tail = Array(reference[(90 * 48000)...])
        #expect(written.count >= tail.count, "\(written.count) samples written")
        #expect(Array(written.suffix(tail.count)) == tail, "the part after the seek is not the file's from 1:30")
    }
}
