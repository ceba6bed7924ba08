import Foundation

/// One page of search results.
public struct Page: Sendable, Hashable {
    /// `numRecordings`: recordings matching the query, over all pages.
    public var totalRecordings: Int
    public var totalSpecies: Int
    public var page: Int
    /// `numPages` as the server said it; not trusted to end paging (an empty page ends it too).
    public var numPages: Int
    public var recordings: [Recording]

    public init(totalRecordings: Int, totalSpecies: Int, page: Int, numPages: Int, recordings: [Recording]) {
        self.totalRecordings = totalRecordings
        self.totalSpecies = totalSpecies
        self.page = page
        self.numPages = numPages
        self.recordings = recordings
    }
}

/// Why a reply could not be read as a page.
public struct PageDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}

/// Reads xeno-canto recordings pages (API v3, and v2's older field names) tolerantly: numbers may come as
/// strings or numbers, any field may be null or missing, and URLs may be protocol-relative.
public enum PageDecoder {
    /// Decodes a recordings page. Invalid UTF-8 is replaced (shown harmlessly) rather than rejected.
    public static func decode(_ data: some Collection<UInt8>) throws(PageDecodingError) -> Page {
        let bytes = Data(String(decoding: data, as: UTF8.self).utf8)
        let raw: RawPage
        do {
            raw = try JSONDecoder().decode(RawPage.self, from: bytes)
        } catch let error as DecodingError {
            throw PageDecodingError(description: describe(error))
        } catch {
            throw PageDecodingError(description: "the reply is not JSON")
        }
        guard let recordings = raw.recordings else {
            throw PageDecodingError(description: "the reply has no \"recordings\" list")
        }
        return Page(
            totalRecordings: raw.numRecordings?.int ?? recordings.count,
            totalSpecies: raw.numSpecies?.int ?? 0,
            page: raw.page?.int ?? 1,
            numPages: raw.numPages?.int ?? 1,
            recordings: recordings.compactMap { $0.recording }
        )
    }

    /// The `message` of an error reply, in either the flat v3 form `{"error": "...", "message": "..."}` or the
    /// documented nested form `{"error": {"code": "...", "message": "..."}}`; nil when the body has neither.
    public static func errorMessage(_ data: some Collection<UInt8>) -> String? {
        let bytes = Data(String(decoding: data, as: UTF8.self).utf8)
        guard let reply = try? JSONDecoder().decode(RawError.self, from: bytes) else { return nil }
        if let message = reply.message?.text, !message.isEmpty { return message }
        if let message = reply.error?.message, !message.isEmpty { return message }
        if let code = reply.error?.code, !code.isEmpty { return code }
        return nil
    }

    /// Makes a URL from the API absolute: `//host/x` becomes `https://host/x`.
    public static func absoluteURL(_ text: String) -> String {
        let trimmed = text.trimmingSpaces
        return trimmed.hasPrefix("//") ? "https:" + trimmed : trimmed
    }

    /// Decides how a `file` value from the API may be played: only absolute http(s) URLs are followed.
    public static func availability(ofFile file: String) -> AudioAvailability {
        let url = absoluteURL(file)
        if url.isEmpty { return .restricted }
        let components = URLComponents(string: url)
        if let scheme = components?.scheme?.lowercased(), scheme != "https", scheme != "http" {
            return .refused(
                "the audio address uses \(TerminalText.sanitize(String(scheme.prefix(16)))):, and only http(s) is followed"
            )
        }
        guard let components, components.scheme != nil, let host = components.host, !host.isEmpty else {
            return .refused("the audio address is not a web URL")
        }
        return .playable(.remote(url))
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "the reply is not valid JSON (cut off or not JSON at all)"
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
            .keyNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return "the reply has an unexpected shape at \(path.isEmpty ? "the top" : String(path.prefix(80)))"
        @unknown default:
            return "the reply could not be read"
        }
    }
}

/// A JSON scalar read as text: strings as they are, numbers and booleans printed, null as empty.
struct LooseText: Decodable, Hashable {
    var text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            text = ""
        } else if let string = try? container.decode(String.self) {
            text = string
        } else if let int = try? container.decode(Int.self) {
            text = String(int)
        } else if let double = try? container.decode(Double.self) {
            text = String(double)
        } else if let bool = try? container.decode(Bool.self) {
            text = bool ? "yes" : "no"
        } else {
            // Objects and arrays where text was expected are dropped rather than failing the whole page.
            text = ""
        }
    }

    var int: Int? { Int(text.trimmingSpaces) }
}

