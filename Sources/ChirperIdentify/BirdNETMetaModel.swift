import ChirperCore
import ChirperSystem
import FoundationEssentials

/// BirdNET's location/week meta-model (converted to ONNX by `make model`, CC BY-NC-SA 4.0 as the classifier):
/// from a latitude, longitude and week, how likely each of the classifier's classes is to occur there then.
/// BirdNET-Analyzer's `--lat --lon --week` keep the species it gives at least `ExpectedSpecies.threshold`;
/// `identify` marks the others instead of dropping them.
enum BirdNETMetaModel {
    static let modelFile = "BirdNET_GLOBAL_6K_V2.4_MData_Model_V2.onnx"

    /// Opens and checks the meta-model in `folder` (ending in `/`) against what `make model` recorded.
    static func open(runtime: OnnxRuntime, folder: String, classes: Int) async throws -> OnnxModel {
        let path = folder + modelFile
        guard FileIO.size(atPath: path) != nil else {
            throw IdentifyUnavailable(
                reason: "BirdNET's location model is not in \(TerminalText.sanitize(folder)): run `make model` again")
        }
        let expected = try ModelFileCheck.expected(modelFile, sources: folder + BirdNETIdentifier.sourcesFile)
        async let digest = ModelFileCheck.digest(ofFile: path)
        let opened = Result { () throws(OnnxRuntimeError) -> OnnxModel in
            try OnnxModel(runtime: runtime, path: path, threads: 1)
        }
        try ModelFileCheck.check(path, digest: await digest, expected: expected)
        let model = try opened.get()
        guard model.input.shape.last == 3, model.output.shape.last == classes else {
            throw IdentifyUnavailable(
                reason: "BirdNET's location model in \(TerminalText.sanitize(folder)) does not map a place and week"
                    + " to \(classes) species; run `make model` to fetch it again")
        }
        return model
    }

    /// The species `model` expects at `place`: those at or above the threshold.
    static func expected(_ model: OnnxModel, at place: RecordingPlace, labels: [Species]) throws -> ExpectedSpecies {
        let scores = try model.run(FloatRows(rows: 1, columns: 3, values: place.modelInput))[0]
        let names = zip(scores, labels).compactMap { score, species in
            Double(score) >= ExpectedSpecies.threshold ? species.scientific : nil
        }
        return ExpectedSpecies(source: .place(place), scientificNames: names)
    }
}
