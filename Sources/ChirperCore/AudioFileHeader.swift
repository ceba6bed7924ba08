/// What an audio file of one's own says about itself in its header: its format, the shape of its samples, how
/// long it lasts, where its audio is, and its metadata. Read by `AudioFileHeaderReader` from a few ranges of the
/// file, never the audio itself.
public struct AudioFileHeader: Sendable, Hashable {
    /// The formats chirper-play reads.
    public enum Format: String, Sendable, Hashable {
        case wav = "WAV"
        case flac = "FLAC"
        case mp3 = "MP3"
    }

    /// How the samples are stored.
    public enum Encoding: Sendable, Hashable, CustomStringConvertible {
        /// WAV's 8-bit PCM, unsigned.
        case unsignedInteger(bits: Int)
        case signedInteger(bits: Int)
        case float(bits: Int)
        case aLaw
        case muLaw
        /// FLAC's lossless frames of samples of this many bits.
        case flac(bits: Int)
        /// MPEG audio, layer 1, 2 or 3.
        case mpeg(layer: Int)

        /// As `soxi` names it: `24-bit Signed Integer PCM`, `32-bit Floating Point PCM`, `16-bit FLAC`.
        public var description: String {
            switch self {
            case .unsignedInteger(let bits): "\(bits)-bit Unsigned Integer PCM"
            case .signedInteger(let bits): "\(bits)-bit Signed Integer PCM"
            case .float(let bits): "\(bits)-bit Floating Point PCM"
            case .aLaw: "8-bit A-law"
            case .muLaw: "8-bit u-law"
            case .flac(let bits): "\(bits)-bit FLAC"
            case .mpeg(let layer): "MPEG audio (layer \(String(repeating: "I", count: layer)))"
            }
        }
    }

    /// Whether the header's length of the audio agrees with the file.
    public enum DataLength: Sendable, Hashable {
        /// The file holds all the audio its header announces.
        case whole
        /// The header announces `declared` bytes of audio, more than the file holds (a copy cut short, a recorder
        /// that stopped without closing its file): what is there is played.
        case truncated(declared: Int64)
        /// The header does not say (a WAV `data` size of 0 or 0xFFFFFFFF, as streaming writers leave it; FLAC and
        /// MP3 without a total): the audio runs to the end of the file.
        case unstated
    }

    /// Where the audio (WAV's `data`, FLAC's and MP3's first frame on) is in the file.
    public struct AudioData: Sendable, Hashable {
        /// The first byte of audio, from the start of the file.
        public var offset: Int64
        /// Bytes of audio the file holds from `offset`.
        public var length: Int64
        public var declared: DataLength
    }

    public var format: Format
    /// Frames per second; nil for an MP3 whose first frame was not reached.
    public var sampleRate: Int?
    public var channels: Int?
    public var encoding: Encoding?
    /// Bits per sample that carry sound (soxi's Precision): WAVE_FORMAT_EXTENSIBLE's valid bits, FLAC's bits.
    public var precision: Int?
    /// Sample frames (one sample per channel) the file holds; nil where the header does not say (MP3, a FLAC
    /// without a total).
    public var frames: Int64?
    public var audio: AudioData
    /// WAVE_FORMAT_EXTENSIBLE, and its channel mask (which speaker each channel is for; 0 where unstated).
    public var channelMask: UInt32?
    /// A FLAC file's SEEKTABLE block is present (a seek can jump instead of searching).
    public var hasSeekTable: Bool
    public var metadata: FileMetadata
    /// `frames` is an MP3's audio bytes over its bitrate (no tag counts its frames): right for a constant
    /// bitrate, an estimate for a variable one.
    public var lengthFromBitrate = false

    /// Seconds of audio the file holds; nil where the frames are not known.
    public var duration: Double? {
        guard let frames, let sampleRate, sampleRate > 0 else { return nil }
        return Double(frames) / Double(sampleRate)
    }

    /// When the recording began: GUANO's `Timestamp` where the file has one, else the date and time in a field
    /// recorder's `fileName` (the name only is read; it is never made a path).
    public func recordedTime(fileName: String) -> RecordedDateTime? {
        metadata.guano?.timestamp ?? FieldRecorderName.recordedTime(fromFileName: fileName)
    }

    /// The header announces more audio than the file holds.
    public var isTruncated: Bool {
        if case .truncated = audio.declared { return true }
        return false
    }
}

/// What a file's metadata says: RIFF `LIST`/`INFO` entries, GUANO, FLAC's Vorbis comments. Every string is the
/// file's raw text: `lines` gives them sanitised for a terminal; anything else shown must go through
/// `TerminalText.sanitize`. Nothing here is ever made a path.
public struct FileMetadata: Sendable, Hashable {
    /// One entry of a RIFF `INFO` list, e.g. `ICMT` (comment), `IART` (artist), `INAM` (title), `ICRD` (date).
    public struct InfoEntry: Sendable, Hashable {
        public var id: String
        public var text: String
    }

