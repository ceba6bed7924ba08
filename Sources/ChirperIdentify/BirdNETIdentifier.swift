import ChirperAudio
import ChirperCore
import ChirperSystem
import FoundationEssentials

/// `identify`'s classifier: BirdNET 2.4 (CC BY-NC-SA 4.0), converted to ONNX by `make model` and run on the CPU
/// through ONNX Runtime. A stretch of a recording is decoded piece by piece, resampled to 48 kHz, cut into 3 s
/// segments as BirdNET-Analyzer cuts them, and run one at a time, so a long recording is heard in bounded memory.
///
/// The model is loaded (and its file checked against what `make model` recorded) by the first `identify`, and
/// kept for the session.
public final class BirdNETIdentifier: SpeciesIdentifying {
    public static let modelName = "BirdNET 2.4"
    static let modelFile = "BirdNET_GLOBAL_6K_V2.4.onnx"
    static let labelsFile = "BirdNET_GLOBAL_6K_V2.4_Labels.txt"
    static let sourcesFile = "SOURCES.json"
    /// Segments run at once. One: ONNX Runtime already spreads a segment's operators over every core, and each
    /// more segment in a run holds its own intermediate tensors, so a batch costs memory and gains no time.
    static let batch = 1

    /// What `make model` is told, and the licence, for the line that says the model is missing.
    public static func missing(in directory: String) -> String {
        "no BirdNET model in \(directory): run `make model` to fetch and convert it (BirdNET 2.4 by the Cornell Lab "
            + "and TU Chemnitz, CC BY-NC-SA 4.0: non-commercial use only)"
    }

    private let directory: String
    private let libraryPath: String
    private let reader: MonoAudioReader
    private let threads: Int
    /// The model and its labels once loaded, or why they could not be.
    private let loaded = LoadOnce<Loaded>()
    /// The location/week meta-model once loaded (by the first `identify` of a recording with a place), or why not.
    private let meta = LoadOnce<OnnxModel>()

    struct Loaded: @unchecked Sendable {
        let runtime: OnnxRuntime
        let model: OnnxModel
        let labels: [Species]

        /// The species heard in `segment` from its `logits`: above `minimum`, the most confident first.
        func detections(logits: ArraySlice<Float>, segment: BirdNETSegment, minimum: Double) -> [Detection] {
            BirdNET.detections(logits: logits, segment: segment, minimum: minimum).map {
                Detection(species: labels[$0.label], confidence: $0.confidence)
            }
        }
    }

    public init(modelDirectory: String, libraryPath: String, reader: MonoAudioReader, threads: Int) {
        self.directory = modelDirectory
        self.libraryPath = libraryPath
        self.reader = reader
        self.threads = max(1, threads)
    }

