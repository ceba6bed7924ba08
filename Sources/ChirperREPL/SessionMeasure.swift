import ChirperCatalog
import ChirperCore

/// `select` and `measure`, as part of the session machine: a selection, Raven's measurements of it, and the
/// session's selection table.
extension SessionMachine {
    mutating func select(_ request: SelectRequest) {
        switch request {
        case .show:
            if let selection = currentSelection() {
                say([presenter.selection(selection.recording, span: selection.span, band: selection.band)])
            } else {
                refuse("nothing is selected: select <n> <a-b> [lo-hi], or loop a b while a recording plays")
            }
        case .clear:
            selection = nil
            say([presenter.selectionCleared()])
        case .set(let request):
            guard let chosen = selection(request, for: "select") else { return }
            selection = chosen
            say([presenter.selection(chosen.recording, span: chosen.span, band: chosen.band)])
        }
    }

    mutating func measure(_ request: MeasureRequest) {
        switch request {
        case .current:
            guard let chosen = currentSelection() else {
                refuse(
                    "nothing is selected: measure <n> <a-b> [lo-hi], select one, or loop a b while a recording plays")
                return
            }
            startMeasure(chosen)
        case .selection(let request):
            guard let chosen = selection(request, for: "measure") else { return }
            selection = chosen
            startMeasure(chosen)
        case .list:
            say(presenter.selectionTable(measurements))
        case .save(let path):
            guard !measurements.isEmpty else {
                refuse("the selection table is empty: measure a selection first")
                return
            }
            ask(.writeText(RavenSelectionTable.text(measurements), path: expandingHome(path)))
        }
    }

    /// The selection `select` chose; else the loop of the recording playing (its section, all frequencies).
    func currentSelection() -> Selection? {
        if let selection { return selection }
        guard let playing, playback.ticket == playing.ticket, let loop = playback.progress?.loop,
            let item = playing.recording.playItem
        else { return nil }
        return Selection(
            recording: playing.recording, item: item, span: TimeSpan(start: loop.start, end: loop.end), band: nil)
    }

    /// A row's section and band, or nil after one line saying why.
    private mutating func selection(_ request: SelectionRequest, for command: String) -> Selection? {
        guard let recording = recordingToStudy(row: request.row, for: command) else { return nil }
        guard let item = recording.playItem else { return nil }
        if let duration = item.expectedDuration, request.span.start >= duration {
            refuse(
                "the selection starts after \(recording.label) ends (\(presenter.clock(duration))); select an earlier one"
            )
            return nil
        }
        return Selection(recording: recording, item: item, span: request.span, band: request.band)
    }

    private mutating func startMeasure(_ selection: Selection) {
        let id = nextWorkID()
        measureJob = MeasureJob(id: id, selection: selection)
        emit(.measure(id: id, selection.item, selection.span, selection.band))
        if !setup.interactive { hold(.measurement) }
    }

    mutating func measured(id: Int, _ result: Result<SelectionMeasurement, WorkFailure>) {
        // A measurement replaced by a newer one ends quietly.
        guard let job = measureJob, job.id == id else { return }
        measureJob = nil
        switch result {
        case .success(let measurement):
            let recording = job.selection.recording
            let row = MeasuredSelection(number: measurements.count + 1, recording: recording, measurement: measurement)
            measurements.append(row)
            say(presenter.measurement(row, title: recording.englishName))
        case .failure(.stopped):
            refuse("measure stopped")
        case .failure(.failed(let message)):
            refuse(message)
        }
        gate.handle(.measurementDone)
    }
}
