/// `select` and `measure`: the selection, a measurement, the session's table.
extension Presenter {
    /// The current selection.
    public func selection(_ recording: Recording, span: TimeSpan, band: FrequencyBand?) -> String {
        let bandText = band.map { "\(hz($0.low))-\($0.high.map(hz) ?? "top") Hz" } ?? "all frequencies"
        if isScript {
            return "select: id=\(quote(recording.label)) begin=\(seconds(span.start)) end=\(seconds(span.end))"
                + " low=\(band.map { hz($0.low) } ?? "0") high=\(band?.high.map(hz) ?? "top")"
        }
        return "selection: \(clean(recording.label)) \(clean(recording.englishName)), "
            + "\(preciseClock(span.start))-\(preciseClock(span.end)), \(bandText)"
    }

    public func selectionCleared() -> String {
        isScript ? "select: none" : dim("selection cleared")
    }

    /// One measurement, as it is made.
    public func measurement(_ row: MeasuredSelection, title: String?) -> [String] {
        let m = row.measurement
        if isScript {
            let fields =
                [
                    "n=\(row.number)", "id=\(quote(row.label))",
                ] + (row.name.map { ["name=\(quote($0))"] } ?? []) + [
                    "begin=\(seconds(m.begin))", "end=\(seconds(m.end))",
                    "low=\(hz(m.low))", "high=\(hz(m.high))", "peak_freq=\(hz(m.peakFrequency))",
                    "peak_time=\(seconds(m.peakTime))", "center_freq=\(hz(m.centerFrequency))",
                    "freq5=\(hz(m.frequency5))",
                    "freq25=\(hz(m.frequency25))", "freq75=\(hz(m.frequency75))", "freq95=\(hz(m.frequency95))",
                    "bw90=\(hz(m.bandwidth90))", "bw50=\(hz(m.bandwidth50))", "time5=\(seconds(m.time5))",
                    "time95=\(seconds(m.time95))", "dur90=\(seconds(m.duration90))",
                    "entropy=\(RavenSelectionTable.fixed(m.averageEntropy, 3))",
                    "pfc_slope=\(RavenSelectionTable.fixed(m.contourSlope, 3))",
                    "pfc_inflections=\(m.contourInflections)",
                    "fft=\(m.fftSize)", "hop=\(m.hop)", "rate=\(m.sampleRate)",
                ]
            return ["measure: " + fields.joined(separator: " ")]
        }
        let resolution =
            "Hann \(m.fftSize), hop \(m.hop): \(hz(m.binWidth)) Hz × \(RavenSelectionTable.fixed(m.hopSeconds * 1000, 1)) ms"
        return [
            bold(
                "measure \(row.number)\(row.name.map { " (\(clean($0)))" } ?? ""): \(clean(row.label)) \(clean(title ?? ""))"
            )
                + dim(
                    "  \(preciseClock(m.begin))-\(preciseClock(m.end)), \(hz(m.low))-\(hz(m.high)) Hz (\(resolution))"),
            "  peak \(hz(m.peakFrequency)) Hz at \(seconds(m.peakTime)) s · centre \(hz(m.centerFrequency)) Hz",
            "  freq 5-95 % \(hz(m.frequency5))-\(hz(m.frequency95)) Hz (BW 90 % \(hz(m.bandwidth90)) Hz) · "
                + "25-75 % \(hz(m.frequency25))-\(hz(m.frequency75)) Hz (BW 50 % \(hz(m.bandwidth50)) Hz)",
            "  time 5-95 % \(seconds(m.time5))-\(seconds(m.time95)) s (dur 90 % \(seconds(m.duration90)) s) · "
                + "entropy \(RavenSelectionTable.fixed(m.averageEntropy, 2)) bits · peak-frequency contour "
                + "\(RavenSelectionTable.fixed(m.contourSlope, 2)) Hz/ms, \(m.contourInflections) inflections",
        ]
    }

    /// `measure list`: the session's table, one line a measurement.
    public func selectionTable(_ rows: [MeasuredSelection]) -> [String] {
        if isScript {
            return rows.isEmpty
                ? ["measure: none"]
                : rows.map { row in
                    "measure: "
                        + zip(RavenSelectionTable.columns, RavenSelectionTable.values(row))
                        .map { "\(Self.scriptKey($0))=\(quote($1))" }.joined(separator: " ")
                        + (row.name.map { " annotation=\(quote($0))" } ?? "")
                }
        }
        guard !rows.isEmpty else { return [dim("no measurements yet: measure a selection")] }
        // Rows made from detections are named: the table then ends in their species, left-aligned.
        let named = rows.contains { $0.name != nil }
        let head =
            ["#", "XC", "begin s", "end s", "low Hz", "high Hz", "peak Hz", "centre Hz", "BW 90 %", "dur 90 %"]
            + (named ? ["species"] : [])
        let lines = rows.map { row -> [String] in
            let m = row.measurement
            return [
                String(row.number), clean(row.label), seconds(m.begin), seconds(m.end), hz(m.low), hz(m.high),
                hz(m.peakFrequency), hz(m.centerFrequency), hz(m.bandwidth90), seconds(m.duration90),
            ] + (named ? [clean(row.name ?? "")] : [])
        }
        let widths = head.indices.map { column in ([head] + lines).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            let aligned = zip(cells, widths).enumerated().map { index, cell in
                let pad = String(repeating: " ", count: cell.1 - cell.0.count)
                return named && index == cells.count - 1 ? cell.0 : pad + cell.0
            }
            return aligned.joined(separator: "  ").trimmingTrailingSpaces()
        }
        return [bold(line(head))] + lines.map(line)
    }

    public func tableWritten(_ path: String, rows: Int) -> String {
        isScript
            ? "measure: saved=\(quote(path)) rows=\(rows)"
            : dim("selection table (\(rows) rows) written to \(clean(path)) for Raven")
    }

    private func hz(_ value: Double) -> String { String(Int(value.rounded())) }
    private func seconds(_ value: Double) -> String { RavenSelectionTable.fixed(value, 3) }

    /// `Begin Time (s)` → `begin_time_s`.
    /// A column's key in a `measure:` line; Raven's `XC` column holds the recording's id, which is what `id`
    /// names in every other line (and `xc` is a xeno-canto number, which another catalog's id is not).
    private static func scriptKey(_ column: String) -> String {
        column == "XC" ? "id" : key(column)
    }

    private static func key(_ column: String) -> String {
        var key = ""
        for character in column.lowercased() {
            if character.isLetter || character.isNumber {
                key.append(character)
            } else if key.last != "_" && !key.isEmpty {
                key.append("_")
            }
        }
        while key.last == "_" { key.removeLast() }
        return key
    }
}
