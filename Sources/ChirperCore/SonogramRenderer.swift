import FoundationEssentials

/// Draws a `Sonogram` as text, greyscale like xeno-canto's (dark on light: loud is dark).
///
/// Three looks: Unicode upper half-blocks `▀` with 24-bit or 256-colour foreground and background (two
/// pixel rows per text line), and shade characters ` ░▒▓█` (one pixel row per line) for `NO_COLOR`,
/// dumb terminals and pipes. Terminal pictures carry kHz ticks on the left (each label is the frequency at
/// the lower edge of its line) and seconds ticks below; the pipe form is `sono:` lines (see README).
public struct SonogramRenderer: Sendable {
    public enum Mode: Sendable, Hashable {
        /// `▀` with 24-bit colour escapes.
        case trueColor
        /// `▀` with the 256-colour palette's grey ramp.
        case palette256
        /// ` ░▒▓█`, no escapes.
        case shade
    }

    public var mode: Mode

    public init(mode: Mode) {
        self.mode = mode
    }

    /// Characters left of the picture in terminal form (`" 11.0k┤"`).
    public static let gutterWidth = 7
    /// The shade characters from silence to loudest.
    public static let shades: [Character] = [" ", "░", "▒", "▓", "█"]

    /// Pixel rows one text line holds in this mode.
    public var rowsPerLine: Int { mode == .shade ? 1 : 2 }

    /// The shape to compute for a terminal `width` columns wide and `lines` text lines high.
    public func shape(
        terminalWidth width: Int, lines: Int, band: FrequencyBand? = nil, window: TimeSpan? = nil,
        contrast: SonogramContrast = .auto
    ) -> SonogramShape {
        SonogramShape(
            columns: max(8, width - Self.gutterWidth - 1), rows: max(1, lines) * rowsPerLine,
            maxFrequency: band?.high, minFrequency: band?.low ?? 0, window: window, contrast: contrast)
    }

    /// The picture for a terminal: picture lines with kHz ticks, then the time axis and its labels.
    public func terminalLines(_ sonogram: Sonogram) -> [String] {
        let textLines = (sonogram.rows + rowsPerLine - 1) / rowsPerLine
        let ticks = Self.frequencyTicks(sonogram, textLines: textLines, rowsPerLine: rowsPerLine)
        var lines: [String] = []
        for line in 0..<textLines {
            // Line 0 is the top; its lowest pixel row is `bottomRow`.
            let bottomRow = (textLines - 1 - line) * rowsPerLine
            let gutter: String
            if let hz = ticks[line] {
                gutter = Self.kHz(hz).leftPadded(to: Self.gutterWidth - 2) + "k┤"
            } else {
                gutter = String(repeating: " ", count: Self.gutterWidth - 1) + "│"
            }
            lines.append(gutter + pictureLine(sonogram, bottomRow: bottomRow))
        }
        var axis = [Character](repeating: "─", count: sonogram.columns)
        var labels = [Character](repeating: " ", count: sonogram.columns + 8)
        var free = 0
        for (column, label) in timeTicks(sonogram) {
            axis[column] = "┬"
            guard column >= free else { continue }
            for (offset, character) in label.enumerated() where column + offset < labels.count {
                labels[column + offset] = character
            }
            free = column + label.count + 1
        }
        let pad = String(repeating: " ", count: Self.gutterWidth - 1)
        lines.append(pad + "└" + String(axis))
        lines.append(pad + " " + String(labels).trimmingTrailingSpaces())
        return lines
    }

