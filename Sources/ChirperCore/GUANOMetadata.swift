/// GUANO metadata (the "Grand Unified Acoustic Notation Ontology" of bat detectors and some field recorders), the
/// text of a WAV file's `guan` chunk: UTF-8, one `Key: Value` per line, vendors' keys namespaced as `NS|Key`
/// (`PET|Gain`), `GUANO|Version` naming the version. Read as the reference implementation (guano-py) reads it:
/// keys and values trimmed of whitespace and NULs, the key ending at the first `:` and its namespace at the first
/// `|`, empty lines and lines without a `:` skipped, text that is not UTF-8 read as Latin-1. A key given twice
/// keeps its last value. Unknown keys are kept, in order.
///
/// Every value is the file's own text: sanitise it (`TerminalText.sanitize`, or `FileMetadata.lines`) before
/// showing it, and never make a path of it.
public struct GUANOMetadata: Sendable, Hashable {
    /// One line of the chunk: `namespace` is empty for the well-known keys (`Make`), `GUANO` for `GUANO|Version`.
    public struct Field: Sendable, Hashable {
        public var namespace: String
        public var key: String
        public var value: String

        public init(namespace: String, key: String, value: String) {
            self.namespace = namespace
            self.key = key
            self.value = value
        }

        /// `Key`, or `NS|Key`.
        public var fullKey: String { namespace.isEmpty ? key : "\(namespace)|\(key)" }
    }

    /// Every field read, in the file's order (a key given twice appears twice; the accessors take the last).
    public var fields: [Field]

    /// Reads the bytes of a `guan` chunk. Never fails: a chunk of garbage gives fewer (or no) fields.
    public init(chunk: some Collection<UInt8>) {
        self.init(text: MetadataText.decode(chunk))
    }

