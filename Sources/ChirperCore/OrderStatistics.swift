/// Values of given ranks in a list (its percentiles), exactly and in linear time, for the sonogram's contrast:
/// sorting a pixel picture's million cells took a tenth of a second.
enum OrderStatistics {
    /// Bins of the histogram that finds each rank's neighbourhood.
    static let bins = 4096

    /// The values at `ranks` (0-based, in ascending order of value) of `values` (finite, not empty): the
    /// histogram over the values' range finds the bin holding each rank, and only that bin's values are sorted.
    static func values(at ranks: [Int], in values: [Float]) -> [Float] {
        values.withUnsafeBufferPointer { finiteValues(in: $0) { _ in ranks } } ?? ranks.map { _ in 0 }
    }

    /// The values at the ranks `ranks(count)` gives for the `count` finite values of `values`, leaving NaN and
    /// the infinities out as if they were not there; nil when none is finite. Three passes over `values` and
    /// no copy of them: the live strip asks this of a picture that grows every second.
    static func finiteValues(in values: UnsafeBufferPointer<Float>, ranks: (Int) -> [Int]) -> [Float]? {
        var (count, low, high) = (0, Float.infinity, -Float.infinity)
        for value in values where value.isFinite {
            count += 1
            low = min(low, value)
            high = max(high, value)
        }
        guard count > 0 else { return nil }
        let wanted = ranks(count).map { min(count - 1, max(0, $0)) }
        guard high > low else { return wanted.map { _ in low } }
        let scale = Float(bins) / (high - low)
        func bin(_ value: Float) -> Int { min(bins - 1, Int((value - low) * scale)) }
        var counts = [Int](repeating: 0, count: bins)
        for value in values where value.isFinite { counts[bin(value)] += 1 }
        return Self.values(at: wanted, bins: bins, count: { counts[$0] }, bin: bin, in: values)
    }

    /// The values at `ranks` (0-based, in range) of the finite `values`, counted in `bins` bins ordered as the
    /// values are (`count(b)` of them in bin `b`, which `bin` gives for a value): the counts find the bin
    /// holding each rank and its rank there, one pass collects those bins' values, and only they are sorted.
    static func values(
        at ranks: [Int], bins: Int, count: (Int) -> Int, bin: (Float) -> Int, in values: UnsafeBufferPointer<Float>
    ) -> [Float] {
        let places = ranks.map { rank in
            var (below, found) = (0, 0)
            while found < bins - 1 && below + count(found) <= rank {
                below += count(found)
                found += 1
            }
            return (bin: found, rank: rank - below)
        }
        // Which of the collected lists a bin's values go to (-1: none): one look-up per value.
        var slot = [Int](repeating: -1, count: bins)
        var collected: [[Float]] = []
        for place in places where slot[place.bin] < 0 {
            slot[place.bin] = collected.count
            collected.append([])
        }
        for value in values where value.isFinite {
            let index = slot[bin(value)]
            if index >= 0 { collected[index].append(value) }
        }
        let sorted = collected.map { $0.sorted() }
        return places.map { place in
            let values = sorted[slot[place.bin]]
            return values[min(values.count - 1, place.rank)]
        }
    }
}
