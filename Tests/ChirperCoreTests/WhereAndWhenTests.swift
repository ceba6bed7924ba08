import Testing

@testable import ChirperCore

private let dunnock = Species(scientific: "Prunella modularis", english: "Dunnock")
private let wren = Species(scientific: "Troglodytes troglodytes", english: "Eurasian Wren")
private let cardinal = Species(scientific: "Cardinalis cardinalis", english: "Northern Cardinal")

/// A Dunnock and a Wren in the first segment, a Cardinal (an American bird) in the second.
private func heard(_ placeCheck: PlaceCheck) -> Identification {
    Identification(
        model: "BirdNET 2.4",
        segments: [
            SegmentDetections(
                start: 0, end: 3,
                detections: [Detection(species: dunnock, confidence: 0.9), Detection(species: wren, confidence: 0.4)]),
            SegmentDetections(start: 3, end: 6, detections: [Detection(species: cardinal, confidence: 0.7)]),
        ], placeCheck: placeCheck)
}

private let asturias = RecordingPlace(latitude: 43.36, longitude: -5.85, week: 14)
private let european = PlaceCheck.judged(
    ExpectedSpecies(source: .place(asturias), scientificNames: ["Prunella modularis", "Troglodytes troglodytes"]))
private let recording = Recording(
    id: "34430", genus: "Prunella", species: "modularis", englishName: "Dunnock", latitude: "43.36",
    longitude: "-5.85", length: "1:10", date: "2009-04-12", audio: .restricted)

@Suite("identify's where and when: BirdNET's week, the place of a row, the species list, and the unexpected marked")
struct WhereAndWhenTests {
    @Test("BirdNET's week is the day of the year as a share of 48, rounded up, as birdnetlib computes it")
    func week() {
        // birdnetlib's return_week_48_from_datetime: ceil(day_of_year / days_in_year * 48).
        #expect(RecordingPlace.week(year: 2023, month: 1, day: 1) == 1)
        #expect(RecordingPlace.week(year: 2009, month: 4, day: 12) == 14)
        #expect(RecordingPlace.week(year: 2023, month: 5, day: 10) == 18)
        #expect(RecordingPlace.week(year: 2024, month: 3, day: 1) == 8)
        #expect(RecordingPlace.week(year: 2023, month: 3, day: 1) == 8)
        #expect(RecordingPlace.week(year: 2023, month: 12, day: 31) == 48)
        #expect(RecordingPlace.week(year: 2024, month: 12, day: 31) == 48)
    }

    @Test("an archive row gives its place and week; a day the archive does not know is the month's middle")
    func archivePlace() {
        #expect(RecordingPlace(recording: recording) == asturias)
        var unknownDay = recording
        unknownDay.date = "2009-04-00"
        #expect(RecordingPlace(recording: unknownDay)?.week == RecordingPlace.week(year: 2009, month: 4, day: 15))
        var undated = recording
        undated.date = "0000-00-00"
        #expect(RecordingPlace(recording: undated) == RecordingPlace(latitude: 43.36, longitude: -5.85, week: nil))
        var nowhere = recording
        nowhere.latitude = ""
        #expect(RecordingPlace(recording: nowhere) == nil)
        nowhere.latitude = "91"
        #expect(RecordingPlace(recording: nowhere) == nil)
        #expect(asturias.modelInput == [43.36, -5.85, 14])
        #expect(RecordingPlace(latitude: 1, longitude: 2, week: nil).modelInput == [1, 2, -1])
    }

    @Test("an own file's modification time is not when it was recorded: its place is judged for the whole year")
    func ownFileWithoutDate() {
        let header = AudioFileFormats.mp3(frame: nil, at: 0, fileSize: 0)
        var file = Recording(ownFile: "/field/pond.wav", header: header, modified: 1_700_000_000)
        file.latitude = "52.1"
        file.longitude = "5.2"
        #expect(file.ownFile?.dateSource == .modified && !file.date.isEmpty)
        #expect(RecordingPlace(recording: file) == RecordingPlace(latitude: 52.1, longitude: 5.2, week: nil))
    }

