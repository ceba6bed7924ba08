import FoundationEssentials

/// Whether a recording can be played, and from where.
public enum AudioAvailability: Sendable, Hashable {
    /// Playable from this (already vetted) location.
    case playable(AudioLocation)
    /// Listed but not downloadable: xeno-canto hides the audio of restricted (e.g. endangered) species.
    case restricted
    /// The catalogue gave a location this program refuses to follow (not http or https), shown as a reason.
    case refused(String)
}

/// One recording as listed by a catalogue: the fields of the xeno-canto v3 recording object that the user may
/// see, already normalised (numbers as text, nulls as empty strings, protocol-relative URLs made `https:`).
///
/// All text here comes from outside: sanitise it (``TerminalText``) before printing.
public struct Recording: Sendable, Hashable, Identifiable {
    /// The fields, kept in one box that copies share (see `Recording`).
    struct Fields: Sendable, Hashable {
        var id: String
        var genus: String
        var species: String
        var subspecies: String
        var group: String
        var englishName: String
        var recordist: String
        var country: String
        var locality: String
        var latitude: String
        var longitude: String
        var altitude: String
        var soundType: String
        var sex: String
        var stage: String
        var method: String
        var pageURL: String
        var fileName: String
        var licenceURL: String
        var quality: String
        var length: String
        var date: String
        var time: String
        var uploaded: String
        var background: [String]
        var remarks: String
        var sampleRate: String
        var device: String
        var microphone: String
        var animalSeen: String
        var playbackUsed: String
        var annotations: [Annotation]
        var audio: AudioAvailability
        var ownFile: OwnFile?
    }

    /// Shared by the copies of a recording until one of them changes a field: a copy costs a reference, not its 34
    /// fields (and a file of one's own its header), which pages, lists and states pass on by the hundred. Its
    /// fields change only through `update`, when no other copy holds it: hence `@unchecked`, as an array's storage.
    private final class Box: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    private mutating func update(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        change(&box.fields)
    }

    public static func == (lhs: Recording, rhs: Recording) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    public func hash(into hasher: inout Hasher) {
        box.fields.hash(into: &hasher)
    }

    /// The catalogue number without prefix, e.g. `254462` (xeno-canto) or `DEMO-07` (the demo catalogue).
    public var id: String {
        get { box.fields.id }
        set { update { $0.id = newValue } }
    }
    public var genus: String {
        get { box.fields.genus }
        set { update { $0.genus = newValue } }
    }
    public var species: String {
        get { box.fields.species }
        set { update { $0.species = newValue } }
    }
    public var subspecies: String {
        get { box.fields.subspecies }
        set { update { $0.subspecies = newValue } }
    }
    public var group: String {
        get { box.fields.group }
        set { update { $0.group = newValue } }
    }
    public var englishName: String {
        get { box.fields.englishName }
        set { update { $0.englishName = newValue } }
    }
    public var recordist: String {
        get { box.fields.recordist }
        set { update { $0.recordist = newValue } }
    }
    public var country: String {
        get { box.fields.country }
        set { update { $0.country = newValue } }
    }
    public var locality: String {
        get { box.fields.locality }
        set { update { $0.locality = newValue } }
    }
    public var latitude: String {
        get { box.fields.latitude }
        set { update { $0.latitude = newValue } }
    }
    public var longitude: String {
        get { box.fields.longitude }
        set { update { $0.longitude = newValue } }
    }
    public var altitude: String {
        get { box.fields.altitude }
        set { update { $0.altitude = newValue } }
    }
    public var soundType: String {
        get { box.fields.soundType }
        set { update { $0.soundType = newValue } }
    }
    public var sex: String {
        get { box.fields.sex }
        set { update { $0.sex = newValue } }
    }
    public var stage: String {
        get { box.fields.stage }
        set { update { $0.stage = newValue } }
    }
    public var method: String {
        get { box.fields.method }
        set { update { $0.method = newValue } }
    }
    /// The recording's web page (https), or empty.
    public var pageURL: String {
        get { box.fields.pageURL }
        set { update { $0.pageURL = newValue } }
    }
    public var fileName: String {
        get { box.fields.fileName }
        set { update { $0.fileName = newValue } }
    }
    /// The licence URL (https), or empty.
    public var licenceURL: String {
        get { box.fields.licenceURL }
        set { update { $0.licenceURL = newValue } }
    }
    public var quality: String {
        get { box.fields.quality }
        set { update { $0.quality = newValue } }
    }
    /// As given, "m:ss".
    public var length: String {
        get { box.fields.length }
        set { update { $0.length = newValue } }
    }
    public var date: String {
        get { box.fields.date }
        set { update { $0.date = newValue } }
    }
    public var time: String {
        get { box.fields.time }
        set { update { $0.time = newValue } }
    }
    public var uploaded: String {
        get { box.fields.uploaded }
        set { update { $0.uploaded = newValue } }
    }
    public var background: [String] {
        get { box.fields.background }
        set { update { $0.background = newValue } }
    }
    public var remarks: String {
        get { box.fields.remarks }
        set { update { $0.remarks = newValue } }
    }
    public var sampleRate: String {
        get { box.fields.sampleRate }
        set { update { $0.sampleRate = newValue } }
    }
    public var device: String {
        get { box.fields.device }
        set { update { $0.device = newValue } }
    }
    public var microphone: String {
        get { box.fields.microphone }
        set { update { $0.microphone = newValue } }
    }
    public var animalSeen: String {
        get { box.fields.animalSeen }
        set { update { $0.animalSeen = newValue } }
    }
    public var playbackUsed: String {
        get { box.fields.playbackUsed }
        set { update { $0.playbackUsed = newValue } }
    }
    /// v3's `annotation-set`: time and frequency boxes with species and sound type (often empty).
    public var annotations: [Annotation] {
        get { box.fields.annotations }
        set { update { $0.annotations = newValue } }
    }
    public var audio: AudioAvailability {
        get { box.fields.audio }
        set { update { $0.audio = newValue } }
    }
    /// A file of the user's own (`open`): where it is and what its header says; nil for a catalogue's row.
    public var ownFile: OwnFile? {
        get { box.fields.ownFile }
        set { update { $0.ownFile = newValue } }
    }

