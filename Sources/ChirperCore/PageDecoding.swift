import FoundationEssentials

/// One page of search results.
public struct Page: Sendable, Hashable {
    /// `numRecordings`: recordings matching the query, over all pages.
    public var totalRecordings: Int
    public var totalSpecies: Int
    public var page: Int
    /// `numPages` as the server said it; not trusted to end paging (an empty page ends it too).
    public var numPages: Int
    public var recordings: [Recording]
    /// Files of the user's own that this page passed over, each with why (a page of `open` or `filter`).
    public var skipped: [SkippedFile]

    public init(
        totalRecordings: Int, totalSpecies: Int, page: Int, numPages: Int, recordings: [Recording],
        skipped: [SkippedFile] = []
    ) {
        self.skipped = skipped
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
    /// Each recording's `file` by its `id`, both as text (an offline catalog's own field, beside the v3 ones);
    /// empty when the reply is not a recordings page.
    public static func files(_ data: some Collection<UInt8>) -> [String: String] {
        guard case .array(let items)? = (try? JSONValue.parse(data))?["recordings"] else { return [:] }
        var files: [String: String] = [:]
        for item in items {
            if case .string(let id)? = item["id"], case .string(let file)? = item["file"] { files[id] = file }
        }
        return files
    }

    /// Decodes a recordings page. Invalid UTF-8 is replaced (shown harmlessly) rather than rejected.
    public static func decode(_ data: some Collection<UInt8>) throws(PageDecodingError) -> Page {
        let reply: JSONValue
        do {
            reply = try JSONValue.parse(data)
        } catch {
            throw PageDecodingError(description: "the reply is not valid JSON (cut off or not JSON at all)")
        }
        guard case .object = reply else {
            throw PageDecodingError(description: "the reply has an unexpected shape at the top")
        }
        let elements: [JSONValue]
        switch reply["recordings"] {
        case nil, .null?:
            throw PageDecodingError(description: "the reply has no \"recordings\" list")
        case .array(let list)?:
            elements = list
        case _?:
            throw PageDecodingError(description: "the reply has an unexpected shape at .recordings")
        }
        let recordings = elements.compactMap(recording(from:))
        return Page(
            totalRecordings: reply["numRecordings"].looseInt ?? recordings.count,
            totalSpecies: reply["numSpecies"].looseInt ?? 0,
            page: reply["page"].looseInt ?? 1,
            numPages: reply["numPages"].looseInt ?? 1,
            recordings: recordings
        )
    }

    /// The `message` of an error reply, in either the flat v3 form `{"error": "...", "message": "..."}` or the
    /// documented nested form `{"error": {"code": "...", "message": "..."}}`; nil when the body has neither.
    public static func errorMessage(_ data: some Collection<UInt8>) -> String? {
        guard let reply = try? JSONValue.parse(data), case .object = reply else { return nil }
        if let message = reply["message"].looseText, !message.isEmpty { return message }
        let error = reply["error"]
        switch error {
        case .object?:
            if case .string(let message)? = error?["message"], !message.isEmpty { return message }
            if case .string(let code)? = error?["code"], !code.isEmpty { return code }
        case .string(let code)? where !code.isEmpty:
            return code
        default:
            break
        }
        return nil
    }

    /// One element of `recordings`; nil (dropped, not failing the page) when it is not an object with an id.
    private static func recording(from element: JSONValue) -> Recording? {
        guard case .object(let members) = element else { return nil }
        var fields: [String: String] = [:]
        fields.reserveCapacity(members.count)
        var also: [String] = []
        var annotations: [Annotation] = []
        for member in members {
            switch member.key {
            case "also":
                also = member.value.looseTextList
            case "annotation-set":
                guard case .array(let boxes) = member.value else {
                    annotations = []
                    continue
                }
                annotations = boxes.compactMap { box in
                    guard case .object(let members) = box else { return nil }
                    var fields: [String: String] = [:]
                    for member in members.prefix(64) {
                        if let text = member.value.looseText, !text.isEmpty { fields[member.key] = text }
                    }
                    return fields.isEmpty ? nil : Annotation(fields: fields)
                }
            default:
                fields[member.key] = member.value.looseText ?? ""
            }
        }
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
            pageURL: absoluteURL(field("url")),
            fileName: field("file-name"),
            licenceURL: absoluteURL(field("lic")),
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
            audio: availability(ofFile: field("file")),
            annotations: annotations
        )
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
}

extension JSONValue? {
    /// A scalar read as text: strings as they are, numbers as written, booleans as yes/no, null as empty; nil
    /// for an object or an array (dropped where text was expected) and for a missing member.
    fileprivate var looseText: String? {
        switch self {
        case .string(let text)?, .number(let text)?: text
        case .bool(let value)?: value ? "yes" : "no"
        case .null?: ""
        case .array?, .object?, nil: nil
        }
    }

    /// A count sent as a number or a string of digits.
    fileprivate var looseInt: Int? { looseText.flatMap { Int($0.trimmingSpaces) } }
}

extension JSONValue {
    fileprivate var looseText: String? { Optional(self).looseText }

    /// A list of texts that may also arrive as a single text or null; empty texts and nested values dropped.
    fileprivate var looseTextList: [String] {
        let items: [String?] = if case .array(let elements) = self { elements.map(\.looseText) } else { [looseText] }
        return items.compactMap { $0 }.filter { !$0.isEmpty }
    }
}
