import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// From the accumulated cells to the picture: their dB (kept, and converted again only where frames landed
/// since), the contrast, and the levels drawn.
extension SonogramAccumulator {
    /// The first `used` columns; a column no frame landed in repeats its left neighbour (a picture wider than
    /// the frames), or is blank (`blankUnheard`: audio not heard yet, or skipped by a seek).
    func picture(columns used: Int, duration: Double, blankUnheard: Bool) -> Sonogram {
        let rows = shape.rows
        refreshDecibels()
        let (floor, ceiling) = decibelCells.withUnsafeBufferPointer {
            range(of: UnsafeBufferPointer(rebasing: $0[0..<(used * rows)]), all: used == shape.columns)
        }
        var levels = [Float](repeating: 0, count: rows * used)
        let span = ceiling - floor
        var previous = [Float](repeating: floor, count: rows)
        decibelCells.withUnsafeBufferPointer { decibels in
            for column in 0..<used {
                for row in 0..<rows {
                    var db = decibels[column * rows + row]
                    if db.isNaN {
                        if blankUnheard { continue }
                        db = previous[row]
                    }
                    previous[row] = db
                    levels[row * used + column] = min(1, max(0, (db - floor) / span))
                }
            }
        }
        return Sonogram(
            rows: rows, columns: used, levels: levels, maxFrequency: maxFrequency, minFrequency: minFrequency,
            duration: duration, startTime: startTime, sampleRate: sampleRate, floorDB: floor, ceilingDB: ceiling,
            fftSize: size, hop: hop, dftSize: dft)
    }

    /// Brings `decibelCells` up to date with `cells`.
    private func refreshDecibels() {
        guard let stale = staleColumns else { return }
        let rows = shape.rows
        for cell in (stale.lowerBound * rows)..<(stale.upperBound * rows) {
            let value = Self.decibels(cells[cell])
            decibelCounts.remove(decibelCells[cell])
            decibelCounts.add(value)
            decibelCells[cell] = value
        }
        staleColumns = nil
    }

    /// The dB drawn as 0 and as 1: fixed, or the 20th and 99.9th percentiles of the picture's cells (at least
    /// 30 dB apart, so a recording of noise alone stays light; the ceiling at least −70 dB, so near-silence,
    /// such as dither, stays blank).
    /// `all`: `decibels` is every cell, whose values `decibelCounts` has counted.
    private func range(of decibels: UnsafeBufferPointer<Float>, all: Bool) -> (Float, Float) {
        switch shape.contrast {
        case .fixed(let floor, let ceiling):
            return (floor, max(ceiling, floor + 1))
        case .auto:
            let ranks = { (count: Int) in [Int(Double(count - 1) * 0.2), Int(Double(count - 1) * 0.999)] }
            let found =
                all
                ? decibelCounts.values(in: decibels, ranks: ranks)
                : OrderStatistics.finiteValues(in: decibels, ranks: ranks)
            guard let found else { return (-90, -10) }
            let ceiling = max(-70, found[1])
            return (min(found[0], ceiling - 30), ceiling)
        }
    }

    /// dB of a cell's power (NaN stays NaN: no frame landed there).
    private static func decibels(_ power: Float) -> Float {
        power > 0 ? 10 * log10(power) : (power.isNaN ? .nan : -Float.infinity)
    }
}
