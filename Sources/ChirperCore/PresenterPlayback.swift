import FoundationEssentials

/// Playback: its state lines, the status line, the sonograms and the settings.
extension Presenter {
    // MARK: - Playback

    /// The line for a playback change, when the change is worth a line (a new case, or a new recording):
    /// progress alone changes only the status line. `masked`: an open quiz question plays, and its length and
    /// place in its recording could tell which it is, so only the time heard of it is said.
    public func line(playback new: PlaybackState, from old: PlaybackState, masked: Bool = false) -> String? {
        guard !Self.sameCase(new, old) else { return nil }
        switch (style, new) {
        case (.script, .idle):
            return "playback: idle"
        case (.script, .buffering(let progress)):
            return "playback: buffering \(progress.item.label)"
        case (.script, .playing(let progress)):
            return "playback: playing \(progress.item.label) \(positionFields(progress, masked: masked))"
        case (.script, .paused(let progress)):
            return "playback: paused \(progress.item.label) \(positionFields(progress, masked: masked))"
        case (.script, .failed(let failure)):
            return "playback: failed \(failure.item?.label ?? "-") reason=\(quote(failure.reason))"
        case (.terminal, .failed(let failure)):
            return bad("Playback failed: \(clean(failure.description))")
        case (.terminal, .idle(let ending)):
            guard let ending else { return nil }
            if masked {
                return dim("■ \(ending.item.label) \(ending.reason == .finished ? "finished" : "stopped")")
            }
            switch ending.reason {
            case .finished: return dim("■ \(ending.item.label) finished (\(clock(ending.position)))")
            case .stopped: return dim("■ \(ending.item.label) stopped at \(clock(ending.position))")
            }
        case (.terminal, .buffering(let progress)), (.terminal, .playing(let progress)),
            (.terminal, .paused(let progress)):
            guard let damage = progress.damage, old.progress?.damage == nil else { return nil }
            return warn("\(progress.item.label): \(damage.notice)")
        }
    }

    private static func sameCase(_ a: PlaybackState, _ b: PlaybackState) -> Bool {
        switch (a, b) {
        case (.idle(let x), .idle(let y)): return x == y
        case (.buffering(let x), .buffering(let y)), (.playing(let x), .playing(let y)),
            (.paused(let x), .paused(let y)):
            // A seek, a loop, a new speed or volume, or damage met is news too.
            return x.samePlace(as: y)
        case (.failed(let x), .failed(let y)): return x == y
        default: return false
        }
    }

    private func positionFields(_ progress: PlaybackProgress, masked: Bool) -> String {
        if masked { return "elapsed=\(String(format1: Self.elapsed(progress)))" + studyFields(progress, masked: true) }
        let duration = progress.duration.map { String(format1: $0) } ?? "?"
        return "position=\(String(format1: progress.position)) duration=\(duration)" + studyFields(progress)
    }

    /// The time heard of a quiz question: from the start of its excerpt (played as a section) or recording.
    static func elapsed(_ progress: PlaybackProgress) -> Double {
        max(0, progress.position - (progress.loop?.start ?? 0))
    }

    /// ` speed=0.5 loop=12.0-15.0 volume=50 muted range=ignored`: only what differs from plain playback (no loop
    /// when `masked`: its times are places in the recording).
    private func studyFields(_ progress: PlaybackProgress, masked: Bool = false) -> String {
        var fields = ""
        let settings = progress.settings
        if !settings.speed.isNormal || settings.speed.mode == .keep {
            fields += " speed=\(settings.speed.description.replacing(" ", with: " mode="))"
        }
        if let loop = progress.loop, !masked {
            fields += " loop=\(String(format1: loop.start))-\(String(format1: loop.end))"
        }
        if settings.volume != 100 { fields += " volume=\(settings.volume)" }
        if settings.muted { fields += " muted" }
        if progress.rangeIgnored { fields += " range=ignored" }
        if progress.landing == .estimated { fields += " landing=estimated" }
        if let damage = progress.damage {
            fields += " damaged_frames=\(damage.frames) damaged_from=\(String(format1: damage.firstAt))"
        }
        return fields
    }

    /// How tall `sono <n>` draws: 16 shade rows in a pipe, 16 text lines (32 pixel rows) on a terminal, enough
    /// to tell a note's shape across the birds' band.
    public var sonogramShape: (width: Int, lines: Int) {
        isScript ? (72 + SonogramRenderer.gutterWidth + 1, 16) : (width, 16)
    }