    public init(
        id: String,
        genus: String = "",
        species: String = "",
        subspecies: String = "",
        group: String = "",
        englishName: String = "",
        recordist: String = "",
        country: String = "",
        locality: String = "",
        latitude: String = "",
        longitude: String = "",
        altitude: String = "",
        soundType: String = "",
        sex: String = "",
        stage: String = "",
        method: String = "",
        pageURL: String = "",
        fileName: String = "",
        licenceURL: String = "",
        quality: String = "",
        length: String = "",
        date: String = "",
        time: String = "",
        uploaded: String = "",
        background: [String] = [],
        remarks: String = "",
        sampleRate: String = "",
        device: String = "",
        microphone: String = "",
        animalSeen: String = "",
        playbackUsed: String = "",
        audio: AudioAvailability = .restricted,
        annotations: [Annotation] = [],
        ownFile: OwnFile? = nil
    ) {
        box = Box(
            Fields(
                id: id,
                genus: genus,
                species: species,
                subspecies: subspecies,
                group: group,
                englishName: englishName,
                recordist: recordist,
                country: country,
                locality: locality,
                latitude: latitude,
                longitude: longitude,
                altitude: altitude,
                soundType: soundType,
                sex: sex,
                stage: stage,
                method: method,
                pageURL: pageURL,
                fileName: fileName,
                licenceURL: licenceURL,
                quality: quality,
                length: length,
                date: date,
                time: time,
                uploaded: uploaded,
                background: background,
                remarks: remarks,
                sampleRate: sampleRate,
                device: device,
                microphone: microphone,
                animalSeen: animalSeen,
                playbackUsed: playbackUsed,
                annotations: annotations,
                audio: audio,
                ownFile: ownFile))
    }

    /// The label users know a recording by: `XC254462` for xeno-canto numbers, the id itself otherwise.
    public var label: String {
        !id.isEmpty && id.allSatisfy(\.isASCIIDigit) ? "XC\(id)" : id
    }

    /// What the status line and the desktop call it: the English name, else (a file of one's own) its label.
    public var title: String { englishName.isEmpty ? label : englishName }

    /// "Genus species subspecies", trimmed.
    public var scientificName: String {
        [genus, species, subspecies].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The length in seconds, parsed from "m:ss" or "h:mm:ss"; nil when absent or malformed.
    public var lengthSeconds: Double? {
        let parts = length.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return nil }
        var total = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 4, part.allSatisfy(\.isASCIIDigit), let value = Int(part) else {
                return nil
            }
            total = total * 60 + value
        }
        return Double(total)
    }

    /// What a player needs, or nil when the recording cannot be played.
    public var playItem: PlayItem? {
        guard case .playable(let location) = audio else { return nil }
        return PlayItem(label: label, location: location, expectedDuration: lengthSeconds)
    }

    /// A short human name for the licence URL, e.g. "CC BY-NC-SA 4.0"; the URL itself when unknown.
    public var licenceName: String {
        Licence.name(for: licenceURL)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

/// Names for Creative Commons licence URLs.
public enum Licence {
    public static func name(for url: String) -> String {
        let lower = url.lowercased()
        guard let range = lower.firstRange(of: "creativecommons.org/") else { return url }
        let parts = lower[range.upperBound...].split(separator: "/")
        if parts.first == "publicdomain" {
            if parts.count > 1, parts[1] == "zero" { return "CC0 \(parts.count > 2 ? parts[2] : "1.0")" }
            return "Public Domain"
        }
        guard parts.first == "licenses", parts.count >= 2 else { return url }
        let version = parts.count >= 3 ? " \(parts[2])" : ""
        return "CC \(parts[1].uppercased())\(version)"
    }
}
