/// A running count of a picture's finite dB values in fixed bins of 1/64 dB, kept as cells change, so that a
/// picture drawn again every second finds its percentiles without counting a million cells again: the counts
/// say which bin holds each rank, and one pass over the values collects that bin's, which are sorted
/// (`OrderStatistics.values(at:bins:count:bin:in:)`). Exact: the bins are ordered as the values are, and the
/// pass puts each value in its bin the way the counts did.
struct DecibelHistogram {
    /// Values below the first bin's floor, or at or above the last's, count in the first or the last bin.
    static let floor: Float = -256
    static let binsPerDecibel: Float = 64
    static let bins = 320 * 64

    private var counts = [Int32](repeating: 0, count: DecibelHistogram.bins)
    /// The finite values counted.
    private(set) var count = 0

    static func bin(_ value: Float) -> Int {
        let place = (value - floor) * binsPerDecibel
        return place < 0 ? 0 : min(bins - 1, Int(place))
    }

    /// Counts `value`; NaN and the infinities are left out.
    mutating func add(_ value: Float) {
        guard value.isFinite else { return }
        counts[Self.bin(value)] += 1
        count += 1
    }

    /// No longer counts `value`, which was added.
    mutating func remove(_ value: Float) {
        guard value.isFinite else { return }
        counts[Self.bin(value)] -= 1
        count -= 1
    }

    /// The values at the ranks `ranks(count)` gives of the counted values, which `values` holds (with NaN and
    /// the infinities, left out); nil when none is counted.
    func values(in values: UnsafeBufferPointer<Float>, ranks: (Int) -> [Int]) -> [Float]? {
        guard count > 0 else { return nil }
        let wanted = ranks(count).map { min(count - 1, max(0, $0)) }
        return OrderStatistics.values(
            at: wanted, bins: Self.bins, count: { Int(counts[$0]) }, bin: Self.bin, in: values)
    }
}
