/// Up to `capacity` rows of a listing, kept compactly: every distinct text of the rows (a field's value, the
/// audio's address) once, as UTF-8 in one buffer, and per row a table of which text each field holds.
///
/// A `Recording` holds 31 strings: 16 bytes each, plus a heap allocation for every one longer than 15 bytes.
/// The rows of one search share most of their values (genus, species, group, country, licence, sound type,
/// device, quality, date…), and a text in one buffer costs its bytes and 4 more, so a long list costs a fraction
/// of its rows as `Recording`s (BENCH.md, figure 6f). A row is rebuilt as a `Recording` when it is read, which costs some 30 small
/// strings: a row shown, played or cited, not a row kept.
struct PackedRows: Sendable, Hashable {
    /// Rows per pack: the indices of its distinct texts (at most `capacity` × 31 of them) fit in 16 bits.
    static let capacity = 2000

    /// The distinct texts, end to end.
    private var bytes: [UInt8] = []
    /// Where each distinct text ends in `bytes` (it starts where the one before it ends).
    private var ends: [UInt32] = []
    /// Per row, `Slot.count` indices into `ends`.
    private var slots: [UInt16] = []
    /// Per row, which kind of `AudioAvailability` it has (its text is in the `.audio` slot).
    private var audioKinds: [AudioKind] = []
    /// The rows whose lists are not empty (most have none), by row.
    private var backgrounds: [Int: [String]] = [:]
    private var annotations: [Int: [Annotation]] = [:]
    /// The rows that are files of the user's own, by row.
    private var ownFiles: [Int: OwnFile] = [:]

    var count: Int { audioKinds.count }

    /// Packs `rows` (at most `capacity`).
    init(_ rows: some Collection<Recording>) {
        precondition(rows.count <= Self.capacity, "too many rows for one pack")
        var index: [String: UInt16] = [:]
        slots.reserveCapacity(rows.count * Slot.count)
        audioKinds.reserveCapacity(rows.count)
        // Text 0 is the empty one, which most rows have in most slots (a file of one's own in two of three):
        // told without hashing it.
        ends.append(0)
        for (row, recording) in rows.enumerated() {
            let (kind, audioText) = AudioKind.split(recording.audio)
            for slot in Slot.allCases {
                let text = slot.text(of: recording, audio: audioText)
                if text.isEmpty {
                    slots.append(0)
                    continue
                }
                if let known = index[text] {
                    slots.append(known)
                    continue
                }
                let new = UInt16(ends.count)
                bytes += text.utf8
                ends.append(UInt32(bytes.count))
                index[text] = new
                slots.append(new)
            }
            audioKinds.append(kind)
            if !recording.background.isEmpty { backgrounds[row] = recording.background }
            if !recording.annotations.isEmpty { annotations[row] = recording.annotations }
            if let file = recording.ownFile { ownFiles[row] = file }
        }
        // Grown by appending, they may have twice the room they need: keep what they hold.
        bytes = bytes.exactCopy()
        ends = ends.exactCopy()
    }

    subscript(row: Int) -> Recording {
        let base = row * Slot.count
        func text(_ slot: Slot) -> String {
            let index = Int(slots[base + slot.rawValue])
            // The empty text, which most slots of most rows hold, is told without decoding anything.
            guard index != 0 else { return "" }
            let start = Int(ends[index - 1])
            return bytes.withUnsafeBufferPointer { buffer in
                String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<Int(ends[index])]), as: UTF8.self)
            }
        }
        return Recording(
            id: text(.id), genus: text(.genus), species: text(.species), subspecies: text(.subspecies),
            group: text(.group), englishName: text(.englishName), recordist: text(.recordist),
            country: text(.country), locality: text(.locality), latitude: text(.latitude),
            longitude: text(.longitude), altitude: text(.altitude), soundType: text(.soundType), sex: text(.sex),
            stage: text(.stage), method: text(.method), pageURL: text(.pageURL), fileName: text(.fileName),
            licenceURL: text(.licenceURL), quality: text(.quality), length: text(.length), date: text(.date),
            time: text(.time), uploaded: text(.uploaded), background: backgrounds[row] ?? [],
            remarks: text(.remarks), sampleRate: text(.sampleRate), device: text(.device),
            microphone: text(.microphone), animalSeen: text(.animalSeen), playbackUsed: text(.playbackUsed),
            audio: audioKinds[row].joined(with: text(.audio)), annotations: annotations[row] ?? [],
            ownFile: ownFiles[row])
    }

    /// A row's texts, in the order the table keeps them.
    private enum Slot: Int, CaseIterable {
        case id, genus, species, subspecies, group, englishName, recordist, country, locality, latitude
        case longitude, altitude, soundType, sex, stage, method, pageURL, fileName, licenceURL, quality, length
        case date, time, uploaded, remarks, sampleRate, device, microphone, animalSeen, playbackUsed, audio

        static let count = allCases.count

        /// This slot's text of `r` (`audio`: the text of its `AudioAvailability`).
        func text(of r: Recording, audio: String) -> String {
            switch self {
            case .id: r.id
            case .genus: r.genus
            case .species: r.species
            case .subspecies: r.subspecies
            case .group: r.group
            case .englishName: r.englishName
            case .recordist: r.recordist
            case .country: r.country
            case .locality: r.locality
            case .latitude: r.latitude
            case .longitude: r.longitude
            case .altitude: r.altitude
            case .soundType: r.soundType
            case .sex: r.sex
            case .stage: r.stage
            case .method: r.method
            case .pageURL: r.pageURL
            case .fileName: r.fileName
            case .licenceURL: r.licenceURL
            case .quality: r.quality
            case .length: r.length
            case .date: r.date
            case .time: r.time
            case .uploaded: r.uploaded
            case .remarks: r.remarks
            case .sampleRate: r.sampleRate
            case .device: r.device
            case .microphone: r.microphone
            case .animalSeen: r.animalSeen
            case .playbackUsed: r.playbackUsed
            case .audio: audio
            }
        }
    }

    /// `AudioAvailability` without its text.
    private enum AudioKind: UInt8, Sendable, Hashable {
        case remote, local, restricted, refused

        static func split(_ audio: AudioAvailability) -> (AudioKind, String) {
            switch audio {
            case .playable(.remote(let url)): (.remote, url)
            case .playable(.local(let path)): (.local, path)
            case .restricted: (.restricted, "")
            case .refused(let reason): (.refused, reason)
            }
        }

        func joined(with text: String) -> AudioAvailability {
            switch self {
            case .remote: .playable(.remote(text))
            case .local: .playable(.local(path: text))
            case .restricted: .restricted
            case .refused: .refused(text)
            }
        }
    }
}

extension Array where Element: BitwiseCopyable {
    /// The same elements in a buffer of exactly their size.
    fileprivate func exactCopy() -> [Element] {
        [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            _ = withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
            initialized = count
        }
    }
}
