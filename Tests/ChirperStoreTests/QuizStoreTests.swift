import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

@testable import ChirperStore

private func recording(_ id: Int, _ genus: String, _ species: String, _ english: String) -> Recording {
    Recording(
        id: String(id), genus: genus, species: species, englishName: english, recordist: "Rec \(id)",
        soundType: "song", pageURL: "https://xeno-canto.org/\(id)",
        licenceURL: "https://creativecommons.org/licenses/by/4.0/",
        audio: .playable(.remote("https://xeno-canto.org/\(id)/download")))
}

private let deck = try! QuizDeck.make(
    name: "gen:sylvia", family: nil,
    recordings: [
        recording(1, "Sylvia", "atricapilla", "Eurasian Blackcap"), recording(2, "Sylvia", "borin", "Garden Warbler"),
    ]
).get()

private let blackcap = QuizCard(species: "Sylvia atricapilla", sound: .song)
private let warbler = QuizCard(species: "Sylvia borin", sound: .song)

/// A folder removed at the end of the test.
private struct Scratch {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-store-\(UUID())").path
    var store: String { path + "/chirper-play/quiz.sqlite" }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

@Suite("The quiz store (SQLite, WAL)")
struct QuizStoreTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("answers and memories outlast the program: reopened, the deck's cards, confusions and stats are back")
    func reopen() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        do {
            let store = try QuizStore(path: scratch.store)
            #expect(try store.load(deck, at: start) == QuizProgress())
            let first = QuizAnswerRecord(
                deck: deck.name, card: blackcap, recording: "XC1", answered: "Sylvia borin", previous: nil)
            let missed = try store.keep(first, at: start)
            #expect(missed == first.memory(at: start))
            _ = try store.keep(
                QuizAnswerRecord(
                    deck: deck.name, card: warbler, recording: "XC2", answered: "Sylvia borin", previous: nil),
                at: start + 5)
        }
        let store = try QuizStore(path: scratch.store)
        let progress = try store.load(deck, at: start + 60)
        #expect(progress.memories.count == 2)
        #expect(progress.memories[blackcap]?.due == start + SpacedRepetition.relearningStep)
        #expect(progress.confusions == ["Sylvia atricapilla": ["Sylvia borin": 1]])
        let stats = try store.stats(at: start + 3600)
        #expect(stats.answered == 2 && stats.right == 1 && stats.due == 1)
        #expect(stats.confusions.first?.times == 1)
        #expect(stats.species.map(\.englishName) == ["Eurasian Blackcap", "Garden Warbler"])
        let rows = try store.exportRows()
        #expect(rows.count == 2 && rows[0][6] == "XC1" && rows[0][9] == "Rec 1")
        #expect(rows[0][8] == "https://xeno-canto.org/1/download")
    }

    @Test("a file that is not a database is refused in one line naming it, and nothing is overwritten")
    func damaged() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(
            atPath: (scratch.store as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let junk = Data(repeating: 0x5A, count: 8192)
        try junk.write(to: URL(fileURLWithPath: scratch.store))
        #expect {
            _ = try QuizStore(path: scratch.store)
        } throws: { error in
            let message = (error as? StoreError)?.userMessage ?? ""
            return message.contains(scratch.store) && message.contains("damaged") && !message.contains("\n")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.store)) == junk)
    }

    @Test("a store another program holds is refused after the busy timeout, and works once it lets go")
    func locked() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let store = try QuizStore(path: scratch.store, busyTimeout: 50)
        _ = try store.load(deck, at: start)
        let other = try SQLiteDatabase(path: scratch.store, busyTimeout: 50)
        try other.execute("BEGIN EXCLUSIVE")
        let answer = QuizAnswerRecord(deck: deck.name, card: blackcap, recording: "XC1", answered: nil, previous: nil)
        #expect {
            _ = try store.keep(answer, at: start)
        } throws: { error in
            (error as? StoreError)?.userMessage.contains("locked by another program") == true
        }
        try other.execute("ROLLBACK")
        #expect(try store.keep(answer, at: start).reviews == 1)
    }

    @Test("an answer builds on the card as stored: a second program's answer is not overwritten")
    func twoPrograms() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let first = try QuizStore(path: scratch.store)
        let second = try QuizStore(path: scratch.store)
        _ = try first.load(deck, at: start)
        let right = QuizAnswerRecord(
            deck: deck.name, card: blackcap, recording: "XC1", answered: "Sylvia atricapilla", previous: nil)
        let once = try first.keep(right, at: start)
        // The second program loaded before the first answered: its copy says the card is new.
        let twice = try second.keep(right, at: start + 86_400 * 3)
        #expect(twice.reviews == 2 && twice.stability > once.stability)
        #expect(try first.load(deck, at: start).memories[blackcap] == twice)
    }
}
