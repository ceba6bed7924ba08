import ChirperTestSupport
import Foundation
import Testing

/// Runs chirper-play (argv[1]) with ONNX Runtime argv[2], in argv[3], its caches in argv[4], on the arguments after,
/// `identify 1` and `quit` on its standard input; prints its peak RSS in KiB, or -1 if it did not identify.
private let peakScript = """
    import os, resource, subprocess, sys
    binary, library, root, scratch, *arguments = sys.argv[1:]
    environment = dict(os.environ, CHIRPER_LIBONNXRUNTIME=library, XDG_CACHE_HOME=scratch, XDG_DATA_HOME=scratch)
    run = subprocess.run([binary, *arguments], input=b"identify 1\\nquit\\n", stdout=subprocess.PIPE, cwd=root,
                         env=environment)
    done = run.returncode == 0 and any(line.startswith(b"identify: done ") for line in run.stdout.splitlines())
    print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if done else -1)
    """

/// Runs `tool` on a thread of its own (`Tool`) and returns its standard output, failing the test when it fails.
private func output(_ tool: String, _ arguments: [String]) async throws -> Data {
    let result = try await Tool.run("/usr/bin/env", [tool] + arguments, captureOutput: true)
    guard result.status == 0 else { throw CocoaError(.executableLoad) }
    return result.output
}

@Suite(
    "identify, on the binary by name, with the real BirdNET model", .serialized,
    .enabled(if: modelScenariosOnTheirOwn, "skipped here: make test runs these on their own (CHIRPER_MODEL_TESTS=1)"))
struct IdentifyEndToEndTests {
    @Test(
        "a Dunnock recording of one's own: BirdNET hears the Dunnock, with BirdNET's own runtime's top species on the loud segments",
        .enabled(if: Installed.present, Installed.absent),
        .enabled(if: FileManager.default.fileExists(atPath: dunnockRecording), noDunnockRecording))
    func dunnockAgainstTheReference() async throws {
        let run = try await runChirper(
            ["--output", "null", "--model-dir", Installed.model, dunnockRecording], input: ["identify 1", "quit"],
            environment: Installed.environment, timeout: .seconds(300))
        #expect(run.status == 0, "\(run.stderr)")
        let species = run.lines("identify: species ")
        #expect(species.first?.contains(#"sci="Prunella modularis""#) == true, "\(species)")
        let done = try #require(run.lines("identify: done ").first, "\(run.stdout)")
        #expect(done.contains("segments=23"), "67 s in 3 s segments, the last 1.8 s padded: \(done)")

        // Ours: the most confident species of each segment (lines come most confident first).
        var ours: [String: String] = [:]
        for line in run.lines("identify: XC34430") {
            guard let start = line.split(separator: " ").first(where: { $0.hasPrefix("start=") }),
                let sci = line.firstRange(of: #"sci=""#).map({ line[$0.upperBound...].prefix { $0 != "\"" } })
            else { continue }
            if ours[String(start.dropFirst(6))] == nil { ours[String(start.dropFirst(6))] = String(sci) }
        }
        // BirdNET's own: the TFLite interpreter on the same recording, decoded by mpg123, resampled by sox.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-identify-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await output("mpg123", ["-q", "-w", folder.path + "/d.wav", dunnockRecording])
        _ = try await output(
            "sox", ["-G", folder.path + "/d.wav", "-r", "48000", "-c", "1", "-t", "f32", folder.path + "/d.f32"])
        let json = try await output(
            "python3",
            [
                ChirperBinary.packageRoot.path + "/scripts/model/reference.py", "--model-dir", Installed.model,
                "--runtime", "tflite", "identify", folder.path + "/d.f32", "--top", "1",
            ])
        struct Reference: Decodable {
            struct Segment: Decodable {
                struct Runtime: Decodable {
                    struct Top: Decodable {
                        var sci: String
                        var confidence: Double
                    }
                    var top: [Top]
                }
                var start: Double
                var tflite: Runtime
            }
            var segments: [Segment]
        }
        let reference = try JSONDecoder().decode(Reference.self, from: json)
        #expect(reference.segments.count == 23)
        let loud = reference.segments.compactMap { segment -> (String, String)? in
            guard let top = segment.tflite.top.first, top.confidence >= 0.5 else { return nil }
            return (String(format: "%.1f", segment.start), top.sci)
        }
        let agreeing = loud.filter { ours[$0.0] == $0.1 }
        #expect(loud.count >= 10, "the recording has loud segments: \(loud)")
        #expect(
            Double(agreeing.count) >= 0.95 * Double(loud.count),
            "the same top species on \(agreeing.count) of \(loud.count): ours \(ours), BirdNET's \(loud)")
    }

