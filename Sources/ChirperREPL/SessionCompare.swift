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

    struct CompareJob: Sendable, Hashable {
        var id: Int
        var tasks: [CompareTask]
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
                guard number <= measurements.count else {
                    refuse(
                        "there is no selection s\(number): the table has \(measurements.count) (measure list shows them)"
                    )
                    return nil
                }
                let measured = measurements[number - 1]
                guard let played = measured.recording.playItem else { return nil }
                sections.append(
                    Selection(recording: measured.recording, item: played, span: measured.span, band: measured.band))
            }
        }
        return sections
    }

    mutating func compare(_ items: [CompareItem]) {
        guard let sections = self.sections(items, for: "compare") else { return }
        // One frequency axis: from the lowest band's bottom to the highest top (a whole row: the birds' band).
        let bands = sections.map { $0.band ?? .birds }
        let low = bands.map(\.low).min() ?? 0
        let high = bands.contains { $0.high == nil } ? nil : bands.compactMap(\.high).max()
        // One time axis: as many seconds a column for every section, each drawn from its own start.
        let longest = sections.map(\.span.duration).max() ?? 1
        let (width, _) = presenter.sonogramShape
        let columns = max(8, width - SonogramRenderer.gutterWidth - 1)
        let rows = (setup.interactive ? 6 : 8) * presenter.sonogramRenderer.rowsPerLine
        let tasks = zip(items, sections).map { item, section in
            // A whole row is measured where its sound is; a measured selection as it was measured.
            let isRow = if case .row = item { true } else { false }
            return CompareTask(
                section: section,
                shape: SonogramShape(
                    columns: max(1, Int((section.span.duration / longest * Double(columns)).rounded())), rows: rows,
                    maxFrequency: high, minFrequency: low, window: section.span, contrast: .auto),
                signalWithin: isRow ? FrequencyBand(low: low, high: high) : nil)
        }
        let id = nextWorkID()
        compareJob = CompareJob(id: id, tasks: tasks)
        emit(.compare(id: id, tasks))
        if !setup.interactive { hold(.measurement) }
    }

    mutating func compared(id: Int, _ result: Result<[Compared], WorkFailure>) {
        guard let job = compareJob, job.id == id else { return }
        compareJob = nil
        switch result {
        case .success(let results):
            // One dB scale: from the lowest floor to the highest ceiling of the pictures.
            let floor = results.map(\.sonogram.floorDB).min() ?? -90
            let ceiling = results.map(\.sonogram.ceilingDB).max() ?? -10
            let entries = zip(job.tasks, results).map { task, result in
                Presenter.ComparedSection(
                    recording: task.section.recording,
                    sonogram: result.sonogram.rescaled(floor: floor, ceiling: ceiling),
                    measurement: result.measurement, bandFound: task.signalWithin != nil)
            }
            say(presenter.comparison(entries))
        case .failure(.stopped):
            refuse("compare stopped")
        case .failure(.failed(let message)):
            refuse(message)
        }
        gate.handle(.measurementDone)
    }
}
