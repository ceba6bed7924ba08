import COnnxRuntime
import ChirperCore
import FoundationEssentials
import Glibc

/// Rows of float32 values: `rows × columns`, row after row.
public struct FloatRows: Sendable, Hashable {
    public var rows: Int
    public var columns: Int
    public var values: [Float]

    public init(rows: Int, columns: Int, values: [Float]) {
        precondition(values.count == rows * columns, "\(values.count) values are not \(rows) rows of \(columns)")
        self.rows = rows
        self.columns = columns
        self.values = values
    }

    public subscript(row: Int) -> ArraySlice<Float> { values[(row * columns)..<((row + 1) * columns)] }
}

/// A model's input or output: its name and shape (-1 where the model leaves a dimension open, as the batch).
public struct TensorInfo: Sendable, Hashable {
    public var name: String
    public var shape: [Int]
}

/// An ONNX model that maps `[N, K]` float32 rows to `[N, M]`: one input, one output, both float32 of rank 2.
///
/// One owner for one `OrtSession` (and the CPU memory description its inputs are given in), released when the
/// model goes. `run` may be called from several threads at once (ONNX Runtime's sessions allow it).
public final class OnnxModel: @unchecked Sendable {
    public let path: String
    public let input: TensorInfo
    public let output: TensorInfo
    private let runtime: OnnxRuntime
    private let session: OrtHandle
    private let memory: OrtHandle
    private let names: CNames

