import ChirperCore
import ChirperStore
import Foundation

extension FuzzTarget {
    /// What is read back from disk, and the bookkeeping the player keeps over what arrived: the cache's index
    /// and sidecars (a file a crash or a user left half-written), the quiz store (a damaged SQLite file), the
    /// held bytes and the timeline under any order of operations.
    static let stateTargets: [FuzzTarget] = [
        FuzzTarget(name: "held-bytes", summary: "the held bytes and the timeline under fuzzed operations") { input in
            var reader = FuzzInput(input)
            var held = HeldBytes(limit: reader.int(in: 1...4096))
            var timeline = PlaybackTimeline(recordingStart: Double(reader.byte()), factor: 1)
            while !reader.isEmpty {
                switch reader.byte() % 5 {
                case 0:
                    let keep = reader.byte() & 1 == 0 ? Int64(reader.int(in: 0...70000)) : nil
                    held.append(reader.take(reader.int(in: 0...3000)), keepingFrom: keep)
                case 1:
                    let offset = Int64(reader.int(in: 0...70000))
                    if let bytes = held.bytes(from: offset) { precondition(offset + Int64(bytes.count) == held.end) }
                case 2:
                    held.restart(at: Int64(reader.int(in: 0...70000)))
                case 3:
                    let factor = [0.25, 0.5, 1, 2, 4][reader.int(in: 0...4)]
                    timeline.mark(
                        atOutput: Double(reader.int(in: 0...600)), recording: Double(reader.int(in: 0...600)),
                        factor: factor)
                default:
                    _ = timeline.recordingTime(atOutput: Double(reader.int(in: 0...900)) / 3)
                }
            }
            _ = held.bytes(from: held.end)
        },
        FuzzTarget(name: "cache-index", summary: "the cache's index.json read back, then used") { input in
            var reader = FuzzInput(input)
            let limit = Int64(reader.integer(bytes: 3))
            let text = reader.rest()
            _ = CacheIndex.parseSize(String(decoding: text.prefix(32), as: UTF8.self))
            guard var index = try? JSONDecoder().decode(CacheIndex.self, from: Data(text)) else { return }
            for id in index.entries.keys.sorted().prefix(8) {
                _ = index.touch(id, now: 1e9)
            }
            _ = index.insert("XC1", CacheIndex.Entry(file: "XC1.mp3", size: 1000, lastUse: 1), limit: limit)
            _ = index.evict(toFit: limit / 2, keeping: index.entries.keys.first)
        },
        FuzzTarget(name: "sidecar", summary: "a saved recording's XC<id>.json read back") { input in
            guard let (recording, file) = Sidecar.decode(Data(UnsafeRawBufferPointer(input))) else { return }
            _ = Presenter(style: .script, sourceName: "fuzz").attribution(recording)
            _ = file
        },
        FuzzTarget(name: "quiz-store", summary: "a quiz.sqlite file a crash or a user left damaged") { input in
            let path = quizStorePath
            try? FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
            guard FileManager.default.createFile(atPath: path, contents: Data(UnsafeRawBufferPointer(input))),
                let store = try? QuizStore(path: path, busyTimeout: 0)
            else { return }
            let now = Date(timeIntervalSince1970: 1.8e9)
            _ = try? store.integrityCheck()
            // Read a deck's cards and schedules, keep an answer (one transaction), and read it all back.
            if let deck = quizDeck, let progress = try? store.load(deck, at: now), let card = deck.cards.first {
                let answer = QuizAnswerRecord(
                    deck: deck.name, card: card, recording: "DEMO-01", answered: card.species,
                    previous: progress.memories[card])
                _ = try? store.keep(answer, at: now)
            }
            _ = try? store.stats(at: now)
            _ = try? store.exportRows()
        },
        desktopTarget,
    ]

    /// What the desktop hands over in D-Bus arguments, before the session sees it: `OpenUri`'s URI.
    static let desktopTarget = FuzzTarget(name: "desktop", summary: "an MPRIS OpenUri argument") { input in
        let text = String(decoding: input, as: UTF8.self)
        if let number = DesktopCommand.xenoCantoNumber(text) { precondition(number >= 0) }
    }

    /// The demo catalog's birds, as a deck (the store's fuzzed file may hold its cards, or anything else).
    static let quizDeck: QuizDeck? = {
        let page = """
            {"recordings":[
            {"id":"DEMO-01","gen":"Synthetica","sp":"trillans","en":"Synthetic trill","type":"song",
             "file":"https://example.org/1.mp3","lic":"//creativecommons.org/publicdomain/zero/1.0/"},
            {"id":"DEMO-04","gen":"Synthetica","sp":"ascendens","en":"Synthetic rising sweep","type":"call",
             "file":"https://example.org/4.mp3","lic":"//creativecommons.org/publicdomain/zero/1.0/"}]}
            """
        guard let recordings = try? PageDecoder.decode(Array(page.utf8)).recordings else { return nil }
        return try? QuizDeck.make(name: "grp:birds", family: nil, recordings: recordings).get()
    }()

    /// One file per fuzzing process, in the temporary folder.
    public static let quizStorePath = NSTemporaryDirectory() + "/chirper-fuzz-\(getpid())/quiz.sqlite"
}
