import FoundationEssentials

/// The field kit's lines: `save:`, `queue:` and `cite:` in pipes, plain sentences on a terminal.
extension Presenter {
    /// A save's progress (`position` of `count` in its batch): a `save:` line in a pipe; on a terminal, the text
    /// of the status line (`saveStatus`).
    public func save(_ progress: SaveProgress, position: Int, count: Int) -> String {
        switch (isScript, progress) {
        case (true, .fetching(let label, let offset, let attempt)):
            return "save: fetching \(label) item=\(position)/\(count) offset=\(offset) attempt=\(attempt)"
        case (true, .received(let label, let percent)):
            return "save: progress \(label) percent=\(percent)"
        case (false, .fetching(let label, let offset, let attempt)):
            let how = offset > 0 ? "resuming at \(megabytes(offset))" : "fetching"
            let again = attempt > 1 ? " (attempt \(attempt))" : ""
            return dim("↓ \(position)/\(count) \(label) \(how)\(again) …")
        case (false, .received(let label, let percent)):
            return dim("↓ \(position)/\(count) \(label) \(percent)%")
        }
    }

    /// On a terminal, the running save's one line above the prompt, rewritten in place as it goes (so a file's
    /// save leaves one line, how it ended); nothing in a pipe, which prints each report as a line.
    public func saveStatus(_ state: SaveBatchState) -> [String] {
        guard !isScript, let current = state.current, state.items.indices.contains(current) else { return [] }
        let (position, count) = (current + 1, state.items.count)
        guard let progress = state.progress else {
            return [dim("↓ \(position)/\(count) \(state.items[current].label) …")]
        }
        return [save(progress, position: position, count: count)]
    }

    /// How one save ended.
    public func save(_ outcome: SaveOutcome, position: Int, count: Int) -> String {
        switch (isScript, outcome) {
        case (true, .saved(let label, let file, let bytes)):
            return "save: saved \(label) item=\(position)/\(count) bytes=\(bytes) file=\(quote(file))"
        case (true, .exists(let label, let file)):
            return "save: exists \(label) item=\(position)/\(count) file=\(quote(file))"
        case (true, .failed(let label, let reason)):
            return "save: failed \(label) item=\(position)/\(count) reason=\(quote(reason))"
        case (false, .saved(let label, let file, let bytes)):
            return "✓ \(position)/\(count) \(label) saved: \(clean(file)) (\(megabytes(bytes)))"
        case (false, .exists(let label, let file)):
            return warn(
                "\(position)/\(count) \(label): \(clean(file)) already exists; left as it is (delete it to save again)")
        case (false, .failed(let label, let reason)):
            return bad("\(position)/\(count) \(label) not saved: \(clean(reason))")
        }
    }

    /// The end of a `save` command.
    public func saveDone(saved: Int, existing: Int, failed: Int, directory: String, stopped: Bool) -> String {
        if isScript {
            return "save: \(stopped ? "stopped" : "done") saved=\(saved) existing=\(existing) failed=\(failed)"
                + " dir=\(quote(directory))"
        }
        var parts = ["\(saved) saved"]
        if existing > 0 { parts.append("\(existing) already there") }
        if failed > 0 { parts.append("\(failed) failed") }
        let head = stopped ? "Save stopped" : "Save done"
        return dim("\(head): \(parts.joined(separator: ", ")) in \(clean(directory))")
    }

    /// `cite <n>`: the attribution, then the licence warning if any.
    public func cite(_ citation: Citation, label: String) -> [String] {
        if isScript {
            return ["cite: \(label) text=\(quote(citation.line))"]
                + (citation.warning.map { ["cite: \(label) warning=\(quote($0))"] } ?? [])
        }
        return [citation.line] + (citation.warning.map { [warn("⚠ " + $0)] } ?? [])
    }

    /// What a queue action shows; nil when it shows nothing.
    public func queue(_ action: PlayQueueMachine.Action, queued: [QueueItem]) -> [String] {
        switch (isScript, action) {
        case (true, .play(let item, let position, let count, let fresh)):
            let added = fresh ? ["queue: queued \(queued.map(\.label).joined(separator: ","))"] : []
            return added + ["queue: \(position)/\(count) \(item.label)"]
        case (true, .finished):
            return ["queue: finished"]
        case (true, .autoplayChanged(let on)):
            return ["queue: autoplay \(on ? "on" : "off")"]
        case (true, .cleared):
            return ["queue: cleared"]
        case (false, .play(let item, let position, let count, let fresh)):
            let added =
                fresh && count > 1
                ? [dim("Queued \(count): \(queued.map(\.label).joined(separator: ", ")) · next, prev, autoplay on|off")]
                : []
            return added + [dim("▷ \(position)/\(count) \(item.label)")]
        case (false, .finished):
            return [dim("Queue finished · prev plays the last again")]
        case (false, .autoplayChanged(let on)):
            return [dim(on ? "Autoplay on: the queue plays on" : "Autoplay off: the queue stops after each row")]
        case (false, .cleared):
            return [dim("The queue was cleared")]
        case (_, .nothing):
            return []
        case (_, .refuse(let reason)):
            return [refusal(reason)]
        }
    }

    /// A notice from the play cache (a rebuilt index, a folder that cannot be written).
    /// A line about the desktop (MPRIS), e.g. that there is no session bus.
    public func desktopNotice(_ text: String) -> [String] {
        isScript ? ["desktop: message=\(quote(text))"] : wrapped(clean(text)).map(dim)
    }

    public func cacheNotice(_ text: String) -> String {
        isScript ? "cache: message=\(quote(text))" : warn(clean(text))
    }

    private func megabytes(_ bytes: Int64) -> String {
        bytes < 1 << 20 ? "\(bytes / 1024) kB" : "\(String(format1: Double(bytes) / Double(1 << 20))) MB"
    }
}