    /// Opens the model file `path`, its operators to run on `threads` threads.
    public init(runtime: OnnxRuntime, path: String, threads: Int) throws(OnnxRuntimeError) {
        let api = runtime.api.pointee
        let file = TerminalText.sanitize(path)
        let options = try runtime.handle("configure ONNX Runtime", release: api.ReleaseSessionOptions) {
            api.CreateSessionOptions($0)
        }
        try runtime.check(api.SetIntraOpNumThreads(options.pointer, Int32(max(1, threads))), "set the thread count")
        try runtime.check(api.SetInterOpNumThreads(options.pointer, 1), "set the thread count")
        // Its threads sleep between operators instead of spinning: a spinning thread holds a core that the
        // player's decoding, the sound server or anything else running needs, and on a busy machine the wait
        // for that core costs more than the wake-up spinning saves.
        try runtime.check(
            api.AddSessionConfigEntry(options.pointer, "session.intra_op.allow_spinning", "0"),
            "configure ONNX Runtime's threads")
        let damaged = "run `make model` to fetch it again"
        do {
            session = try runtime.handle("open the model \(file)", release: api.ReleaseSession) {
                api.CreateSession(runtime.environment.pointer, path, options.pointer, $0)
            }
        } catch {
            throw OnnxRuntimeError(message: error.message, remedy: damaged)
        }
        memory = try runtime.handle("describe the CPU's memory", release: api.ReleaseMemoryInfo) {
            api.CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, $0)
        }
        self.runtime = runtime
        self.path = path
        let inputs = try Self.tensors(runtime, session, input: true)
        let outputs = try Self.tensors(runtime, session, input: false)
        guard inputs.count == 1, outputs.count == 1, let input = inputs.first, let output = outputs.first,
            input.shape.count == 2, output.shape.count == 2
        else {
            let found = "\(inputs.map(\.description)) → \(outputs.map(\.description))"
            throw OnnxRuntimeError(
                message: "the model \(file) does not map float rows to float rows (it is \(found))", remedy: damaged)
        }
        self.input = input
        self.output = output
        names = CNames(input: input.name, output: output.name)
    }

    /// Runs the model on `rows` (`[N, K]`, K the model's input width); returns its `[N, M]` output.
    public func run(_ rows: FloatRows) throws(OnnxRuntimeError) -> FloatRows {
        let expected = input.shape
        guard (expected[0] < 0 || expected[0] == rows.rows) && (expected[1] < 0 || expected[1] == rows.columns),
            rows.rows > 0
        else {
            throw OnnxRuntimeError(
                message: "the model takes \(TensorInfo.text(expected)) values, not [\(rows.rows), \(rows.columns)]")
        }
        // The tensor borrows this copy's storage, which outlives it: `infer` releases the tensor before it returns.
        let samples = UnsafeMutableBufferPointer<Float>.allocate(capacity: rows.values.count)
        defer { samples.deallocate() }
        _ = samples.initialize(from: rows.values)
        let produced = try infer(samples, rows: rows.rows, columns: rows.columns)
        let api = runtime.api.pointee
        let dimensions = try Self.shape(runtime, produced.pointer)
        guard dimensions.count == 2, dimensions[0] == rows.rows, dimensions[1] >= 0 else {
            throw OnnxRuntimeError(
                message: "the model gave \(TensorInfo.text(dimensions)) values for \(rows.rows) rows")
        }
        var data: UnsafeMutableRawPointer?
        try runtime.check(api.GetTensorMutableData(produced.pointer, &data), "read the model's output")
        let count = dimensions[0] * dimensions[1]
        let floats = data.map {
            Array(UnsafeBufferPointer(start: $0.assumingMemoryBound(to: Float.self), count: count))
        }
        return FloatRows(rows: dimensions[0], columns: dimensions[1], values: floats ?? [])
    }

    private func infer(
        _ samples: UnsafeMutableBufferPointer<Float>, rows: Int, columns: Int
    ) throws(OnnxRuntimeError) -> OrtHandle {
        let api = runtime.api.pointee
        var shape: [Int64] = [Int64(rows), Int64(columns)]
        let tensor = try runtime.handle("pass the samples to the model", release: api.ReleaseValue) {
            api.CreateTensorWithDataAsOrtValue(
                memory.pointer, samples.baseAddress, samples.count * MemoryLayout<Float>.stride, &shape, shape.count,
                ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, $0)
        }
        var inputNames: [UnsafePointer<CChar>?] = [UnsafePointer(names.input)]
        var outputNames: [UnsafePointer<CChar>?] = [UnsafePointer(names.output)]
        var inputs: [OpaquePointer?] = [tensor.pointer]
        return try runtime.handle("run the model", release: api.ReleaseValue) {
            api.Run(session.pointer, nil, &inputNames, &inputs, 1, &outputNames, 1, $0)
        }
    }

    private static func tensors(
        _ runtime: OnnxRuntime, _ session: OrtHandle, input: Bool
    ) throws(OnnxRuntimeError) -> [TensorInfo] {
        let api = runtime.api.pointee
        let side = input ? "input" : "output"
        var count = 0
        try runtime.check(
            input
                ? api.SessionGetInputCount(session.pointer, &count)
                : api.SessionGetOutputCount(session.pointer, &count),
            "count the model's \(side)s")
        var allocator: UnsafeMutablePointer<OrtAllocator>?
        try runtime.check(api.GetAllocatorWithDefaultOptions(&allocator), "find ONNX Runtime's allocator")
        var result: [TensorInfo] = []
        for index in 0..<count {
            var name: UnsafeMutablePointer<CChar>?
            try runtime.check(
                input
                    ? api.SessionGetInputName(session.pointer, index, allocator, &name)
                    : api.SessionGetOutputName(session.pointer, index, allocator, &name),
                "read the model's \(side) names")
            let text = name.map { String(cString: $0) } ?? ""
            try runtime.check(api.AllocatorFree(allocator, name), "free a name")
            let type = try runtime.handle("read the model's \(side) types", release: api.ReleaseTypeInfo) {
                input
                    ? api.SessionGetInputTypeInfo(session.pointer, index, $0)
                    : api.SessionGetOutputTypeInfo(session.pointer, index, $0)
            }
            // Borrowed from `type`, not owned.
            var tensor: OpaquePointer?
            try runtime.check(api.CastTypeInfoToTensorInfo(type.pointer, &tensor), "read the model's \(side) types")
            guard let tensor else {
                result.append(TensorInfo(name: text, shape: []))  // not a tensor: refused by the caller
                continue
            }
            var element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED
            try runtime.check(api.GetTensorElementType(tensor, &element), "read the model's \(side) types")
            let shape = try dimensions(runtime, tensor)
            result.append(TensorInfo(name: text, shape: element == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT ? shape : []))
        }
        return result
    }

    private static func shape(_ runtime: OnnxRuntime, _ value: OpaquePointer) throws(OnnxRuntimeError) -> [Int] {
        let api = runtime.api.pointee
        let info = try runtime.handle("read the output's shape", release: api.ReleaseTensorTypeAndShapeInfo) {
            api.GetTensorTypeAndShape(value, $0)
        }
        return try dimensions(runtime, info.pointer)
    }

    private static func dimensions(_ runtime: OnnxRuntime, _ info: OpaquePointer) throws(OnnxRuntimeError) -> [Int] {
        let api = runtime.api.pointee
        var rank = 0
        try runtime.check(api.GetDimensionsCount(info, &rank), "read a shape")
        var dimensions = [Int64](repeating: 0, count: rank)
        try runtime.check(api.GetDimensions(info, &dimensions, rank), "read a shape")
        return dimensions.map { Int($0) }
    }
}

extension TensorInfo: CustomStringConvertible {
    public var description: String { "\(name) \(Self.text(shape))" }

    /// `[N, 4]`: N where the model leaves the dimension open.
    static func text(_ shape: [Int]) -> String {
        "[" + shape.map { $0 < 0 ? "N" : String($0) }.joined(separator: ", ") + "]"
    }
}

/// The one owner of the input's and output's names as C strings, which every run passes.
private final class CNames {
    let input: UnsafeMutablePointer<CChar>
    let output: UnsafeMutablePointer<CChar>

    init(input: String, output: String) {
        self.input = strdup(input)
        self.output = strdup(output)
    }

    deinit {
        free(input)
        free(output)
    }
}