/// A list of texts that may also arrive as a single text or null.
struct LooseTextList: Decodable, Hashable {
    var items: [String]

    init(from decoder: any Decoder) throws {
        if let list = try? [LooseText].init(from: decoder) {
            items = list.map(\.text).filter { !$0.isEmpty }
        } else if let single = try? LooseText(from: decoder), !single.text.isEmpty {
            items = [single.text]
        } else {
            items = []
        }
    }
}

/// An object whose scalar members are read as text; nested objects and arrays are dropped.
struct LooseObject: Decodable, Hashable {
    var fields: [String: String] = [:]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys.prefix(64) {
            if let value = try? container.decode(LooseText.self, forKey: key), !value.text.isEmpty {
                fields[key.stringValue] = value.text
            }
        }
    }
}

/// An array element that is dropped (nil) instead of failing the array when it is not an object.
private struct LossyObject: Decodable {
    var object: LooseObject?

    init(from decoder: any Decoder) throws {
        object = try? LooseObject(from: decoder)
    }
}

private struct RawPage: Decodable {
    var numRecordings: LooseText?
    var numSpecies: LooseText?
    var page: LooseText?
    var numPages: LooseText?
    var recordings: [LossyRecording]?
}

/// A recording that is dropped (nil) instead of failing the page when it is not an object at all.
private struct LossyRecording: Decodable {
    var recording: Recording?

    init(from decoder: any Decoder) throws {
        recording = (try? RawRecording(from: decoder))?.recording
    }
}

private struct RawRecording: Decodable {
    var fields: [String: String] = [:]
    var also: [String] = []
    var annotations: [Annotation] = []

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            if key.stringValue == "also" {
                also = (try? container.decode(LooseTextList.self, forKey: key))?.items ?? []
            } else if key.stringValue == "annotation-set" {
                let boxes = (try? container.decode([LossyObject].self, forKey: key)) ?? []
                annotations = boxes.compactMap { $0.object.map { Annotation(fields: $0.fields) } }.filter {
                    !$0.fields.isEmpty
                }
            } else if let value = try? container.decode(LooseText.self, forKey: key) {
                fields[key.stringValue] = value.text
            }
        }
    }

    var recording: Recording? {
        func field(_ names: String...) -> String {
            for name in names {
                if let value = fields[name], !value.isEmpty { return value }
            }
            return ""
        }
        let id = field("id")
        guard !id.isEmpty else { return nil }
        return Recording(
            id: id,
            genus: field("gen"),
            species: field("sp"),
            subspecies: field("ssp"),
            group: field("grp", "group"),
            englishName: field("en"),
            recordist: field("rec"),
            country: field("cnt"),
            locality: field("loc"),
            latitude: field("lat"),
            longitude: field("lon", "lng"),
            altitude: field("alt"),
            soundType: field("type"),
            sex: field("sex"),
            stage: field("stage"),
            method: field("method"),
            pageURL: PageDecoder.absoluteURL(field("url")),
            fileName: field("file-name"),
            licenceURL: PageDecoder.absoluteURL(field("lic")),
            quality: field("q"),
            length: field("length"),
            date: field("date"),
            time: field("time"),
            uploaded: field("uploaded"),
            background: also,
            remarks: field("rmk"),
            sampleRate: field("smp"),
            device: field("dvc"),
            microphone: field("mic"),
            animalSeen: field("animal-seen", "bird-seen"),
            playbackUsed: field("playback-used"),
            audio: PageDecoder.availability(ofFile: field("file")),
            annotations: annotations
        )
    }
}

private struct RawError: Decodable {
    struct Nested: Decodable {
        var code: String?
        var message: String?
    }

    var error: Nested?
    var message: LooseText?

    enum CodingKeys: String, CodingKey {
        case error, message
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = try? container.decodeIfPresent(LooseText.self, forKey: .message)
        if let nested = try? container.decodeIfPresent(Nested.self, forKey: .error) {
            error = nested
        } else if let flat = try? container.decodeIfPresent(String.self, forKey: .error) {
            error = Nested(code: flat, message: nil)
        }
    }
}