    /// `$XDG_DATA_HOME/chirper-play/models/birdnet-2.4`, where `make model` writes.
    public static func defaultDirectory(environment: [String: String]) -> String {
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? PathText.homeDirectory) + "/.local/share"
        return data + "/chirper-play/models/birdnet-2.4"
    }

    public func identify(_ item: PlayItem, span: TimeSpan?, options: IdentifyOptions, place: RecordingPlace?)
        async throws -> Identification
    {
        let loaded = try await load()
        // Before the audio: a species list that cannot be used is said at once, not after an hour's recording.
        let placeCheck = try await self.placeCheck(at: place, options: options, loaded: loaded)
        let offset = span?.start ?? 0
        var cutter = SegmentCutter(overlap: options.overlap)
        var resampler: Resampler?
        var segments: [SegmentDetections] = []
        var waiting: [SegmentCutter.Cut] = []
        func run() throws {
            try Task.checkCancellation()
            guard !waiting.isEmpty else { return }
            let rows = FloatRows(
                rows: waiting.count, columns: BirdNET.segmentLength, values: waiting.flatMap(\.samples))
            let logits = try loaded.model.run(rows)
            for (row, cut) in waiting.enumerated() {
                segments.append(
                    SegmentDetections(
                        start: offset + cut.segment.startSeconds, end: offset + cut.segment.endSeconds,
                        detections: loaded.detections(
                            logits: logits[row], segment: cut.segment, minimum: options.minConfidence)))
            }
            waiting = []
        }
        func take(_ samples: [Float]) throws {
            waiting += cutter.push(samples)
            if waiting.count >= Self.batch { try run() }
        }
        try await reader.read(item, span: span) { piece, rate in
            if resampler == nil { resampler = try Resampler(inputRate: rate) }
            try take(try resampler?.process(piece) ?? [])
        }
        try take(try resampler?.flush() ?? [])
        waiting += cutter.finish()
        try run()
        guard !segments.isEmpty else {
            throw IdentifyUnavailable(
                reason:
                    "\(TerminalText.sanitize(item.label)): nothing to identify: BirdNET needs at least 1.5 s of audio")
        }
        return Identification(model: Self.modelName, segments: segments, placeCheck: placeCheck)
    }

    /// What judges the species heard: the species list the user gave, else the meta-model at `place`, else
    /// nothing. A meta-model that cannot be run is said beside the species, not instead of them.
    func placeCheck(at place: RecordingPlace?, options: IdentifyOptions, loaded: Loaded) async throws
        -> PlaceCheck
    {
        if let path = options.speciesList {
            guard let size = FileIO.size(atPath: path) else {
                throw SpeciesListError(path: path, line: nil, problem: "there is no such file", isAboutTheText: false)
            }
            // A list of every one of BirdNET's classes is a small fraction of this.
            guard size <= 1 << 20 else {
                throw SpeciesListError(
                    path: path, line: nil, problem: "it is over 1 MiB, too big for a species list",
                    isAboutTheText: false)
            }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw SpeciesListError(path: path, line: nil, problem: "it cannot be read as UTF-8 text")
            }
            let list = try BirdNET.speciesList(text, path: path, classes: loaded.labels)
            return .judged(
                ExpectedSpecies(source: .list(path: path, unknown: list.unknown), scientificNames: list.names))
        }
        guard let place else { return .noPlace }
        do {
            let model = try await metaModel(loaded)
            return .judged(try BirdNETMetaModel.expected(model, at: place, labels: loaded.labels))
        } catch {
            return .unavailable(userMessage(for: error))
        }
    }

    /// The meta-model, loaded and checked once; the same answer (or the same reason) after.
    private func metaModel(_ loaded: Loaded) async throws -> OnnxModel {
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        return try await meta.value {
            do {
                return .success(
                    try await BirdNETMetaModel.open(
                        runtime: loaded.runtime, folder: folder, classes: loaded.labels.count))
            } catch {
                return .failure(IdentifyUnavailable(reason: userMessage(for: error)))
            }
        }
    }

    /// The model and labels, loaded and checked once (by whichever asks first, the others waiting for it); the
    /// same answer (or the same reason) after.
    func load() async throws -> Loaded {
        try await loaded.value {
            do {
                return .success(try await open())
            } catch let error as IdentifyUnavailable {
                return .failure(error)
            } catch {
                return .failure(IdentifyUnavailable(reason: userMessage(for: error)))
            }
        }
    }

    private func open() async throws -> Loaded {
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        let modelPath = folder + Self.modelFile
        guard FileIO.size(atPath: modelPath) != nil else {
            throw IdentifyUnavailable(reason: Self.missing(in: directory))
        }
        let expected = try ModelFileCheck.expected(Self.modelFile, sources: folder + Self.sourcesFile)
        // The file is read by the check and by ONNX Runtime at once, so the check adds no time of its own; a
        // damaged file is said as damaged, whatever ONNX Runtime made of it.
        async let digest = ModelFileCheck.digest(ofFile: modelPath)
        guard let text = try? String(contentsOfFile: folder + Self.labelsFile, encoding: .utf8) else {
            throw IdentifyUnavailable(reason: "cannot read BirdNET's labels in \(directory): run `make model` again")
        }
        let labels = try BirdNET.labels(text)
        let opened = Result { () throws(OnnxRuntimeError) -> (OnnxRuntime, OnnxModel) in
            let runtime = try OnnxRuntime(libraryPath: libraryPath)
            return (runtime, try OnnxModel(runtime: runtime, path: modelPath, threads: threads))
        }
        try ModelFileCheck.check(modelPath, digest: await digest, expected: expected)
        let (runtime, model) = try opened.get()
        guard model.input.shape.last == BirdNET.segmentLength, model.output.shape.last == labels.count else {
            throw IdentifyUnavailable(
                reason: "the BirdNET model in \(directory) does not take 3 s at 48 kHz to \(labels.count) species; "
                    + "run `make model` to fetch it again")
        }
        return Loaded(runtime: runtime, model: model, labels: labels)
    }
}