    @Test("a species list in BirdNET's format: names it, says the names BirdNET has not, and refuses a bad file")
    func speciesList() throws {
        let classes = [dunnock, wren, cardinal]
        let list = try BirdNET.speciesList(
            "Prunella modularis_Dunnock\r\n\nTroglodytes troglodytes\nPasser italiae_Italian Sparrow\n",
            path: "patch.txt", classes: classes)
        #expect(list.names == ["Prunella modularis", "Troglodytes troglodytes"])
        #expect(list.unknown == ["Passer italiae"])
        #expect(throws: SpeciesListError(path: "p.txt", line: 2, problem: "no scientific name before the `_`")) {
            try BirdNET.speciesList("Prunella modularis\n_Dunnock\n", path: "p.txt", classes: classes)
        }
        #expect(throws: SpeciesListError(path: "p.txt", line: nil, problem: "none of its 1 names is BirdNET's")) {
            try BirdNET.speciesList("Passer italiae\n", path: "p.txt", classes: classes)
        }
        #expect(throws: SpeciesListError(path: "p.txt", line: nil, problem: "it names no species")) {
            try BirdNET.speciesList("\n\n", path: "p.txt", classes: classes)
        }
        let missing = SpeciesListError(
            path: "p.txt", line: nil, problem: "there is no such file", isAboutTheText: false)
        #expect(missing.userMessage == "cannot use the species list p.txt: there is no such file")
        let control = SpeciesListError(path: "p\u{1B}[2J.txt", line: 1, problem: "a control character")
        #expect(!control.userMessage.contains("\u{1B}"))
        #expect(throws: control) {
            try BirdNET.speciesList("Prunella\u{1B}[2J modularis\n", path: "p\u{1B}[2J.txt", classes: classes)
        }
    }

    @Test("in a pipe the unexpected are marked expected=no, left out of the summary, counted, and the place said")
    func pipeMarksTheUnexpected() {
        let presenter = Presenter(style: .script, width: 80, sourceName: "xeno-canto")
        let lines = presenter.identification(heard(european), of: recording, span: nil)
        #expect(
            lines.contains(
                #"identify: XC34430 start=0.0 end=3.0 sci="Prunella modularis" en="Dunnock" confidence=0.900"#))
        #expect(
            lines.contains(
                #"identify: XC34430 start=3.0 end=6.0 sci="Cardinalis cardinalis" en="Northern Cardinal" confidence=0.700 expected=no"#
            ))
        #expect(lines.filter { $0.hasPrefix("identify: species ") }.count == 2)
        #expect(!lines.contains { $0.hasPrefix("identify: species ") && $0.contains("Cardinalis") })
        #expect(
            lines.contains(
                "identify: place XC34430 source=meta-model lat=43.3600 lon=-5.8500 week=14 threshold=0.03 expected=2"))
        #expect(
            lines.last
                == #"identify: done XC34430 segments=2 detections=3 unexpected=1 model="BirdNET 2.4" credit="\#(Presenter.birdNETCredit)""#
        )

        let all = presenter.identification(heard(european), of: recording, span: nil, all: true)
        #expect(
            all.contains(
                #"identify: species XC34430 sci="Cardinalis cardinalis" en="Northern Cardinal" best=0.700 segments=1 first=3.0 last=3.0 expected=no"#
            ))
        #expect(all.last == lines.last)

        let nowhere = presenter.identification(heard(.noPlace), of: recording, span: nil)
        #expect(!nowhere.contains { $0.contains("expected=no") })
        #expect(nowhere.contains("identify: place XC34430 source=none"))
        #expect(nowhere.last?.contains("unexpected=0") == true)

        let broken = presenter.identification(heard(.unavailable("no location model")), of: recording, span: nil)
        #expect(broken.contains(#"identify: place XC34430 source=unavailable reason="no location model""#))
    }

    @Test("a species list judges instead of the place, and its names that are not BirdNET's are said")
    func listJudges() {
        let list = PlaceCheck.judged(
            ExpectedSpecies(
                source: .list(path: "patch.txt", unknown: ["Passer italiae"]), scientificNames: ["prunella modularis"]))
        let pipe = Presenter(style: .script, width: 80, sourceName: "xeno-canto")
            .identification(heard(list), of: recording, span: nil)
        #expect(pipe.contains(#"identify: place XC34430 source=list file="patch.txt" expected=1 not_birdnet=1"#))
        #expect(pipe.last?.contains("unexpected=2") == true)
        let terminal = Presenter(style: .terminal(color: false), width: 80, sourceName: "xeno-canto")
            .identification(heard(list), of: recording, span: nil)
        let said = terminal.joined(separator: " ")
        #expect(said.contains("the list patch.txt names 1 species"), "\(terminal)")
        #expect(said.contains("Passer italiae"), "\(terminal)")
        #expect(said.contains("2 heard are not"), "\(terminal)")
    }

    @Test("on an 80-column terminal the unexpected are dimmed and named once, and the summary leaves them out")
    func terminalDimsTheUnexpected() {
        let presenter = Presenter(style: .terminal(color: true), width: 80, sourceName: "xeno-canto")
        let lines = presenter.identification(heard(european), of: recording, span: nil)
        #expect(lines.contains { $0.contains("\u{1B}[2mNorthern Cardinal 0.70\u{1B}[0m") }, "\(lines)")
        let plain = Presenter(style: .terminal(color: false), width: 80, sourceName: "xeno-canto")
            .identification(heard(european), of: recording, span: nil)
        #expect(plain.allSatisfy { $0.count < 80 }, "\(plain.filter { $0.count >= 80 })")
        let summary = plain.drop { !$0.contains("species, best confidence") }.dropFirst().prefix { $0.hasPrefix("  ") }
        #expect(summary.contains { $0.contains("Dunnock") } && !summary.contains { $0.contains("Cardinal") })
        let said = plain.joined(separator: " ")
        #expect(said.contains("at 43.36, -5.85 in week 14 of 48, BirdNET expects 2 species"), "\(plain)")
        #expect(said.contains("1 heard are not"), "\(plain)")
        #expect(said.contains("--all lists them"), "\(plain)")
        #expect(said.contains("Northern Cardinal"))

        let onlyUnexpected = Identification(
            model: "BirdNET 2.4",
            segments: [
                SegmentDetections(start: 0, end: 3, detections: [Detection(species: cardinal, confidence: 0.7)])
            ],
            placeCheck: european)
        let nothing = Presenter(style: .terminal(color: false), width: 80, sourceName: "xeno-canto")
            .identification(onlyUnexpected, of: recording, span: nil)
        #expect(nothing.contains("  only species not expected there and then were heard (identify --all lists them)"))

        let nowhere = Presenter(style: .terminal(color: false), width: 80, sourceName: "xeno-canto")
            .identification(heard(.noPlace), of: recording, span: nil)
        #expect(nowhere.joined(separator: " ").contains("no place or date for this recording"), "\(nowhere)")
    }

    @Test("--all and --species-list parse, and their mistakes are one line each")
    func parses() throws {
        #expect(
            try IdentifyRequest.parse("2 --all --species-list ~/patch.txt")
                == IdentifyRequest(
                    target: .row(2, nil), options: IdentifyOptions(all: true, speciesList: "~/patch.txt")))
        #expect(throws: CommandError("--species-list needs a file, e.g. --species-list my-patch.txt")) {
            try IdentifyRequest.parse("1 --species-list")
        }
        #expect(throws: CommandError("--species-list needs a file, e.g. --species-list my-patch.txt")) {
            try IdentifyRequest.parse("1 --species-list --all")
        }
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("1 --everything") }
        #expect(throws: CommandError.self) { try IdentifyRequest.parse("1 --overlap") }
    }

    @Test("in --json the place line is an object with its fields")
    func json() {
        #expect(
            JSONLines.object(
                for: "identify: place XC1 source=meta-model lat=43.3600 lon=-5.8500 week=14 threshold=0.03 expected=2")
                == #"{"type":"identify","event":"place","id":"XC1","xc":1,"source":"meta-model","lat":43.3600,"lon":-5.8500,"week":14,"threshold":0.03,"expected":2}"#
        )
    }
}
