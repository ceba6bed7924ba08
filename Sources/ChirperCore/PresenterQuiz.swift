import FoundationEssentials

/// The quiz's lines. Between a question and its answer nothing names the recording: no title, recordist or
/// number.
extension Presenter {
    public func quizBuilding(_ origin: QuizOrigin) -> String {
        isScript
            ? "quiz: building deck=\(quote(origin.deckName))"
            : dim("building the quiz deck of \(clean(origin.deckName)) …")
    }

    public func quizDeck(_ deck: QuizDeck) -> String {
        if isScript {
            return "quiz: deck name=\(quote(deck.name)) species=\(deck.species.count) recordings=\(deck.recordingCount)"
                + " cards=\(deck.cards.count)"
        }
        return "Deck \(clean(deck.name)): \(deck.species.count) species, \(deck.recordingCount) recordings, "
            + "\(deck.cards.count) cards (a species and its song or call)"
    }

    /// The question, with the species to choose from (none in typed mode), or the number of sonograms to pick
    /// from (sono mode). In a pipe the choices are a JSON array of `{n, en, sci}`, a list `--json` keeps whole.
    public func quizQuestion(
        _ number: Int, of total: Int, choices: [QuizDeck.Species], pictures: Int = 0
    ) -> [String] {
        if isScript {
            let offered = choices.enumerated().map { index, species in
                JSONLines.encode([
                    ("n", .number(String(index + 1))), ("en", .string(clean(species.englishName))),
                    ("sci", .string(clean(species.scientificName))),
                ])
            }
            let asked =
                pictures > 0
                ? "mode=sono pictures=\(pictures)"
                : choices.isEmpty ? "mode=typed" : "mode=choice choices=[\(offered.joined(separator: ","))]"
            return ["quiz: question n=\(number) of=\(total) " + asked]
        }
        let hint: String
        if pictures > 0 {
            hint = "  which sonogram below is the sound? 1-\(pictures); replay, slow, skip"
        } else if choices.isEmpty {
            hint = "  type the species (English or scientific name); replay, slow, sono, skip"
        } else {
            hint = "  a number or a name; replay, slow, sono, skip"
        }
        let head = bold("Question \(number) of \(total)") + dim(hint)
        let cells = choices.enumerated().map { "  \($0.offset + 1) \(clean($0.element.englishName))" }
        return [head] + cells
    }

    /// Sono mode's pictures, numbered, with nothing else that names them: each time axis from 0 (the sound
    /// heard may start anywhere in its recording; a picture whose axis did not would give it away).
    public func quizPictures(_ sonograms: [Sonogram]) -> [String] {
        sonograms.enumerated().flatMap { index, picture -> [String] in
            var sonogram = picture
            sonogram.startTime = 0
            if isScript {
                return ["quiz: picture n=\(index + 1)"]
                    + SonogramRenderer.scriptLines(sonogram, label: "picture-\(index + 1)").dropFirst()
            }
            return [bold("\(index + 1)")] + sonogramRenderer.terminalLines(sonogram)
        }
    }

    /// Right or wrong, the true species with its recording's attribution and licence, and what was confused.
    public func quizOutcome(
        right: Bool, recording: Recording, species: String, englishName: String, answered: String?, skipped: Bool
    ) -> [String] {
        if isScript {
            var line =
                "quiz: answer \(right ? "right" : "wrong") id=\(quote(recording.label)) species=\(quote(species))"
                + " en=\(quote(englishName)) rec=\(quote(recording.recordist)) licence=\(quote(recording.licenceName))"
            if skipped {
                line += " skipped"
            } else if !right, let answered {
                line += " answered=\(quote(answered))"
            }
            return [line]
        }
        let name = "\(clean(englishName)) (\(clean(species)))"
        let verdict: String
        if right {
            verdict = bold("✓ Right: ") + name
        } else if skipped {
            verdict = bad("✗ Skipped: ") + "it was " + name
        } else {
            verdict = bad("✗ Wrong: ") + "it was " + name + (answered.map { ", not \(clean($0))" } ?? "")
        }
        return [verdict] + attribution(recording)
    }

    /// Question `number` is answered: the quiz waits for `next` (the score after the last).
    public func quizAwait(_ number: Int, of total: Int) -> String {
        if isScript { return "quiz: waiting answered=\(number) of=\(total)" }
        let next = number >= total ? "the score" : "question \(number + 1) of \(total)"
        return dim("next (or Enter) for \(next); replay hears it again under its name; quiz stop ends")
    }

    public func quizScore(right: Int, asked: Int) -> String {
        if isScript { return "quiz: score right=\(right) asked=\(asked)" }
        let percent = asked == 0 ? 0 : Int((Double(right) / Double(asked) * 100).rounded())
        return bold("Score: \(right) of \(asked)") + (asked == 0 ? "" : " (\(percent) %)")
    }

    public func quizStats(_ stats: QuizStats) -> [String] {
        if isScript {
            var lines = ["quiz: stats answered=\(stats.answered) right=\(stats.right) due=\(stats.due)"]
            lines += stats.species.map {
                "quiz: species deck=\(quote($0.deck)) sci=\(quote($0.species)) en=\(quote($0.englishName))"
                    + " answered=\($0.answered) right=\($0.right)"
                    + " due=\($0.due.map { $0.formatted(.iso8601) } ?? "-")"
            }
            lines += stats.confusions.map {
                "quiz: confused deck=\(quote($0.deck)) species=\(quote($0.species)) answered=\(quote($0.answered))"
                    + " times=\($0.times)"
            }
            return lines
        }
        guard stats.answered > 0 else { return ["No quiz answers yet: quiz <query> starts one."] }
        let percent = Int((Double(stats.right) / Double(stats.answered) * 100).rounded())
        var lines = [
            bold("\(stats.answered) answered, \(stats.right) right (\(percent) %); \(stats.due) cards due now")
        ]
        var deck: String?
        for line in stats.species {
            if line.deck != deck {
                deck = line.deck
                lines.append(bold("Deck \(clean(line.deck))"))
            }
            let accuracy = "\(line.right)/\(line.answered)"
            lines.append(
                "  " + clean(line.englishName.isEmpty ? line.species : line.englishName)
                    + dim(" (\(clean(line.species)))")
                    + "  \(accuracy) right, " + dueText(line.due, now: stats.now))
        }
        if !stats.confusions.isEmpty {
            lines.append(bold("Most confused"))
            lines += stats.confusions.map {
                "  \(clean($0.species)) answered as \(clean($0.answered)): \($0.times)×"
            }
        }
        return lines
    }

    public func quizExported(_ path: String, rows: Int) -> String {
        isScript
            ? "quiz: exported rows=\(rows) path=\(quote(path))"
            : "Wrote \(rows) cards' recordings to \(clean(path)) (CSV: species, sound, due, audio, recordist, licence)"
    }

    private func dueText(_ due: Date?, now: Date) -> String {
        guard let due else { return "new" }
        let seconds = due.timeIntervalSince(now)
        if seconds <= 0 { return "due now" }
        if seconds < 3600 { return "due in \(Int(seconds / 60) + 1) min" }
        if seconds < 86_400 { return "due in \(Int(seconds / 3600)) h" }
        return "due in \(Int(seconds / 86_400)) d"
    }
}