    @Test(
        "identifying takes no more memory than BirdNET's own runtime takes for the same samples",
        .enabled(if: Installed.present, Installed.absent), .enabled(if: Installed.reference, Installed.noReference))
    func memoryAgainstTheReference() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-identify-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A minute: twenty segments, more than any one run of the model would need to hold at once.
        let wav = folder.path + "/noise.wav"
        let samples = folder.path + "/noise.f32"
        _ = try await output(
            "sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "60", "pinknoise", "vol", "0.5"])
        _ = try await output("sox", [wav, "-t", "f32", samples])
        let script = folder.path + "/peak.py"
        try peakScript.write(toFile: script, atomically: true, encoding: .utf8)
        let ours = try await output(
            "python3",
            [
                script, ChirperBinary.path, Installed.runtime, ChirperBinary.packageRoot.path, folder.path,
                "--output", "null", "--model-dir", Installed.model, wav,
            ])
        let peak = try #require(Int(String(decoding: ours, as: UTF8.self).filter { !$0.isWhitespace }))
        #expect(peak > 0, "chirper-play did not identify the minute of noise")
        // BirdNET's own: the TFLite interpreter on the same samples, which reports its own peak RSS.
        let json = try await output(
            "python3",
            [
                ChirperBinary.packageRoot.path + "/scripts/model/reference.py", "--model-dir", Installed.model,
                "--runtime", "tflite", "identify", samples,
            ])
        struct Reference: Decodable {
            var peak: Int
            enum CodingKeys: String, CodingKey { case peak = "peak_rss_kib" }
        }
        let reference = try JSONDecoder().decode(Reference.self, from: json)
        #expect(
            peak <= reference.peak,
            "chirper-play's peak RSS is \(peak / 1024) MiB, BirdNET's own runtime's \(reference.peak / 1024) MiB")
    }

    @Test(
        "no model, a damaged model, no ONNX Runtime and too short a recording: one line each, and the session goes on",
        .enabled(if: Installed.present, Installed.absent))
    func badInput() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-identify-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // One second of tone: shorter than BirdNET's 1.5 s.
        _ = try await output(
            "sox", ["-n", "-r", "48000", "-c", "1", folder.path + "/short.wav", "synth", "1", "sine", "3000"])
        let missing = try await runChirper(
            ["--output", "null", "--model-dir", folder.path + "/nothing", folder.path + "/short.wav"],
            input: ["identify 1", "info 1", "quit"], environment: Installed.environment)
        let noModel = missing.lines("error: ")
        #expect(noModel.count == 1 && noModel.first?.contains("run `make model`") == true, "\(missing.stdout)")
        #expect(noModel.first?.contains("CC BY-NC-SA 4.0") == true)
        #expect(missing.lines("info: ").first?.contains("short.wav") == true, "the session went on: \(missing.stdout)")

        // A copy of the model with one byte changed, beside the real labels and records.
        let damaged = folder.appendingPathComponent("damaged").path
        try FileManager.default.createDirectory(atPath: damaged, withIntermediateDirectories: true)
        for name in ["BirdNET_GLOBAL_6K_V2.4_Labels.txt", "SOURCES.json", "LICENSE"] {
            try FileManager.default.copyItem(atPath: Installed.model + "/" + name, toPath: damaged + "/" + name)
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Installed.model + "/BirdNET_GLOBAL_6K_V2.4.onnx"))
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: damaged + "/BirdNET_GLOBAL_6K_V2.4.onnx"))
        let broken = try await runChirper(
            ["--output", "null", "--model-dir", damaged, folder.path + "/short.wav"], input: ["identify 1", "quit"],
            environment: Installed.environment, timeout: .seconds(300))
        #expect(broken.lines("error: ").first?.contains("is damaged") == true, "\(broken.stdout)")

        // No ONNX Runtime where the environment says it is.
        let noRuntime = try await runChirper(
            ["--output", "null", "--model-dir", Installed.model, folder.path + "/short.wav"],
            input: ["identify 1", "info 1", "quit"],
            environment: ["CHIRPER_LIBONNXRUNTIME": folder.path + "/nowhere/libonnxruntime.so.1"])
        let unloadable = noRuntime.lines("error: ")
        #expect(unloadable.count == 1, "\(noRuntime.stdout)")
        #expect(unloadable.first?.contains("cannot load ONNX Runtime") == true, "\(unloadable)")
        #expect(unloadable.first?.contains("make model") == true, "\(unloadable)")
        #expect(noRuntime.lines("info: ").first?.contains("short.wav") == true, "the session went on")

        let short = try await runChirper(
            ["--output", "null", "--model-dir", Installed.model, folder.path + "/short.wav"],
            input: ["identify 1", "quit"], environment: Installed.environment, timeout: .seconds(300))
        #expect(
            short.lines("error: ").first?.contains("BirdNET needs at least 1.5 s") == true, "\(short.stdout)")
        #expect(short.status == 0)
    }
}
