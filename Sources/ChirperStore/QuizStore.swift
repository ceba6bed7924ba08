import ChirperCore
import FoundationEssentials
import Synchronization

/// The quiz's progress on disk: decks, their recordings, each card's memory and every answer, in one SQLite
/// file (`$XDG_DATA_HOME/chirper-play/quiz.sqlite`). Each answer is one transaction (the answer and the
/// card's new memory together), so a program killed at any moment loses at most the answer being given.
public final class QuizStore: @unchecked Sendable {
    // @unchecked: the connection is opened with SQLITE_OPEN_FULLMUTEX (SQLite serialises its use), and `lock`
    // keeps each method's statements together.
    private let database: SQLiteDatabase
    private let lock = Mutex(())

    /// The schema's version (`PRAGMA user_version`); a newer file is refused rather than misread.
    static let schemaVersion = 1

    /// `$XDG_DATA_HOME/chirper-play/quiz.sqlite`, or `~/.local/share/chirper-play/quiz.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base: String
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = data
        } else {
            base = (environment["HOME"] ?? PathText.homeDirectory) + "/.local/share"
        }
        return base + "/chirper-play/quiz.sqlite"
    }

    /// Opens (or creates) the store at `path`, creating its folder. `busyTimeout`: milliseconds a statement
    /// waits for another program holding the store before it is refused.
    public init(path: String, busyTimeout: Int32 = 2000) throws(StoreError) {
        let folder = PathText.folder(of: path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(code: 14, message: "the quiz store's folder \(folder) cannot be made")
        }
        database = try SQLiteDatabase(path: path, busyTimeout: busyTimeout)
        try migrate()
    }

    private func migrate() throws(StoreError) {
        let version = try database.query("PRAGMA user_version").first?.first?.int ?? 0
        guard version <= Self.schemaVersion else {
            throw StoreError(
                code: 26,
                message:
                    "the quiz store \(database.path) was written by a newer chirper-play (schema \(version)); update it"
            )
        }
        guard version < Self.schemaVersion else { return }
        try database.transaction { () throws(StoreError) in
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS decks(name TEXT PRIMARY KEY, created REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS recordings(
                    deck TEXT NOT NULL, label TEXT NOT NULL, species TEXT NOT NULL, english TEXT NOT NULL,
                    sound TEXT NOT NULL, recordist TEXT NOT NULL, licence TEXT NOT NULL, page TEXT NOT NULL,
                    audio TEXT NOT NULL, PRIMARY KEY(deck, label));
                CREATE TABLE IF NOT EXISTS cards(
                    deck TEXT NOT NULL, species TEXT NOT NULL, sound TEXT NOT NULL, stability REAL NOT NULL,
                    difficulty REAL NOT NULL, due REAL NOT NULL, last_review REAL NOT NULL,
                    reviews INTEGER NOT NULL, lapses INTEGER NOT NULL, PRIMARY KEY(deck, species, sound));
                CREATE TABLE IF NOT EXISTS answers(
                    id INTEGER PRIMARY KEY, at REAL NOT NULL, deck TEXT NOT NULL, species TEXT NOT NULL,
                    sound TEXT NOT NULL, recording TEXT NOT NULL, answered TEXT, right INTEGER NOT NULL);
                CREATE INDEX IF NOT EXISTS answers_by_species ON answers(deck, species);
                PRAGMA user_version = \(Self.schemaVersion);
                """)
        }
    }

    /// Remembers `deck` and its recordings; returns what is known of its cards.
    public func load(_ deck: QuizDeck, at now: Date) throws(StoreError) -> QuizProgress {
        try locked { () throws(StoreError) -> QuizProgress in
            try database.transaction { () throws(StoreError) in
                try database.query(
                    "INSERT OR IGNORE INTO decks(name, created) VALUES(?, ?)",
                    [.text(deck.name), .real(now.timeIntervalSince1970)])
                for species in deck.species {
                    for recording in species.recordings {
                        try database.query(
                            "INSERT OR REPLACE INTO recordings VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            [
                                .text(deck.name), .text(recording.label), .text(species.scientificName),
                                .text(recording.englishName), .text(QuizCard.Sound(recording.soundType).rawValue),
                                .text(recording.recordist), .text(recording.licenceURL), .text(recording.pageURL),
                                .text(Self.audioReference(recording)),
                            ])
                    }
                }
            }
            var progress = QuizProgress()
            for row in try database.query(
                "SELECT species, sound, stability, difficulty, due, last_review, reviews, lapses FROM cards WHERE deck = ?",
                [.text(deck.name)])
            {
                guard let sound = QuizCard.Sound(rawValue: row[1].string) else { continue }
                progress.memories[QuizCard(species: row[0].string, sound: sound)] = Self.memory(Array(row.dropFirst(2)))
            }
            for row in try database.query(
                """
                SELECT species, answered, COUNT(*) FROM answers
                WHERE deck = ? AND answered IS NOT NULL AND answered != species GROUP BY species, answered
                """, [.text(deck.name)])
            {
                progress.confusions[row[0].string, default: [:]][row[1].string] = row[2].int ?? 0
            }
            return progress
        }
    }

    /// Keeps `answer` and the card's memory after it, in one transaction; returns that memory.
    public func keep(_ answer: QuizAnswerRecord, at now: Date) throws(StoreError) -> CardMemory {
        try locked { () throws(StoreError) -> CardMemory in
            try database.transaction { () throws(StoreError) -> CardMemory in
                // The card as stored, not as the session last read it: another session (or a load that
                // failed) must not make an answer overwrite newer progress.
                var record = answer
                if let stored = try memory(of: answer.card, in: answer.deck) { record.previous = stored }
                let memory = record.memory(at: now)
                try database.query(
                    "INSERT INTO answers(at, deck, species, sound, recording, answered, right) VALUES(?, ?, ?, ?, ?, ?, ?)",
                    [
                        .real(now.timeIntervalSince1970), .text(answer.deck), .text(answer.card.species),
                        .text(answer.card.sound.rawValue), .text(answer.recording),
                        answer.answered.map { .text($0) } ?? .null, .integer(answer.right ? 1 : 0),
                    ])
                try database.query(
                    "INSERT OR REPLACE INTO cards VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        .text(answer.deck), .text(answer.card.species), .text(answer.card.sound.rawValue),
                        .real(memory.stability), .real(memory.difficulty), .real(memory.due.timeIntervalSince1970),
                        .real(memory.lastReview.timeIntervalSince1970), .integer(Int64(memory.reviews)),
                        .integer(Int64(memory.lapses)),
                    ])
                return memory
            }
        }
    }

    /// The stored memory of `card` in `deck`, if it was ever answered.
    private func memory(of card: QuizCard, in deck: String) throws(StoreError) -> CardMemory? {
        try database.query(
            "SELECT stability, difficulty, due, last_review, reviews, lapses FROM cards WHERE deck = ? AND species = ? AND sound = ?",
            [.text(deck), .text(card.species), .text(card.sound.rawValue)]
        ).first.map(Self.memory)
    }

    /// A memory from the columns stability, difficulty, due, last_review, reviews, lapses.
    private static func memory(_ row: [SQLiteValue]) -> CardMemory {
        CardMemory(
            stability: row[0].double.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 1,
            difficulty: row[1].double.flatMap { $0.isFinite ? min(10, max(1, $0)) : nil } ?? 5,
            due: Date(timeIntervalSince1970: row[2].double.flatMap { $0.isFinite ? $0 : nil } ?? 0),
            lastReview: Date(timeIntervalSince1970: row[3].double.flatMap { $0.isFinite ? $0 : nil } ?? 0),
            reviews: row[4].int ?? 0, lapses: row[5].int ?? 0)
    }

    /// Progress over every session, at `now`.
    public func stats(at now: Date) throws(StoreError) -> QuizStats {
        try locked { () throws(StoreError) -> QuizStats in
            let totals = try database.query("SELECT COUNT(*), COALESCE(SUM(right), 0) FROM answers").first ?? []
            let due =
                try database.query("SELECT COUNT(*) FROM cards WHERE due <= ?", [.real(now.timeIntervalSince1970)])
                .first?.first?.int ?? 0
            let species = try database.query(
                """
                SELECT a.deck, a.species,
                    (SELECT english FROM recordings r WHERE r.deck = a.deck AND r.species = a.species LIMIT 1),
                    COUNT(*), SUM(a.right),
                    (SELECT MIN(due) FROM cards c WHERE c.deck = a.deck AND c.species = a.species)
                FROM answers a GROUP BY a.deck, a.species ORDER BY a.deck, a.species
                """
            ).map { row in
                QuizStats.SpeciesLine(
                    deck: row[0].string, species: row[1].string, englishName: row[2].string,
                    answered: row[3].int ?? 0, right: row[4].int ?? 0,
                    due: row[5].double.map { Date(timeIntervalSince1970: $0) })
            }
            let confusions = try database.query(
                """
                SELECT deck, species, answered, COUNT(*) AS times FROM answers
                WHERE answered IS NOT NULL AND answered != species
                GROUP BY deck, species, answered ORDER BY times DESC, deck, species LIMIT 10
                """
            ).map {
                QuizStats.Confusion(
                    deck: $0[0].string, species: $0[1].string, answered: $0[2].string, times: $0[3].int ?? 0)
            }
            return QuizStats(
                answered: totals.first?.int ?? 0, right: totals.dropFirst().first?.int ?? 0, due: due, now: now,
                species: species, confusions: confusions)
        }
    }

    /// The card and recording rows for `quiz export`: deck, species, English name, sound type, due, and the
    /// recording's label, page, audio, recordist and licence.
    public func exportRows() throws(StoreError) -> [[String]] {
        try locked { () throws(StoreError) -> [[String]] in
            try database.query(
                """
                SELECT r.deck, r.species, r.english, r.sound, COALESCE(c.due, ''), COALESCE(c.reviews, 0),
                    r.label, r.page, r.audio, r.recordist, r.licence
                FROM recordings r LEFT JOIN cards c ON c.deck = r.deck AND c.species = r.species AND c.sound = r.sound
                ORDER BY r.deck, r.species, r.sound, r.label
                """
            ).map { row in
                row.enumerated().map { index, value in
                    index == 4
                        ? value.double.map { Date(timeIntervalSince1970: $0).formatted(.iso8601) }
                            ?? ""
                        : value.string
                }
            }
        }
    }

    /// SQLite's own check of the file: `ok`, or what is wrong.
    public func integrityCheck() throws(StoreError) -> String {
        try locked { () throws(StoreError) -> String in
            try database.query("PRAGMA integrity_check").map { $0.first?.string ?? "" }.joined(separator: "; ")
        }
    }

    /// Runs `body` holding the lock.
    private func locked<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try lock.withLock { (_: inout Void) throws(StoreError) -> T in try body() }
    }

    /// Where a recording's audio is: its URL, or the file it was kept in.
    static func audioReference(_ recording: Recording) -> String {
        switch recording.audio {
        case .playable(.remote(let url)): return url
        case .playable(.local(let path)): return path
        default: return ""
        }
    }
}
