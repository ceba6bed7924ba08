import ChirperCatalog
import ChirperCore

/// `compare`, as part of the session machine: sections of recordings drawn on one time and frequency axis and
/// one dB scale, and measured side by side.
extension SessionMachine {
    /// One section to compare: what to measure (a whole row: in the comparison's band), and the shape to draw
    /// it in.
    struct CompareTask: Sendable, Hashable {
        var section: Selection
        var shape: SonogramShape
        /// For a whole row (no band chosen): measured in the band within this one that holds its sound.
        var signalWithin: FrequencyBand?
    }

    /// A compared section's picture and figures.
    struct Compared: Sendable, Hashable {
        var sonogram: Sonogram
        var measurement: SelectionMeasurement
    }

    /// The longest stretch of a whole row compared (from its start).
    static let compareRowSeconds = 30.0

    /// The sections `items` name (a row: its recording from the start, up to 30 s; `sK`: row K of the
    /// table), or nil after one line saying why.
    mutating func sections(_ items: [CompareItem], for command: String) -> [Selection]? {
        var sections: [Selection] = []
        for item in items {
            switch item {
            case .row(let row):
                guard let recording = recordingToStudy(row: row, for: command), let played = recording.playItem
                else { return nil }
                let length = min(played.expectedDuration ?? Self.compareRowSeconds, Self.compareRowSeconds)
                sections.append(
                    Selection(recording: recording, item: played, span: TimeSpan(start: 0, end: length), band: nil))
            case .selection(let number):
                let table = measurements.table
                guard number <= table.count else {
                    refuse("there is no selection s\(number): the table has \(table.count) (measure list shows them)")
                    return nil
                }
                let measured = table[number - 1]
                guard let played = measured.recording.playItem else { return nil }
                sections.append(
                    Selection(recording: measured.recording, item: played, span: measured.span, band: measured.band))
            }
        }
        return sections
    }

    /// `compare` as a child of the session: the sections (found by the session) drawn and measured off the
    /// event loop, then shown on one time and frequency axis and one dB scale.
    struct Compare: Sendable {
        enum State: Sendable, Hashable {
            case idle
            /// Work `id` draws and measures `tasks`.
            case comparing(id: Int, [CompareTask])
        }

        enum Event: Sendable, Hashable {
            /// `compare a b …`: the items typed and the sections they name.
            case compare([CompareItem], [Selection])
            /// The comparison `id` ended: each section's picture and figures, in order.
            case compared(id: Int, Result<[Compared], WorkFailure>)
            case interrupt
        }

        enum Action: Sendable, Hashable {
            case print([String])
            case refuse(String)
            /// A script's next line waits for the comparison.
            case hold
            /// The comparison is shown (or failed): a line waiting for it runs.
            case done
            case compare(id: Int, [CompareTask])
            case cancel
        }

        let presenter: Presenter
        let interactive: Bool
        private(set) var state: State = .idle
        private var actions: [Action] = []

        init(presenter: Presenter, interactive: Bool) {
            self.presenter = presenter
            self.interactive = interactive
        }

        var isComparing: Bool { state != .idle }

        mutating func handle(_ event: Event, ids: inout WorkIDs) -> [Action] {
            switch event {
            case .compare(let items, let sections): compare(items, sections, ids: &ids)
            case .compared(let id, let result): compared(id: id, result)
            case .interrupt: if isComparing { actions.append(.cancel) }
            }
            defer { actions = [] }
            return actions
        }

        private mutating func compare(_ items: [CompareItem], _ sections: [Selection], ids: inout WorkIDs) {
            // One frequency axis: from the lowest band's bottom to the highest top (a whole row: the birds' band).
            let bands = sections.map { $0.band ?? .birds }
            let low = bands.map(\.low).min() ?? 0
            let high = bands.contains { $0.high == nil } ? nil : bands.compactMap(\.high).max()
            // One time axis: as many seconds a column for every section, each drawn from its own start.
            let longest = sections.map(\.span.duration).max() ?? 1
            let (width, _) = presenter.sonogramShape
            let columns = max(8, width - SonogramRenderer.gutterWidth - 1)
            let rows = (interactive ? 6 : 8) * presenter.sonogramRenderer.rowsPerLine
            let tasks = zip(items, sections).map { item, section in
                // A whole row is measured where its sound is; a measured selection as it was measured.
                let isRow = if case .row = item { true } else { false }
                return CompareTask(
                    section: section,
                    shape: SonogramShape(
                        columns: max(1, Int((section.span.duration / longest * Double(columns)).rounded())),
                        rows: rows, maxFrequency: high, minFrequency: low, window: section.span, contrast: .auto),
                    signalWithin: isRow ? FrequencyBand(low: low, high: high) : nil)
            }
            let id = ids.next()
            state = .comparing(id: id, tasks)
            actions.append(.compare(id: id, tasks))
            if !interactive { actions.append(.hold) }
        }

        private mutating func compared(id: Int, _ result: Result<[Compared], WorkFailure>) {
            guard case .comparing(let current, let tasks) = state, current == id else { return }
            state = .idle
            switch result {
            case .success(let results):
                // One dB scale: from the lowest floor to the highest ceiling of the pictures.
                let floor = results.map(\.sonogram.floorDB).min() ?? -90
                let ceiling = results.map(\.sonogram.ceilingDB).max() ?? -10
                let entries = zip(tasks, results).map { task, result in
                    Presenter.ComparedSection(
                        recording: task.section.recording,
                        sonogram: result.sonogram.rescaled(floor: floor, ceiling: ceiling),
                        measurement: result.measurement, bandFound: task.signalWithin != nil)
                }
                actions.append(.print(presenter.comparison(entries)))
            case .failure(.stopped):
                actions.append(.refuse("compare stopped"))
            case .failure(.failed(let message)):
                actions.append(.refuse(message))
            }
            actions.append(.done)
        }
    }

    mutating func compare(_ items: [CompareItem]) {
        guard let sections = self.sections(items, for: "compare") else { return }
        run(compare: .compare(items, sections))
    }

    /// Hands `event` to `compare`, and does what it decided.
    mutating func run(compare event: Compare.Event) {
        for action in comparison.handle(event, ids: &ids) {
            switch action {
            case .print(let lines): say(lines)
            case .refuse(let text): refuse(text)
            case .hold: hold(.measurement)
            case .done: gate.handle(.measurementDone)
            case .compare(let id, let tasks): emit(.compare(id: id, tasks))
            case .cancel: emit(.cancelCompare)
            }
        }
    }
}