    /// The renderer for this style: shade characters in pipes and without colour, else half-blocks.
    public var sonogramRenderer: SonogramRenderer {
        switch style {
        case .script, .terminal(color: false): SonogramRenderer(mode: .shade)
        case .terminal(color: true): SonogramRenderer(mode: trueColor ? .trueColor : .palette256)
        }
    }

    /// `sono <n>`'s picture: `sono:` lines in a pipe, the drawn picture with its axes on a terminal.
    /// On a terminal the annotation boxes in the window are marked on a line under the time axis, and the
    /// detections `heard` on a line per species, with a legend.
    public func sonogram(
        _ sonogram: Sonogram, label: String, title: String?, boxes: [SonogramRaster.Box] = [],
        heard: [SegmentDetections] = []
    ) -> [String] {
        if isScript {
            // The annotation boxes inside the window, one line each, after the picture's rows.
            let shown = boxes.filter { $0.span.end > sonogram.startTime && $0.span.start < sonogram.endTime }
            return SonogramRenderer.scriptLines(sonogram, label: label)
                + shown.map { box in
                    "sono: box n=\(box.number) begin=\(RavenSelectionTable.fixed(box.span.start, 3))"
                        + " end=\(RavenSelectionTable.fixed(box.span.end, 3))"
                        + (box.band.map {
                            " low=\(Int($0.low.rounded()))" + ($0.high.map { " high=\(Int($0.rounded()))" } ?? "")
                        }
                            ?? "")
                }
                + detectionLines(sonogram, heard: heard)
        }
        return [sonogramHeader(sonogram, label: label, title: title)] + sonogramRenderer.terminalLines(sonogram)
            + SonogramRenderer.boxLine(sonogram, boxes: boxes).map { [dim($0)] }.orEmpty
            + detectionLines(sonogram, heard: heard)
    }

    /// The line above a sonogram: what it shows, its band and window, and its FFT.
    public func sonogramHeader(_ sonogram: Sonogram, label: String, title: String?) -> String {
        let band =
            "\(String(format1: sonogram.minFrequency / 1000))-\(String(format1: sonogram.maxFrequency / 1000)) kHz"
        let span = "\(preciseClock(sonogram.startTime))-\(preciseClock(sonogram.endTime))"
        let fft = "FFT \(sonogram.fftSize), hop \(sonogram.hop)"
        // A file of one's own with no species named has its name for a title: said once.
        let named = title.map { $0 == label ? "" : " \(clean($0))" } ?? ""
        return bold("\(clean(label))\(named)") + dim("  \(band), \(span), \(fft)")
    }

    /// The answer to `graphics`: the mode, what it draws with here, and what the terminal said.
    public func graphics(_ mode: GraphicsMode, drawing: PixelProtocol?, terminal: TerminalGraphicsSupport) -> String {
        let drawn = drawing.map { "\($0.rawValue) pixels" } ?? (isScript ? "sono: lines" : "half-blocks")
        var heard: [String] = []
        if terminal.kitty { heard.append("kitty") }
        if terminal.sixel { heard.append("sixel") }
        let answer =
            terminal.answered
            ? "the terminal answered: \(heard.isEmpty ? "no graphics" : heard.joined(separator: ", "))"
            : "the terminal was not asked or did not answer"
        return isScript
            ? "graphics: mode=\(mode.rawValue) drawing=\(drawing?.rawValue ?? "text")"
            : "graphics \(mode.rawValue): sono draws \(drawn) (\(answer))"
    }

    /// A `--png` file was written.
    public func pngWritten(_ path: String) -> String {
        isScript ? "sono: png=\(quote(path))" : dim("sonogram written to \(clean(path))")
    }

    /// The shape of the live strip's picture for a recording of `duration` seconds: ten columns a second (the
    /// marker moves in 0.1 s steps), at most 20 000 (memory stays bounded for long recordings); in real pixels,
    /// a cell's pixels for each of them.
    public func stripShape(duration: Double?, strip: SonogramStripMachine) -> SonogramShape {
        let cells = SonogramRenderer.stripCells(duration: duration)
        var shape = SonogramShape(
            columns: cells, rows: strip.lines * sonogramRenderer.rowsPerLine, maxFrequency: strip.band.high,
            minFrequency: strip.band.low)
        if let canvas = strip.canvas {
            (shape.columns, shape.rows) = SonogramRenderer.stripPixelShape(
                cells: cells, lines: strip.lines, canvas: canvas)
        }
        return shape
    }

