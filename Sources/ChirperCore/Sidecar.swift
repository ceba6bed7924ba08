import Foundation

/// `XC<id>.json`, written beside a saved or cached recording: the recording as a v3 recording object (the
/// same keys xeno-canto sends, so ``PageDecoder`` and the offline catalog read it back unchanged), with `file`
/// naming the audio file beside it and `fetched` the time it was fetched (ISO 8601, UTC, injected).
public enum Sidecar {
    /// The sidecar's bytes. `audioFile` is the plain file name beside it (from ``FieldKitNaming``).
    public static func encode(_ recording: Recording, audioFile: String, fetched: Date) -> Data {
        var object: [String: Any] = [
            "id": recording.id, "gen": recording.genus, "sp": recording.species, "ssp": recording.subspecies,
            "grp": recording.group, "en": recording.englishName, "rec": recording.recordist,
            "cnt": recording.country, "loc": recording.locality, "lat": recording.latitude,
            "lon": recording.longitude, "alt": recording.altitude, "type": recording.soundType,
            "sex": recording.sex, "stage": recording.stage, "method": recording.method, "url": recording.pageURL,
            "file-name": recording.fileName, "lic": recording.licenceURL, "q": recording.quality,
            "length": recording.length, "date": recording.date, "time": recording.time,
            "uploaded": recording.uploaded, "also": recording.background, "rmk": recording.remarks,
            "smp": recording.sampleRate, "dvc": recording.device, "mic": recording.microphone,
            "animal-seen": recording.animalSeen, "playback-used": recording.playbackUsed,
        ]
        object["annotation-set"] = recording.annotations.map(\.fields)
        object["file"] = audioFile
        object["licence"] = recording.licenceName
        object["attribution"] = Citation(recording).line
        object["fetched"] = iso8601(fetched)
        // Sorted keys: the same recording always gives the same bytes (diffable, testable).
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])) ?? Data()
    }

    /// The recording and its `file` back from a sidecar; nil when it is not one.
    public static func decode(_ data: Data) -> (recording: Recording, file: String)? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let file = object["file"] as? String
        else { return nil }
        let page = Data("{\"recordings\":[".utf8) + data + Data("]}".utf8)
        guard let recording = (try? PageDecoder.decode(page))?.recordings.first else { return nil }
        return (recording, file)
    }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