    /// The annotation boxes in the picture's window, under its time axis: each box's time span drawn `━`
    /// with its number (as `loop ann` numbers it) at its start, and its band after it when it has one; nil when
    /// no box falls in the window.
    public static func boxLine(_ sonogram: Sonogram, boxes: [SonogramRaster.Box]) -> String? {
        guard sonogram.duration > 0, sonogram.columns > 0 else { return nil }
        let perColumn = sonogram.duration / Double(sonogram.columns)
        var line = [Character](repeating: " ", count: sonogram.columns + 12)
        var any = false
        for box in boxes where box.span.end > sonogram.startTime && box.span.start < sonogram.endTime {
            let first = max(0, Int(((box.span.start - sonogram.startTime) / perColumn).rounded(.down)))
            let last = min(
                sonogram.columns - 1, Int(((box.span.end - sonogram.startTime) / perColumn).rounded(.up)) - 1)
            guard first <= last else { continue }
            any = true
            for column in first...last { line[column] = "━" }
            var label = Array(String(box.number))
            if let band = box.band {
                label += Array(" \(kHz(band.low))-\(band.high.map(kHz) ?? "?")k")
            }
            for (offset, character) in label.enumerated() where first + offset < line.count {
                line[first + offset] = character
            }
        }
        guard any else { return nil }
        return String(repeating: " ", count: gutterWidth) + String(line).trimmingTrailingSpaces()
    }

    /// The pipe form: a header line with the axes, then one `sono:` line per pixel row, top (highest
    /// frequency) first, each exactly `cols` shade characters.
    public static func scriptLines(_ sonogram: Sonogram, label: String) -> [String] {
        let cleanLabel = TerminalText.sanitize(label).split(whereSeparator: \.isWhitespace).joined(separator: "_")
        let low = sonogram.minFrequency > 0 ? kHz(sonogram.minFrequency) : "0"
        let header =
            "sono: \(cleanLabel.isEmpty ? "-" : cleanLabel) \(low)-\(kHz(sonogram.maxFrequency))kHz"
            + " \(String(cFormat: "%.1f", sonogram.startTime))-\(String(cFormat: "%.1f", sonogram.endTime))s"
            + " cols=\(sonogram.columns) rows=\(sonogram.rows)"
        var lines = [header]
        for row in stride(from: sonogram.rows - 1, through: 0, by: -1) {
            lines.append("sono: " + String((0..<sonogram.columns).map { shade(sonogram.level(row: row, column: $0)) }))
        }
        return lines
    }

    /// One text line of picture whose lowest pixel row is `bottomRow`.
    /// One text line of picture whose lowest pixel row is `bottomRow`; `marker` is a column drawn as the
    /// play position (`│` in shade mode, tinted red in colour).
    func pictureLine(_ sonogram: Sonogram, bottomRow: Int, marker: Int? = nil) -> String {
        let columns = 0..<sonogram.columns
        switch mode {
        case .shade:
            return String(
                columns.map { $0 == marker ? "│" : Self.shade(sonogram.level(row: bottomRow, column: $0)) })
        case .trueColor, .palette256:
            var text = ""
            var last: (Int, Int, Bool)?
            for column in columns {
                let top = bottomRow + 1 < sonogram.rows ? sonogram.level(row: bottomRow + 1, column: column) : 0
                let bottom = sonogram.level(row: bottomRow, column: column)
                let colours = (colour(top), colour(bottom), column == marker)
                // Only a change of colour costs an escape.
                if last.map({ $0 != colours }) ?? true {
                    text += escape(foreground: colours.0, background: colours.1, marked: colours.2)
                    last = colours
                }
                text += "▀"
            }
            return text + "\u{1B}[0m"
        }
    }

    /// The live strip: `lines` picture lines and a marker line, `width` characters wide (gutter included).
    /// The picture shows a page of `sonogram`, the page holding `position`, and turns when the position leaves
    /// it: between turns its lines do not change, and only the marker line moves (a terminal redraws only
    /// what changed). The gutter names the band's top and bottom; the marker line names the page's start time
    /// and shows the loop's section (`═`) and the position heard (`▲`, red in colour).
    public func stripLines(
        _ sonogram: Sonogram, position: Double, width: Int, lines: Int, loop: LoopSection? = nil
    ) -> [String] {
        let page = stripPage(sonogram, position: position, width: width, lines: lines)
        return stripPicture(sonogram, page: page) + [stripMarker(sonogram, page: page, position: position, loop: loop)]
    }

