/// Lays rows out in columns that fit the terminal's width, the names first: they are what a listener scans
/// for. When the columns as wide as their content do not fit, the ones a listener needs least give way first
/// (see `steps`), and room left over after a column went goes back to the names.
struct RowTable {
    /// The columns, left to right.
    enum Field: CaseIterable {
        case number, id, english, scientific, type, quality, length, country, recordist
    }

    struct Column {
        var field: Field
        var title: String
        /// As wide as the widest value (up to a cap), or narrower once it gave way.
        var width: Int
        var natural: Int
        var rightAligned: Bool
    }

    /// What gives way, in order, until the row fits: a shrink takes the widest of its columns down by one, time
    /// after time, to each one's floor; a drop takes a column away.
    private enum Step {
        case shrink([(Field, Int)])
        case drop(Field)
    }

    /// Type, country and recordist first shrink to a readable width; then the names to 24 (most English
    /// names are shorter, so they stay whole); then the recordist and the country go, as they would otherwise be
    /// cut to a few letters, and the type shrinks to "song" or "call", then goes. Only then are names cut further,
    /// the scientific one first, to 16; below that, length, quality and the scientific name go, leaving the
    /// number, the ID and the English name.
    private static let steps: [Step] = [
        .shrink([(.type, 10), (.country, 12), (.recordist, 12)]),
        .shrink([(.english, 24), (.scientific, 24)]),
        .drop(.recordist),
        .drop(.country),
        .shrink([(.type, 4)]),
        .drop(.type),
        .shrink([(.scientific, 16)]),
        .shrink([(.english, 16)]),
        .drop(.length),
        .drop(.quality),
        .drop(.scientific),
        .shrink([(.english, 10)]),
    ]

    /// Who gets room back, in turn, when a column that went left more than was needed.
    private static let growing: [Field] = [.english, .scientific, .type, .country, .recordist]

    private(set) var columns: [Column]

    /// Columns as wide as their content (up to a cap) over all `recordings`, fitted to `width` by `steps`.
    init(width: Int, recordings: [Recording], numberWidth: Int) {
        func column(_ field: Field, _ title: String, cap: Int, rightAligned: Bool = false) -> Column {
            let widest = min(
                cap, recordings.reduce(title.count) { max($0, TerminalText.sanitize(Self.value(field, $1)).count) })
            return Column(field: field, title: title, width: widest, natural: widest, rightAligned: rightAligned)
        }
        var columns = [
            Column(field: .number, title: "#", width: numberWidth, natural: numberWidth, rightAligned: true),
            column(.id, "ID", cap: 12),
            column(.english, "English name", cap: 34),
            column(.scientific, "Scientific name", cap: 30),
            column(.type, "Type", cap: 18),
            Column(field: .quality, title: "Q", width: 1, natural: 1, rightAligned: false),
            column(.length, "Len", cap: 8, rightAligned: true),
            column(.country, "Country", cap: 18),
            column(.recordist, "Recordist", cap: 24),
        ]
        func total() -> Int { columns.reduce(0) { $0 + $1.width } + 2 * (columns.count - 1) }
        for step in Self.steps where total() > width {
            switch step {
            case .shrink(let floors):
                while total() > width {
                    // The widest above its floor; of two as wide, the one named later in the step.
                    let candidates = floors.enumerated().compactMap { order, pair -> (Int, Int, Int)? in
                        guard let index = columns.firstIndex(where: { $0.field == pair.0 }),
                            columns[index].width > pair.1
                        else { return nil }
                        return (index, columns[index].width, order)
                    }
                    guard let chosen = candidates.max(by: { ($0.1, $0.2) < ($1.1, $1.2) }) else { break }
                    columns[chosen.0].width -= 1
                }
            case .drop(let field):
                columns.removeAll { $0.field == field }
            }
        }
        // Room a drop left over goes back a column at a time to each cut column in turn, the names first.
        var growing = Self.growing.compactMap { field in columns.firstIndex { $0.field == field } }
        while total() < width, !growing.isEmpty {
            growing.removeAll { columns[$0].width >= columns[$0].natural }
            for index in growing where total() < width {
                columns[index].width += 1
            }
        }
        self.columns = columns
    }

    /// The text of `field` for `recording`, before it is fitted.
    static func value(_ field: Field, _ recording: Recording) -> String {
        switch field {
        case .number: ""
        case .id: recording.label
        case .english: name(recording)
        case .scientific: recording.scientificName
        case .type: recording.soundType
        case .quality: quality(recording.quality)
        case .length: recording.length
        case .country: recording.country
        case .recordist: recording.recordist
        }
    }

    static func name(_ recording: Recording) -> String {
        switch recording.audio {
        case .playable: return recording.englishName
        case .restricted: return "[restricted] " + recording.englishName
        case .refused: return "[no audio] " + recording.englishName
        }
    }

    /// A–E, or "-" for unrated ("no score").
    static func quality(_ value: String) -> String {
        ["A", "B", "C", "D", "E"].contains(value.uppercased()) ? value.uppercased() : "-"
    }

    var header: String {
        render(columns.map(\.title))
    }

    func line(number: Int, recording: Recording) -> String {
        render(
            columns.map { column in
                column.field == .number ? String(number) : TerminalText.sanitize(Self.value(column.field, recording))
            })
    }

    private func render(_ values: [String]) -> String {
        zip(columns, values).map { column, value in
            let fitted = value.count > column.width ? String(value.prefix(max(0, column.width - 1))) + "…" : value
            let pad = String(repeating: " ", count: max(0, column.width - fitted.count))
            return column.rightAligned ? pad + fitted : fitted + pad
        }.joined(separator: "  ").trimmingTrailingSpaces()
    }
}