    /// One `NAME=value` of a FLAC file's VORBIS_COMMENT block.
    public struct VorbisComment: Sendable, Hashable {
        public var name: String
        public var value: String
    }

    /// A label and its value, sanitised, for `info`.
    public struct Line: Sendable, Hashable {
        public var label: String
        public var value: String

        public init(label: String, value: String) {
            self.label = label
            self.value = value
        }
    }

    public var info: [InfoEntry] = []
    public var guano: GUANOMetadata?
    public var vorbisVendor: String?
    public var vorbisComments: [VorbisComment] = []

    public init() {}

    /// The raw text of an `INFO` entry (`ICMT`), the last where repeated.
    public func infoText(_ id: String) -> String? { info.last { $0.id == id }?.text }

    /// The raw values of a Vorbis comment (names compare without case, as the format says).
    public func vorbis(_ name: String) -> [String] {
        let upper = name.uppercased()
        return vorbisComments.filter { $0.name.uppercased() == upper }.map(\.value)
    }

    /// The comment (`ICMT`, `COMMENT`, `DESCRIPTION`, GUANO's `Note`), raw.
    public var comment: String? {
        infoText("ICMT") ?? vorbis("COMMENT").first ?? vorbis("DESCRIPTION").first ?? guano?.note
    }
    /// Who recorded it (`IART`, `ARTIST`), raw.
    public var artist: String? { infoText("IART") ?? vorbis("ARTIST").first }
    /// The title (`INAM`, `TITLE`), raw.
    public var title: String? { infoText("INAM") ?? vorbis("TITLE").first }
    /// The date as written (`ICRD`, `DATE`), raw: any form.
    public var creationDate: String? { infoText("ICRD") ?? vorbis("DATE").first }
    /// The recording device: GUANO's `Make` and `Model`, raw.
    public var device: String? {
        let parts = [guano?.make, guano?.model].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// Longest value shown by `lines`, in characters: a chunk may hold megabytes.
    public static let shownLength = 300

    /// Everything the metadata says, as labelled lines safe for a terminal: terminal control stripped
    /// (`TerminalText.sanitize`), line breaks made spaces, long values cut with `…`. Empty values are left out.
    public var lines: [Line] {
        var lines: [Line] = []
        func add(_ label: String, _ value: String?) {
            guard let value else { return }
            let shown = Self.shown(value)
            if !shown.isEmpty { lines.append(Line(label: Self.shown(label), value: shown)) }
        }
        let infoNames = ["INAM": "title", "IART": "artist", "ICMT": "comment", "ICRD": "created", "ISFT": "software"]
        for entry in info { add(infoNames[entry.id] ?? "INFO \(entry.id)", entry.text) }
        if let vendor = vorbisVendor { add("encoder", vendor) }
        for comment in vorbisComments { add(comment.name.lowercased(), comment.value) }
        if let guano {
            if let timestamp = guano.timestamp { add("recorded", timestamp.description) }
            if let position = guano.position { add("position", "\(position.latitude) \(position.longitude)") }
            for field in guano.fields where field.fullKey != "Timestamp" && field.fullKey != "Loc Position" {
                add(field.fullKey, field.fullKey == "Note" ? guano.note : field.value)
            }
        }
        return lines
    }

    /// `text` safe for one terminal line and at most `shownLength` characters.
    public static func shown(_ text: String) -> String {
        let clean = TerminalText.sanitize(text).trimmingSpaces
        return clean.count > shownLength ? String(clean.prefix(shownLength - 1)) + "…" : clean
    }
}

/// Why a file's header cannot be read as audio chirper-play plays: one line, with what to do.
public struct AudioFileProblem: UserFacingError, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// Another format, named (`Ogg Vorbis`, `AIFF`, `an MP4/M4A file`).
        case otherFormat(String)
        /// A WAV or FLAC whose samples are not read, said whole (`12 channels are not read (1 to 8 are)`).
        case unsupported(String)
        /// The header is broken or cut short (`the file ends inside its fmt chunk`).
        case damaged(String)
        /// No format known: how the file starts (`text`, `bytes 00 01 02 03`).
        case unrecognised(String)
    }

    public var reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    /// The one line, without the file's name (the caller puts the sanitised name in front).
    public var userMessage: String {
        switch reason {
        case .otherFormat(let name):
            "\(name), which is not read (WAV, FLAC and MP3 are); convert it: ffmpeg -i IN out.flac"
        case .unsupported(let what):
            "\(what); convert it: ffmpeg -i IN out.flac"
        case .damaged(let what):
            "\(what): the file is damaged or cut short"
        case .unrecognised(let start):
            "not an audio format chirper-play knows (it starts with \(start)); WAV, FLAC and MP3 are read"
        }
    }

    public var description: String { userMessage }
}
