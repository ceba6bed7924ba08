import ChirperCore
import Testing

@Suite("GUANO metadata: a bat detector's guan chunk")
struct GUANOMetadataTests {
    /// The example of the GUANO specification (a Pettersson D1000X, classified by SonoBat), with its blank lines.
    static let specification = """
        GUANO|Version:  1.0

        Timestamp:  2012-03-29T03:58:01+04:00
        Species Auto ID:  MYLU
        Species Manual ID:  Myosod
        Tags:  hand-release, voucher, workshop
        Note:  Hand release of male Indiana Bat.\\nReleased in low-clutter clearing.
        TE:  1
        Samplerate:  500000
        Length:  6.5
        Filter HP:  20.0
        Make:  Pettersson
        Model:  D1000X
        Loc Position:  37.1878016 -86.1057312
        Loc Accuracy:  20
        Loc Elevation:  228.6

        SB|Version:  3.4
        SB|Classifier:  US Northeast
        PET|Gain:  80
        PET|D500X|TSens: high
        """

    @Test("the specification's example: well-known fields typed, namespaced and unknown ones kept in order")
    func specificationExample() {
        let guano = GUANOMetadata(chunk: Array(Self.specification.utf8) + [0, 0, 0x20, 0])
        #expect(guano.version == "1.0")
        #expect(guano.timestamp?.description == "2012-03-29 03:58:01 UTC+04:00")
        #expect(guano.speciesAutoID == "MYLU")
        #expect(guano.speciesManualID == "Myosod")
        #expect(guano.note == "Hand release of male Indiana Bat.\nReleased in low-clutter clearing.")
        #expect(guano.timeExpansion == 1)
        #expect(guano.sampleRate == 500000)
        #expect(guano.length == 6.5)
        #expect(guano.make == "Pettersson" && guano.model == "D1000X")
        #expect(guano.position?.latitude == 37.1878016 && guano.position?.longitude == -86.1057312)
        #expect(guano.elevation == 228.6)
        #expect(guano["SB|Classifier"] == "US Northeast")
        #expect(guano["Filter HP"] == "20.0")
        let gain = guano.fields.first { $0.key == "Gain" }
        #expect(gain == GUANOMetadata.Field(namespace: "PET", key: "Gain", value: "80"))
        #expect(guano.fields.last == GUANOMetadata.Field(namespace: "PET", key: "D500X|TSens", value: "high"))
        #expect(guano.fields.count == 19)
    }

    @Test(
        "timestamps with and without a zone, a fraction, a space, or no seconds",
        arguments: [
            ("2025-06-12T05:30:00", "2025-06-12 05:30:00"),
            ("2025-06-12T05:30:00Z", "2025-06-12 05:30:00 UTC"),
            ("2025-06-12T05:30:00.123456-07:00", "2025-06-12 05:30:00 UTC-07:00"),
            ("2025-06-12 05:30:00+0530", "2025-06-12 05:30:00 UTC+05:30"),
            ("2025-06-12T05:30+02", "2025-06-12 05:30 UTC+02:00"),
            ("  2024-02-29T23:59:59.5Z ", "2024-02-29 23:59:59 UTC"),
        ])
    func timestamps(text: String, shown: String) {
        #expect(GUANOMetadata.parseTimestamp(text)?.description == shown)
    }

    @Test(
        "impossible or malformed timestamps are not read",
        arguments: [
            "2025-02-29T05:30:00", "2025-13-01T00:00:00", "2025-06-12T24:00:00", "2025-06-12T05:61:00",
            "2025-06-12", "12/06/2025 05:30", "2025-06-12T05:30:00+25:00", "2025-6-12T05:30:00", "",
            "2025-06-12T05:30:00.xZ", "2025-06-12T05:30:00+",
        ])
    func badTimestamps(text: String) {
        #expect(GUANOMetadata.parseTimestamp(text) == nil)
    }

    @Test("lines without a colon, empty keys and CRLF endings; a repeated key keeps its last value")
    func lenientLines() {
        let guano = GUANOMetadata(
            text: "Make: Wildlife Acoustics\r\ngarbage line\r\n: no key\r\nMake: Titley\r\n|Model: X")
        #expect(guano.make == "Titley")
        #expect(guano.fields.map(\.fullKey) == ["Make", "Make", "Model"])
        #expect(guano.model == "X")
    }

    @Test("keys and values trimmed of Unicode white space and NULs; a namespaced key found by its parts")
    func trimmingAndNamespaces() {
        let guano = GUANOMetadata(
            text: "\u{00A0}Make\t:\u{2003}Pettersson\0\r\n PET | Gain : 12 \nPET|Gain|Mode: high\nNote: a\rb")
        #expect(guano.make == "Pettersson")
        #expect(guano["PET|Gain"] == "12")
        #expect(guano["PET|Gain|Mode"] == "high")
        #expect(guano["Gain"] == nil)
        // A CR inside a line is the value's, not a line's end (guano-py splits on LF and CRLF).
        #expect(guano.note == "a\rb")
        #expect(guano.fields.map(\.fullKey) == ["Make", "PET|Gain", "PET|Gain|Mode", "Note"])
    }

    @Test("positions out of range, numbers that are not, and Latin-1 text")
    func badValues() {
        let guano = GUANOMetadata(text: "Loc Position: 95.0 10.0\nLoc Elevation: nan\nLength: -3\nSamplerate: 0x10")
        #expect(guano.position == nil)
        #expect(guano.elevation == nil)
        #expect(guano.length == nil)
        #expect(guano.sampleRate == nil)
        let latin1 = GUANOMetadata(chunk: Array("Model: ".utf8) + [0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72])
        #expect(latin1.model == "Müller")
        #expect(GUANOMetadata(chunk: [0xFF, 0xFE, 0x00]).fields.isEmpty)
    }
}

@Suite("Field recorder file names: the date and time in them")
struct FieldRecorderNameTests {
    @Test(
        "AudioMoth, Song Meter and prefixed names, seconds optional",
        arguments: [
            ("20250612_053000.WAV", "2025-06-12 05:30:00"),
            ("PREFIX_20250612_053000.wav", "2025-06-12 05:30:00"),
            ("S4A12345_20250612_053000.wav", "2025-06-12 05:30:00"),
            ("SMM01234_20250612_053000_000.wav", "2025-06-12 05:30:00"),
            ("20250612_053000T.WAV", "2025-06-12 05:30:00"),
            ("night/2025/20240229_2359.flac", "2024-02-29 23:59"),
            ("site-3-20250612T053000.wav", "2025-06-12 05:30:00"),
            ("12345678_20250612_053000.wav", "2025-06-12 05:30:00"),
        ])
    func names(name: String, shown: String) {
        #expect(FieldRecorderName.recordedTime(fromFileName: name)?.description == shown)
    }

    @Test(
        "names without a date, or with an impossible one, give none",
        arguments: [
            "ZOOM0001.WAV", "20250612.wav", "20250230_053000.wav", "20251301_053000.wav", "20250612_246000.wav",
            "20250612_056100.wav", "20250612_05300.wav", "120250612_053000.wav", "X20250612_053000.wav",
            "20250612_0530001.wav", "18000101_000000.wav", "",
        ])
    func noDate(name: String) {
        #expect(FieldRecorderName.recordedTime(fromFileName: name) == nil)
    }
}
