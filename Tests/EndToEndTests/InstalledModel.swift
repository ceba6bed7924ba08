import ChirperTestSupport
import Foundation
import Testing

/// Where `make model` put BirdNET, and where `make ort` put ONNX Runtime, in the environment the tests run in
/// (each run of chirper-play gets its own data folder, so it is told both).
enum Installed {
    static let data: String = {
        let env = ProcessInfo.processInfo.environment
        if let data = env["XDG_DATA_HOME"], data.hasPrefix("/") { return data }
        return (env["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    }()
    static let model = data + "/chirper-play/models/birdnet-2.4"
    static let runtime = data + "/chirper-play/onnxruntime/1.32.0/libonnxruntime.so.1.32.0"
    static var present: Bool {
        FileManager.default.fileExists(atPath: model + "/BirdNET_GLOBAL_6K_V2.4.onnx")
            && FileManager.default.fileExists(atPath: runtime)
    }
    static let absent: Comment = "skipped: BirdNET's model or ONNX Runtime is absent (make model; make test runs it)"
    static let environment = ["CHIRPER_LIBONNXRUNTIME": runtime]
    /// BirdNET's own runtime, where `make model-reference` sets it up (make test does).
    static let reference: Bool = {
        let env = ProcessInfo.processInfo.environment
        let cache = env["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory() + "/.cache"
        return FileManager.default.fileExists(atPath: cache + "/chirper-play/model-tools/reference/venv/bin/python")
    }()
    static let noReference: Comment =
        "skipped: BirdNET's own runtime is absent (make model-reference; make test runs it)"
}

/// The real model's scenarios use every core: `make test` runs them on their own, after the other suites
/// (`CHIRPER_MODEL_TESTS=1`).
let modelScenariosOnTheirOwn = ProcessInfo.processInfo.environment["CHIRPER_MODEL_TESTS"] == "1"

/// XC34430, the Dunnock: the real recording the model's scenarios identify.
let dunnockRecording =
    ChirperBinary.packageRoot.path + "/../shared/xeno-canto/audio/XC34430-dunnock-44k-mono-cbr128.mp3"
let noDunnockRecording: Comment =
    "skipped: ../shared/xeno-canto/audio/XC34430-dunnock-44k-mono-cbr128.mp3 is absent"