    /// The live strip's lines for what is playing, above the status line; none when it is off or nothing plays.
    /// `keeping` holds the picture lines of the page drawn last: they are drawn again only when the page turns
    /// (drawing them is most of the strip's cost; the marker line moves ten times a second). In real pixels the
    /// picture lines keep only their gutter, and the page is an image drawn over them.
    public func strip(
        _ strip: SonogramStripMachine, playback: PlaybackState, keeping kept: inout StripPictureLines?
    ) -> StripView {
        guard !isScript, let progress = playback.progress else { return StripView() }
        if let picture = strip.picture(for: playback) {
            let renderer = sonogramRenderer
            let canvas = strip.canvas
            // Pages and the marker are laid out in text columns, also over a picture in pixels.
            let grid = canvas == nil ? picture : SonogramRenderer.stripGrid(picture)
            let page = renderer.stripPage(grid, position: progress.position, width: width - 1, lines: strip.lines)
            let key = StripPictureLines.Key(
                ticket: progress.ticket, band: strip.band, canvas: canvas, page: page, picture: picture)
            if kept?.key != key {
                if let canvas {
                    let image = SonogramRenderer.stripImage(picture, page: page, cells: grid.columns, canvas: canvas)
                    kept = StripPictureLines(
                        key: key,
                        lines: (0..<page.lines).map { renderer.stripGutter(grid, line: $0, lines: page.lines) },
                        image: StripImage(
                            key: key, canvas: canvas, image: image, column: SonogramRenderer.gutterWidth))
                } else {
                    kept = StripPictureLines(key: key, lines: renderer.stripPicture(picture, page: page))
                }
            }
            return StripView(
                rows: (kept?.lines ?? [])
                    + [renderer.stripMarker(grid, page: page, position: progress.position, loop: progress.loop)],
                picture: kept?.image)
        }
        switch strip.state {
        case .loading(let ticket) where ticket == progress.ticket:
            return StripView(rows: [dim("sonogram of \(progress.item.label): computing …")])
        case .failed(let ticket, let reason) where ticket == progress.ticket:
            return StripView(rows: [warn(clean(reason))])
        default:
            return StripView()
        }
    }

    /// The live strip's lines for what is playing (drawn afresh).
    public func strip(_ strip: SonogramStripMachine, playback: PlaybackState) -> StripView {
        var none: StripPictureLines?
        return self.strip(strip, playback: playback, keeping: &none)
    }

    /// The answer to `sono on` and `sono off`: what the strip draws now, and where.
    public func stripSwitched(_ strip: SonogramStripMachine) -> [String] {
        func kiloHertz(_ hertz: Double) -> String {
            let text = String(format1: hertz / 1000)
            return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
        }
        let low = kiloHertz(strip.band.low)
        let band = strip.band.high.map { "\(low)-\(kiloHertz($0)) kHz" } ?? "\(low) kHz and up"
        let drawn = strip.canvas.map { "\($0.pixelProtocol.rawValue) pixels" } ?? "half-blocks"
        if isScript {
            let high = strip.band.high.map(kiloHertz) ?? ""
            return [
                strip.state == .off
                    ? "strip: off"
                    : "strip: on lines=\(strip.lines) band=\(low)-\(high) drawn=\(drawn.replacing(" ", with: "-"))"
            ]
        }
        if strip.state == .off { return wrapped("Live strip off · sono on shows it again").map(dim) }
        return wrapped(
            "Live strip on: \(strip.lines) lines of \(band) in \(drawn), above the status line while a recording"
                + " plays · sono off hides it"
        ).map(dim)
    }

    /// The answer to `speed`, `volume`, `mute` and `unmute`: the settings now in force.
    public func settings(_ settings: PlaybackSettings) -> String {
        let speed = settings.speed
        if isScript {
            return "settings: speed=\(PlaybackSpeed(factor: speed.factor, mode: .tape)) mode=\(speed.mode.rawValue)"
                + " volume=\(settings.volume) muted=\(settings.muted ? "yes" : "no")"
        }
        let pace =
            speed.isNormal
            ? "normal speed"
            : "speed \(PlaybackSpeed(factor: speed.factor, mode: .tape))× "
                + (speed.mode == .tape ? "(tape: pitch moves with speed)" : "(keep: pitch kept)")
        let volume = settings.muted ? "muted (volume \(settings.volume) on unmute)" : "volume \(settings.volume)"
        return dim("\(pace) · \(volume)")
    }

