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
    /// The catalogue number without prefix, e.g. `254462` (xeno-canto) or `DEMO-07` (the demo catalogue).
    public var id: String
    public var genus: String
    public var species: String
    public var subspecies: String
    public var group: String
    public var englishName: String
    public var recordist: String
    public var country: String
    public var locality: String
    public var latitude: String
    public var longitude: String
    public var altitude: String
    public var soundType: String
    public var sex: String
    public var stage: String
    public var method: String
    /// The recording's web page (https), or empty.
    public var pageURL: String
    public var fileName: String
    /// The licence URL (https), or empty.
    public var licenceURL: String
    public var quality: String
    /// As given, "m:ss".
    public var length: String
    public var date: String
    public var time: String
    public var uploaded: String
    public var background: [String]
    public var remarks: String
    public var sampleRate: String
    public var device: String
    public var microphone: String
    public var animalSeen: String
    public var playbackUsed: String
    /// v3's `annotation-set`: time and frequency boxes with species and sound type (often empty).
    public var annotations: [Annotation]
    public var audio: AudioAvailability
    /// A file of the user's own (`open`): where it is and what its header says; nil for a catalogue's row.
    public var ownFile: OwnFile?

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
        self.id = id
        self.genus = genus
        self.species = species
        self.subspecies = subspecies
        self.group = group
        self.englishName = englishName
        self.recordist = recordist
        self.country = country
        self.locality = locality
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.soundType = soundType
        self.sex = sex
        self.stage = stage
        self.method = method
        self.pageURL = pageURL
        self.fileName = fileName
        self.licenceURL = licenceURL
        self.quality = quality
        self.length = length
        self.date = date
        self.time = time
        self.uploaded = uploaded
        self.background = background
        self.remarks = remarks
        self.sampleRate = sampleRate
        self.device = device
        self.microphone = microphone
        self.animalSeen = animalSeen
        self.playbackUsed = playbackUsed
        self.audio = audio
        self.annotations = annotations
        self.ownFile = ownFile
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