    public init(text: String) {
        fields = []
        // Read by Unicode scalar, as guano-py reads code points: a line ends at LF (a CRLF's CR is trimmed with
        // the value), and the key at the first `:`, whatever follows it.
        for line in text.unicodeScalars.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let fullKey = line[..<colon]
            let value = Self.trimmed(line[line.index(after: colon)...])
            let namespace: String
            let key: String
            if let bar = fullKey.firstIndex(of: "|") {
                namespace = Self.trimmed(fullKey[..<bar])
                key = Self.trimmed(fullKey[fullKey.index(after: bar)...])
            } else {
                namespace = ""
                key = Self.trimmed(fullKey)
            }
            guard !key.isEmpty else { continue }
            fields.append(Field(namespace: namespace, key: key, value: value))
        }
    }

    /// The raw value of `key` (`Make`, or a namespaced `PET|Gain`); nil where absent.
    public subscript(_ key: String) -> String? {
        // Compared part by part, without making each field's full key.
        guard let bar = key.firstIndex(of: "|") else {
            return fields.last { $0.namespace.isEmpty && $0.key == key }?.value
        }
        let (namespace, name) = (key[..<bar], key[key.index(after: bar)...])
        return fields.last { $0.namespace == namespace && $0.key == name }?.value
    }

    /// `GUANO|Version`, e.g. `1.0`.
    public var version: String? { self["GUANO|Version"] }
    /// When the recording began (`Timestamp`); nil where absent or unreadable.
    public var timestamp: RecordedDateTime? { self["Timestamp"].flatMap(Self.parseTimestamp) }
    /// `Loc Position`: WGS84 latitude and longitude in degrees; nil where absent, unreadable or out of range.
    public var position: (latitude: Double, longitude: Double)? {
        guard let text = self["Loc Position"] else { return nil }
        let parts = text.utf8.split(whereSeparator: { $0 == 0x20 || $0 == UInt8(ascii: ",") || $0 == 0x09 })
        guard parts.count == 2, let latitude = Self.number(Substring(parts[0])),
            let longitude = Self.number(Substring(parts[1])),
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { return nil }
        return (latitude, longitude)
    }
    /// `Loc Elevation`, metres above mean sea level.
    public var elevation: Double? { self["Loc Elevation"].flatMap { Self.number($0[...]) } }
    public var make: String? { self["Make"] }
    public var model: String? { self["Model"] }
    public var speciesManualID: String? { self["Species Manual ID"] }
    public var speciesAutoID: String? { self["Species Auto ID"] }
    /// `Length`: the recording's real length in seconds (the file's divided by `TE` when time-expanded).
    public var length: Double? { self["Length"].flatMap { Self.number($0[...]) }.flatMap { $0 >= 0 ? $0 : nil } }
    /// `Samplerate`: the rate the sound was recorded at, in Hz (the file's times `TE` when time-expanded).
    public var sampleRate: Int? { self["Samplerate"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } }
    /// `TE`: the time-expansion factor (1 where absent: recorded directly).
    public var timeExpansion: Int? { self["TE"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } }
    /// `Note`, with its `\n` escapes made line breaks (which the sanitiser shows as spaces).
    public var note: String? {
        self["Note"].map { $0.split(separator: "\\n", omittingEmptySubsequences: false).joined(separator: "\n") }
    }

    /// Reads GUANO's dates: `2025-06-12T05:30:00`, with a fraction of a second (dropped), `Z` or an offset
    /// (`+04:00`, `-0700`, `+04`), a space instead of the `T`, or no seconds. Read as bytes: every part that is
    /// kept is ASCII digits, and a file's rows read one each.
    public static func parseTimestamp(_ text: String) -> RecordedDateTime? {
        parseTimestamp(bytes: Array(text.trimmingSpaces.utf8)[...])
    }

    private static func parseTimestamp(bytes text: ArraySlice<UInt8>) -> RecordedDateTime? {
        let isSeparator = { (byte: UInt8) in byte == UInt8(ascii: "T") || byte == UInt8(ascii: "t") || byte == 0x20 }
        var body = text
        var offset: Int? = nil
        if let last = body.last, last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") {
            offset = 0
            body = body.dropLast()
        } else if let sign = body.lastIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }),
            let separator = body.firstIndex(where: isSeparator), sign > separator
        {
            let zone = body[(sign + 1)...].filter { $0 != UInt8(ascii: ":") }
            guard zone.count == 2 || zone.count == 4, let value = digits(zone[...]) else { return nil }
            let minutes = (value >= 100 ? value / 100 : value) * 60 + (value >= 100 ? value % 100 : 0)
            offset = body[sign] == UInt8(ascii: "-") ? -minutes : minutes
            body = body[..<sign]
        }
        let halves = body.split(omittingEmptySubsequences: false, whereSeparator: isSeparator)
        guard halves.count == 2 else { return nil }
        let date = halves[0].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        let time = halves[1].split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2, (2...3).contains(time.count),
            time[0].count == 2, time[1].count == 2
        else { return nil }
        var second: Int? = nil
        if time.count == 3 {
            let whole = time[2].split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
            guard whole[0].count == 2, let value = digits(whole[0]) else { return nil }
            if whole.count == 2, digits(whole[1].prefix(9)) == nil { return nil }
            second = value
        }
        guard let year = digits(date[0]), let month = digits(date[1]), let day = digits(date[2]),
            let hour = digits(time[0]), let minute = digits(time[1])
        else { return nil }
        return RecordedDateTime(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, utcOffsetMinutes: offset)
    }

    /// The value of 1 to 9 ASCII digits; nil for anything else.
    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 9 else { return nil }
        var value = 0
        for byte in bytes {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// GUANO trims "whitespace, including NUL, CR, LF, space, tab".
    private static func trimmed(_ text: Substring.UnicodeScalarView) -> String {
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return String(Substring(text[first...last]))
    }

    /// Unicode's white space, or NUL; ASCII is told without the property tables.
    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return scalar.properties.isWhitespace }
        return scalar == " " || scalar.value == 0 || (0x09...0x0D).contains(scalar.value)
    }

    /// A finite decimal number (no `nan`, `inf` or hex).
    private static func number(_ text: Substring) -> Double? {
        // By byte: Character's `isNumber` looks up Unicode's tables, and only ASCII is accepted anyway.
        guard
            text.utf8.allSatisfy({
                (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
            }),
            let value = Double(text), value.isFinite
        else { return nil }
        return value
    }
}

/// Text in a file's metadata (GUANO, RIFF INFO, Vorbis comments): UTF-8 where it is, else Latin-1 (what older
/// writers of RIFF INFO used), without the NULs writers pad it with.
enum MetadataText {
    static func decode(_ bytes: some Collection<UInt8>) -> String {
        var array = Array(bytes)
        while let last = array.last, last == 0 { array.removeLast() }
        if let text = String(validating: array, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(array.map { Unicode.Scalar($0) }))
    }
}