    /// Which columns of `sonogram` the strip shows at `position`: the page that holds it.
    public struct StripPage: Sendable, Hashable {
        public var start: Int
        public var visible: Int
        public var lines: Int
    }

    public func stripPage(_ sonogram: Sonogram, position: Double, width: Int, lines: Int) -> StripPage {
        let visible = max(1, min(sonogram.columns, width - Self.gutterWidth))
        let start = min(Self.column(of: position, in: sonogram) / visible * visible, sonogram.columns - visible)
        return StripPage(start: start, visible: visible, lines: max(1, lines))
    }

    /// The picture lines of `page` (the same for every position on it: a caller may keep them).
    public func stripPicture(_ sonogram: Sonogram, page: StripPage) -> [String] {
        let (lines, visible, start) = (page.lines, page.visible, page.start)
        // The page's cells, at the strip's own height (rows merged by max, or repeated).
        let rows = lines * rowsPerLine
        var levels = [Float](repeating: 0, count: rows * visible)
        for row in 0..<rows {
            let first = row * sonogram.rows / rows
            let end = max(first + 1, (row + 1) * sonogram.rows / rows)
            for column in 0..<visible {
                var peak: Float = 0
                for source in first..<end { peak = max(peak, sonogram.level(row: source, column: start + column)) }
                levels[row * visible + column] = peak
            }
        }
        let perColumn = sonogram.columns > 0 ? sonogram.duration / Double(sonogram.columns) : 1
        let picture = Sonogram(
            rows: rows, columns: visible, levels: levels, maxFrequency: sonogram.maxFrequency,
            minFrequency: sonogram.minFrequency, duration: Double(visible) * perColumn, sampleRate: sonogram.sampleRate)
        return (0..<lines).map { line in
            stripGutter(sonogram, line: line, lines: lines)
                + pictureLine(picture, bottomRow: (lines - 1 - line) * rowsPerLine)
        }
    }

    /// The strip's gutter on picture line `line` of `lines`: the band's top on the first, its bottom on the last.
    func stripGutter(_ sonogram: Sonogram, line: Int, lines: Int) -> String {
        if line == 0 {
            return Self.kHz(sonogram.maxFrequency).leftPadded(to: Self.gutterWidth - 2) + "k┐"
        } else if line == lines - 1 {
            return Self.kHz(sonogram.minFrequency).leftPadded(to: Self.gutterWidth - 2) + "k┘"
        }
        return String(repeating: " ", count: Self.gutterWidth - 1) + "│"
    }

    /// The marker line under `page`: its start time, the loop's section and the position.
    public func stripMarker(_ sonogram: Sonogram, page: StripPage, position: Double, loop: LoopSection?) -> String {
        let perColumn = sonogram.columns > 0 ? sonogram.duration / Double(sonogram.columns) : 1
        let pageTime = sonogram.startTime + Double(page.start) * perColumn
        let marked = Self.column(of: position, in: sonogram) - page.start
        var marker = Self.timeLabel(pageTime, step: 1).leftPadded(to: Self.gutterWidth - 1) + "└"
        // Three bytes a column, and the marker's colour: one allocation, not one every few columns (ten times a
        // second while the strip is on).
        marker.reserveCapacity(marker.utf8.count + 3 * page.visible + 16)
        for column in 0..<page.visible {
            let time = pageTime + (Double(column) + 0.5) * perColumn
            if column == marked {
                marker += mode == .shade ? "▲" : "\u{1B}[31m▲\u{1B}[0m"
            } else if let loop, time >= loop.start, time < loop.end {
                marker += "═"
            } else {
                marker += "─"
            }
        }
        return marker
    }

    /// The column holding `position` (clamped to the picture).
    static func column(of position: Double, in sonogram: Sonogram) -> Int {
        let perColumn = sonogram.columns > 0 ? sonogram.duration / Double(sonogram.columns) : 1
        return min(sonogram.columns - 1, max(0, Int((position - sonogram.startTime) / perColumn)))
    }

