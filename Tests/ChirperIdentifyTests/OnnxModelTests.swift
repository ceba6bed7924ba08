import ChirperIdentify
import Foundation
import Glibc
import Testing

/// The package root, where `make tiny-onnx` writes the tiny model (`.build-onnx/`).
private let packageRoot = String(
    #filePath.prefix(upTo: #filePath.range(of: "/Tests/ChirperIdentifyTests/")!.lowerBound))
private let tinyModel = packageRoot + "/.build-onnx/tiny-matmul.onnx"
/// The library `make ort` fetched, where the program looks for it by default.
private let library = OnnxRuntime.defaultLibraryPath()

private func exists(_ path: String) -> Bool { access(path, R_OK) == 0 }

/// Why the runtime tests cannot run here, or nil when they can.
private let missing: String? = {
    if !exists(library) {
        return "skipped: no ONNX Runtime at \(library); `make ort` (which `make test` runs) fetches it"
    }
    if !exists(tinyModel) { return "skipped: no \(tinyModel); `make tiny-onnx` (which `make test` runs) makes it" }
    return nil
}()

@Suite("ONNX Runtime: a model file run on float rows")
struct OnnxModelTests {
    @Test(
        "the tiny model multiplies [N, 4] rows by its 4×3 matrix, exactly",
        .enabled(if: missing == nil, "\(missing ?? "")"))
    func tinyModelRuns() throws {
        let model = try OnnxModel(runtime: OnnxRuntime(libraryPath: library), path: tinyModel, threads: 1)
        #expect(model.input.name == "x")
        #expect(model.input.shape == [-1, 4])
        #expect(model.output.name == "y")
        #expect(model.output.shape == [-1, 3])
        let rows = FloatRows(rows: 2, columns: 4, values: [1, 0, 0, 0, 0.5, 1, -1, 2])
        let output = try model.run(rows)
        #expect(output == FloatRows(rows: 2, columns: 3, values: [1, 2, 3, 17.5, 20, 22.5]))
    }

    @Test(
        "runtimes started and let go on several threads at once all start (one model loaded as another is dropped)",
        .enabled(if: missing == nil, "\(missing ?? "")"))
    func runtimesAcrossThreads() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 1...4 {
                group.addTask {
                    for _ in 1...300 { _ = try OnnxRuntime(libraryPath: library) }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("one model serves several threads at once, each run with its own rows", .enabled(if: missing == nil))
    func concurrentRuns() async throws {
        let model = try OnnxModel(runtime: OnnxRuntime(libraryPath: library), path: tinyModel, threads: 2)
        let results = try await withThrowingTaskGroup(of: (Float, FloatRows).self) { group in
            for scale in 1...8 {
                group.addTask {
                    let value = Float(scale)
                    return (value, try model.run(FloatRows(rows: 1, columns: 4, values: [value, 0, 0, value])))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        for (scale, output) in results {
            #expect(output.values == [11 * scale, 13 * scale, 15 * scale])
        }
        #expect(results.count == 8)
    }

    @Test(
        "rows of the wrong width are refused in one line naming the shape the model takes", .enabled(if: missing == nil)
    )
    func wrongShape() throws {
        let model = try OnnxModel(runtime: OnnxRuntime(libraryPath: library), path: tinyModel, threads: 1)
        #expect(throws: OnnxRuntimeError(message: "the model takes [N, 4] values, not [1, 5]")) {
            try model.run(FloatRows(rows: 1, columns: 5, values: [1, 2, 3, 4, 5]))
        }
    }

    @Test(
        "a file that is not an ONNX model is refused in one line saying to fetch the model again",
        .enabled(if: missing == nil))
    func garbageModel() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-garbage-\(UUID()).onnx").path
        try Data("this is not a protobuf\u{1B}[31m".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let runtime = try OnnxRuntime(libraryPath: library)
        let error = #expect(throws: OnnxRuntimeError.self) { try OnnxModel(runtime: runtime, path: path, threads: 1) }
        let line = error?.userMessage ?? ""
        #expect(line.hasPrefix("cannot open the model \(path): "), "\(line)")
        #expect(line.hasSuffix("; run `make model` to fetch it again"), "\(line)")
        #expect(!line.contains("\n") && !line.contains("\u{1B}"), "\(line)")
    }

    @Test("a missing model file is refused in one line, not a crash", .enabled(if: missing == nil))
    func missingModel() throws {
        let runtime = try OnnxRuntime(libraryPath: library)
        let error = #expect(throws: OnnxRuntimeError.self) {
            try OnnxModel(runtime: runtime, path: "/nonexistent/birdnet.onnx", threads: 1)
        }
        #expect(error?.userMessage.hasPrefix("cannot open the model /nonexistent/birdnet.onnx: ") == true)
    }

    @Test("without the library, one line says why and what to run")
    func missingLibrary() {
        #expect(
            throws: OnnxRuntimeError(
                message:
                    "cannot load ONNX Runtime (/nonexistent/libonnxruntime.so.1: cannot open shared object file: No such file or directory)",
                remedy: "run `make model`, which fetches it")
        ) {
            try OnnxRuntime(libraryPath: "/nonexistent/libonnxruntime.so.1")
        }
    }

    @Test(
        "a library that is not ONNX Runtime is refused for lacking OrtGetApiBase",
        .enabled(if: exists("/lib/x86_64-linux-gnu/libm.so.6")))
    func notOnnxRuntime() {
        let error = #expect(throws: OnnxRuntimeError.self) {
            try OnnxRuntime(libraryPath: "/lib/x86_64-linux-gnu/libm.so.6")
        }
        #expect(error?.message == "cannot load ONNX Runtime (/lib/x86_64-linux-gnu/libm.so.6 has no OrtGetApiBase)")
    }

    @Test("the library is looked for where make ort puts it, unless CHIRPER_LIBONNXRUNTIME names another file")
    func libraryPath() {
        #expect(
            OnnxRuntime.defaultLibraryPath(environment: ["HOME": "/home/ann"])
                == "/home/ann/.local/share/chirper-play/onnxruntime/1.32.0/libonnxruntime.so.1.32.0")
        #expect(
            OnnxRuntime.defaultLibraryPath(environment: ["HOME": "/home/ann", "XDG_DATA_HOME": "/data"])
                == "/data/chirper-play/onnxruntime/1.32.0/libonnxruntime.so.1.32.0")
        #expect(
            OnnxRuntime.defaultLibraryPath(environment: ["HOME": "/home/ann", "XDG_DATA_HOME": "relative"])
                == "/home/ann/.local/share/chirper-play/onnxruntime/1.32.0/libonnxruntime.so.1.32.0")
        #expect(
            OnnxRuntime.defaultLibraryPath(environment: ["HOME": "/h", "CHIRPER_LIBONNXRUNTIME": "/opt/ort/lib.so"])
                == "/opt/ort/lib.so")
    }
}