    /// The live status line on a terminal; nil when nothing is loaded. `masked`: an open quiz question plays,
    /// shown by its name and the time heard only (its length, place, buffer or title could tell which it is).
    public func status(_ state: PlaybackState, title: String? = nil, masked: Bool = false) -> String? {
        guard !isScript, let progress = state.progress else { return nil }
        let symbol: String
        let word: String
        switch state {
        case .buffering: (symbol, word) = ("…", "buffering")
        case .paused: (symbol, word) = ("‖", "paused")
        default: (symbol, word) = ("▶", "playing")
        }
        if masked {
            var line = "\(symbol) \(word) \(progress.item.label) \(clock(Self.elapsed(progress)))"
            let settings = progress.settings
            if !settings.speed.isNormal { line += " \(PlaybackSpeed(factor: settings.speed.factor, mode: .tape))×" }
            if settings.muted { line += " muted" }
            return color ? "\u{1B}[1m\(line)\u{1B}[0m" : line
        }
        let approximately = progress.landing == .estimated ? "≈" : ""
        var time = "\(approximately)\(clock(progress.position)) / \(progress.duration.map(clock) ?? "?:??")"
        let settings = progress.settings
        if !settings.speed.isNormal { time += " \(PlaybackSpeed(factor: settings.speed.factor, mode: .tape))×" }
        if settings.speed.mode == .keep && !settings.speed.isNormal { time += " keep" }
        if let loop = progress.loop { time += " ⟲ \(clock(loop.start))-\(clock(loop.end))" }
        if settings.muted {
            time += " muted"
        } else if settings.volume != 100 {
            time += " vol \(settings.volume)"
        }
        if progress.rangeIgnored { time += " (server ignores Range: seeks read from the start)" }
        let buffered = "buf \(String(format1: progress.buffered)) s"
        let name = clean(title ?? "")
        var head = "\(symbol) \(word) \(progress.item.label)"
        if !name.isEmpty { head += " " + name }
        // Room for the head and the bar, after "<time> <bar> <buffered>" and their spaces.
        let room = width - 1 - time.count - buffered.count - 3
        var barWidth = min(30, max(10, room - head.count))
        if room - barWidth < 12 { barWidth = 0 }
        if head.count > room - barWidth { head = String(head.prefix(max(1, room - barWidth - 1))) + "…" }
        let bar = barWidth > 0 ? " " + progressBar(progress, width: barWidth) : ""
        let line = "\(head) \(time)\(bar) \(buffered)"
        return color ? "\u{1B}[1m\(line)\u{1B}[0m" : line
    }

    private func progressBar(_ progress: PlaybackProgress, width: Int) -> String {
        guard width > 2 else { return "" }
        let inner = width - 2
        let fraction = progress.duration.map { $0 > 0 ? min(1, max(0, progress.position / $0)) : 0 } ?? 0
        let filled = Int((fraction * Double(inner)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: inner - filled) + "]"
    }

    /// m:ss
    /// `m:ss.t`, for sonogram windows.
    func preciseClock(_ seconds: Double) -> String {
        let tenths = max(0, Int((seconds * 10).rounded()))
        let rest = tenths / 10 % 60
        return "\(tenths / 600):\(rest < 10 ? "0" : "")\(rest).\(tenths % 10)"
    }

    public func clock(_ seconds: Double) -> String {
        let whole = max(0, Int(seconds.rounded(.down)))
        let rest = whole % 60
        return "\(whole / 60):\(rest < 10 ? "0" : "")\(rest)"
    }
}

/// The live strip's picture lines of one page of one play request, kept while the position stays on it.
public struct StripPictureLines: Sendable, Hashable {
    public struct Key: Sendable, Hashable {
        var ticket: PlaybackTicket
        var band: FrequencyBand
        var canvas: PixelCanvas?
        var page: SonogramRenderer.StripPage
        /// The picture the page is cut from: one grown from what was heard since is drawn again. (Compared at
        /// every tick, it is the same array as the one kept, which compares at once.)
        var picture: Sonogram
    }

    var key: Key
    var lines: [String]
    /// The page in real pixels, drawn over `lines` (which then hold only the gutter).
    var image: StripImage?
}

extension Optional where Wrapped == [String] {
    fileprivate var orEmpty: [String] { self ?? [] }
}

extension Presenter {
    /// `channel`: which channel of the file plays.
    public func channel(_ choice: ChannelChoice, of recording: Recording) -> String {
        isScript
            ? "channel: id=\(quote(recording.label)) played=\(choice.played.map(String.init) ?? "all") channels=\(choice.fileChannels)"
            : "\(clean(recording.label)): \(choice)"
    }
}
