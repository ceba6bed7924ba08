import ChirperCore
import FoundationEssentials

/// Where `--output` sends the sound.
public enum OutputChoice: Sendable, Hashable, CustomStringConvertible {
    /// The PulseAudio (or PipeWire) sound server; the default.
    case pulse
    /// Decode and discard.
    case null
    /// Write each track to a WAV file at `path` (16-bit PCM), replacing it.
    case wav(path: String)

    /// Parses `pulse`, `null` or `wav:PATH`.
    public init(parsing text: String) throws(OutputChoiceError) {
        let trimmed = text.trimmingSpaces
        switch trimmed.lowercased() {
        case "pulse", "pulseaudio":
            self = .pulse
        case "null", "none":
            self = .null
        default:
            if trimmed.lowercased().hasPrefix("wav:") {
                let path = String(trimmed.dropFirst(4))
                guard !path.isEmpty else { throw OutputChoiceError(text: text, problem: .missingPath) }
                self = .wav(path: path)
            } else {
                throw OutputChoiceError(text: text, problem: .unknown)
            }
        }
    }

    /// The sink for this choice. `pulseServer` overrides libpulse's default server (tests).
    public func makeSink(pulseServer: String? = nil) -> any AudioSink {
        switch self {
        case .pulse: PulseAudioSink(server: pulseServer)
        case .null: NullSink()
        case .wav(let path): WAVFileSink(path: path)
        }
    }

    public var description: String {
        switch self {
        case .pulse: "pulse"
        case .null: "null"
        case .wav(let path): "wav:\(path)"
        }
    }
}

/// `--output` was given something other than `pulse`, `null` or `wav:PATH`.
public struct OutputChoiceError: Error, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        case unknown
        case missingPath
    }

    public var text: String
    public var problem: Problem

    public init(text: String, problem: Problem) {
        self.text = text
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .unknown:
            "unknown output \"\(text)\": use pulse, null or wav:PATH"
        case .missingPath:
            "wav: needs a file path, e.g. --output wav:recording.wav"
        }
    }
}

extension OutputChoiceError: UserFacingError {
    public var userMessage: String { description }
}
