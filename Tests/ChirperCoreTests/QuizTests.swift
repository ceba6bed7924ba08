import ChirperCore
import Foundation
import Testing

private func recording(_ id: Int, _ genus: String, _ species: String, _ english: String, type: String = "song")
    -> Recording
{
    Recording(
        id: String(id), genus: genus, species: species, englishName: english, soundType: type,
        audio: .playable(.remote("https://xeno-canto.org/\(id)/download")))
}

private let warblers = [
    recording(1, "Sylvia", "atricapilla", "Eurasian Blackcap"),
    recording(2, "Sylvia", "borin", "Garden Warbler"),
    recording(3, "Sylvia", "communis", "Common Whitethroat", type: "call, alarm call"),
    recording(4, "Curruca", "curruca", "Lesser Whitethroat"),
    recording(5, "Curruca", "melanocephala", "Sardinian Warbler"),
    recording(6, "Phylloscopus", "collybita", "Common Chiffchaff", type: "drumming"),
]

@Suite("Spaced repetition (FSRS-4.5)")
struct SpacedRepetitionTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a first answer wrong is due in ten minutes, right in days; rights in a row space out further")
    func intervals() {
        let wrong = SpacedRepetition.review(nil, grade: .again, at: start)
        let right = SpacedRepetition.review(nil, grade: .good, at: start)
        #expect(wrong.due.timeIntervalSince(start) == SpacedRepetition.relearningStep)
        #expect(right.due.timeIntervalSince(start) >= 3 * 86_400)
        #expect(wrong.lapses == 0 && right.lapses == 0, "a first answer is not a lapse")
        let again = SpacedRepetition.review(right, grade: .good, at: right.due)
        #expect(again.stability > right.stability * 2)
        #expect(again.due.timeIntervalSince(right.due) > right.due.timeIntervalSince(start))
    }

    @Test("a miss lowers stability and raises difficulty; the chance of recall is 90 % at the stability")
    func lapse() {
        let right = SpacedRepetition.review(nil, grade: .good, at: start)
        let missed = SpacedRepetition.review(right, grade: .again, at: right.due)
        #expect(missed.stability < right.stability)
        #expect(missed.lapses == 1)
        #expect(missed.difficulty > right.difficulty)
        #expect(abs(SpacedRepetition.retrievability(elapsedDays: 7, stability: 7) - 0.9) < 1e-9)
    }
}

@Suite("Quiz decks, answers and export")
struct QuizDeckTests {
    @Test("a deck keeps playable rows with a species, by species, with a card per sound type")
    func deck() throws {
        let restricted = Recording(id: "9", genus: "Strix", species: "aluco", englishName: "Tawny Owl")
        let deck = try QuizDeck.make(name: "fam:sylviidae", family: "sylviidae", recordings: warblers + [restricted])
            .get()
        #expect(deck.species.count == 6 && deck.recordingCount == 6)
        #expect(deck.species.first?.scientificName == "Curruca curruca")
        #expect(deck.cards.contains(QuizCard(species: "Sylvia communis", sound: .call)))
        #expect(deck.cards.contains(QuizCard(species: "Phylloscopus collybita", sound: .other)))
        #expect(deck.species(named: "Strix aluco") == nil)
    }

    @Test("an empty deck, a deck of restricted rows and one of one species are refused with what to do")
    func refusals() {
        #expect(QuizDeck.make(name: "saved", family: nil, recordings: []) == .failure(.empty("saved")))
        let restricted = Recording(id: "9", genus: "Strix", species: "aluco")
        #expect(QuizDeck.make(name: "q", family: nil, recordings: [restricted]) == .failure(.onlyRestricted(1)))
        #expect(
            QuizDeck.make(name: "q", family: nil, recordings: [warblers[0]])
                == .failure(.oneSpecies("Eurasian Blackcap")))
        #expect(QuizDeck.Refusal.empty("saved").description.contains("save some first"))
    }

    @Test("distractors come from the genus first, then the family's deck, then the species confused most")
    func distractors() throws {
        var random = SeededRandom(seed: 1)
        let family = try QuizDeck.make(name: "fam:sylviidae", family: "sylviidae", recordings: warblers).get()
        for _ in 0..<20 {
            let chosen = family.distractors(for: "Sylvia borin", count: 3, confusions: [:], using: &random)
            #expect(chosen.count == 3)
            #expect(Set(chosen.prefix(2).map(\.scientificName)) == ["Sylvia atricapilla", "Sylvia communis"])
        }
        // No family known: after the genus, the species this learner confused with it most.
        let mixed = try QuizDeck.make(name: "cnt:spain", family: nil, recordings: warblers).get()
        let confused = mixed.distractors(
            for: "Curruca curruca", count: 2, confusions: ["Phylloscopus collybita": 3, "Sylvia borin": 1],
            using: &random)
        #expect(confused.map(\.scientificName) == ["Curruca melanocephala", "Phylloscopus collybita"])
    }

    @Test("an answer is a choice's number, or a name matched forgivingly; else the closest names")
    func answers() throws {
        let deck = try QuizDeck.make(name: "q", family: nil, recordings: warblers).get()
        let choices = Array(deck.species.prefix(4))
        #expect(QuizAnswer.match("2", choices: choices, deck: deck) == .species(choices[1].scientificName))
        #expect(QuizAnswer.match("5", choices: choices, deck: deck) == .outOfRange(5, choices: 4))
        #expect(QuizAnswer.match("garden warbler", choices: [], deck: deck) == .species("Sylvia borin"))
        #expect(QuizAnswer.match("SYLVIA  ATRICAPILLA", choices: [], deck: deck) == .species("Sylvia atricapilla"))
        #expect(QuizAnswer.match("Comon Chifchaff", choices: [], deck: deck) == .species("Phylloscopus collybita"))
        guard case .unknown(let closest) = QuizAnswer.match("whitethroat", choices: [], deck: deck) else {
            Issue.record("an unknown name was matched")
            return
        }
        #expect(closest.count == 3 && closest.contains("Common Whitethroat"))
    }

    @Test("quiz commands parse their flags; bad values say what to type")
    func parsing() throws {
        #expect(
            try QuizRequest.parse("cnt:spain q:A --mode typed --questions 10 --seed 7")
                == .start(
                    .query(try SearchQuery.parse("cnt:spain q:A")),
                    QuizSettings(mode: .typed, choices: 4, questions: 10, seed: 7)))
        #expect(try QuizRequest.parse("saved") == .start(.saved, QuizSettings()))
        #expect(try QuizRequest.parse("saved --auto --seed 2") == .start(.saved, QuizSettings(seed: 2, auto: true)))
        #expect(try QuizRequest.parse("export my cards.csv") == .export(path: "my cards.csv"))
        #expect(QuizOrigin.query(try SearchQuery.parse("fam:sylviidae")).family == "sylviidae")
        for bad in ["", "x --choices 9", "x --mode sound", "x --seed -1", "x --frobnicate 1"] {
            #expect(throws: CommandError.self) { try QuizRequest.parse(bad) }
        }
    }

    @Test("the CSV export quotes what needs it and defuses spreadsheet formulas from the API")
    func csv() {
        let text = QuizExport.csv([
            ["q", "Sylvia borin", "=HYPERLINK(\"x\")", "song", "", "0", "XC1", "", "", "A, B", ""]
        ])
        let lines = text.split(separator: "\r\n")
        #expect(lines[0] == "deck,species,english_name,sound,due,reviews,recording,page,audio,recordist,licence")
        #expect(lines[1] == #"q,Sylvia borin,"'=HYPERLINK(""x"")",song,,0,XC1,,,"A, B","#)
    }
}