    /// The colour value for a level: 0–255 grey in 24-bit mode, a 256-palette index otherwise.
    func colour(_ level: Float) -> Int {
        let level = min(1, max(0, level))
        switch mode {
        case .trueColor, .shade:
            return Int((255 * (1 - level)).rounded())
        case .palette256:
            // 255 (lightest grey of the ramp) … 232 (darkest).
            return 255 - Int((level * 23).rounded())
        }
    }

    private func escape(foreground: Int, background: Int, marked: Bool = false) -> String {
        switch mode {
        case .trueColor, .shade:
            // The play position keeps its grey in green and blue under full red: a red line over the picture.
            let red = { (grey: Int) in marked ? 255 : grey }
            return "\u{1B}[38;2;\(red(foreground));\(foreground);\(foreground)m"
                + "\u{1B}[48;2;\(red(background));\(background);\(background)m"
        case .palette256:
            let pick = { (grey: Int) in marked ? (grey < 244 ? 160 : 210) : grey }
            return "\u{1B}[38;5;\(pick(foreground))m\u{1B}[48;5;\(pick(background))m"
        }
    }

    static func shade(_ level: Float) -> Character {
        shades[min(4, max(0, Int((level * 4).rounded())))]
    }

    static func kHz(_ hz: Double) -> String {
        let khz = hz / 1000
        return khz >= 100 ? String(Int(khz.rounded())) : String(cFormat: "%.1f", khz)
    }

    /// Tick columns and their labels: a round step giving at least 10 columns between ticks, at round
    /// recording times (a window from 12.3 s gets ticks at 12.5, 13.0, …).
    func timeTicks(_ sonogram: Sonogram) -> [(Int, String)] {
        guard sonogram.duration > 0, sonogram.columns > 0 else { return [(0, Self.timeLabel(0, step: 1))] }
        let secondsPerColumn = sonogram.duration / Double(sonogram.columns)
        let steps: [Double] = [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600]
        let step = steps.first { $0 / secondsPerColumn >= 10 } ?? 3600
        var ticks: [(Int, String)] = []
        var time = (sonogram.startTime / step).rounded(.up) * step
        while time < sonogram.endTime - 1e-9 {
            let column = Int(((time - sonogram.startTime) / secondsPerColumn).rounded())
            if column < sonogram.columns { ticks.append((column, Self.timeLabel(time, step: step))) }
            time += step
        }
        return ticks
    }

    /// The kHz tick of each text line (top first), at round frequencies: a step of 0.5, 1, 2, 5, 10, 20 or
    /// 50 kHz giving ticks at least 3 lines apart; each tick on the line whose pixel rows hold it.
    static func frequencyTicks(_ sonogram: Sonogram, textLines: Int, rowsPerLine: Int) -> [Double?] {
        var ticks = [Double?](repeating: nil, count: textLines)
        let span = sonogram.maxFrequency - sonogram.minFrequency
        guard span > 0, textLines > 0 else { return ticks }
        let perLine = span / Double(textLines)
        let steps: [Double] = [100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000]
        let step = steps.first { $0 / perLine >= 3 } ?? 100_000
        var hz = (sonogram.minFrequency / step).rounded(.up) * step
        while hz < sonogram.maxFrequency {
            let lineFromBottom = Int((hz - sonogram.minFrequency) / perLine)
            if lineFromBottom < textLines { ticks[textLines - 1 - lineFromBottom] = hz }
            hz += step
        }
        return ticks
    }

    static func timeLabel(_ seconds: Double, step: Double) -> String {
        if step >= 60 || seconds >= 120 {
            let whole = Int(seconds.rounded())
            return "\(whole / 60):" + String(cFormat: "%02d", whole % 60)
        }
        return step < 1 ? String(cFormat: "%.1fs", seconds) : "\(Int(seconds.rounded()))s"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
