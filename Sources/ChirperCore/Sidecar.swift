import FoundationEssentials

/// `XC<id>.json`, written beside a saved or cached recording: the recording as a v3 recording object (the
/// same keys xeno-canto sends, so ``PageDecoder`` and the offline catalog read it back unchanged), with `file`
/// naming the audio file beside it and `fetched` the time it was fetched (ISO 8601, UTC, injected).
public enum Sidecar {
    /// The sidecar's bytes. `audioFile` is the plain file name beside it (from ``FieldKitNaming``).
    public static func encode(_ recording: Recording, audioFile: String, fetched: Date) -> Data {
        let texts: [String: String] = [
            "id": recording.id, "gen": recording.genus, "sp": recording.species, "ssp": recording.subspecies,
            "grp": recording.group, "en": recording.englishName, "rec": recording.recordist,
            "cnt": recording.country, "loc": recording.locality, "lat": recording.latitude,
            "lon": recording.longitude, "alt": recording.altitude, "type": recording.soundType,
            "sex": recording.sex, "stage": recording.stage, "method": recording.method, "url": recording.pageURL,
            "file-name": recording.fileName, "lic": recording.licenceURL, "q": recording.quality,
            "length": recording.length, "date": recording.date, "time": recording.time,
            "uploaded": recording.uploaded, "rmk": recording.remarks,
            "smp": recording.sampleRate, "dvc": recording.device, "mic": recording.microphone,
            "animal-seen": recording.animalSeen, "playback-used": recording.playbackUsed,
            "file": audioFile, "licence": recording.licenceName, "attribution": Citation(recording).line,
            "fetched": iso8601(fetched),
        ]
        var object = texts.mapValues(Field.text)
        object["also"] = .list(recording.background)
        object["annotation-set"] = .annotations(recording.annotations.map(\.fields))
        // Sorted keys: the same recording always gives the same bytes (diffable, testable).
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return (try? encoder.encode(object)) ?? Data()
    }

    /// One value of a sidecar: every field is text but `also` (a list) and `annotation-set` (objects of text).
    enum Field: Encodable {
        case text(String)
        case list([String])
        case annotations([[String: String]])

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .list(let list): try container.encode(list)
            case .annotations(let annotations): try container.encode(annotations)
            }
        }
    }

    /// The recording and its `file` back from a sidecar; nil when it is not one.
    public static func decode(_ data: Data) -> (recording: Recording, file: String)? {
        guard let object = try? JSONValue.parse(data), case .string(let file)? = object["file"] else { return nil }
        let page = Data("{\"recordings\":[".utf8) + data + Data("]}".utf8)
        guard let recording = (try? PageDecoder.decode(page))?.recordings.first else { return nil }
        return (recording, file)
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
