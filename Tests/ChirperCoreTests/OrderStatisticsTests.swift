import Testing

@testable import ChirperCore

@Suite("Percentiles without sorting")
struct OrderStatisticsTests {
    @Test("each rank's value is the one sorting gives, for spread, clustered, repeated and two-valued lists")
    func matchesSorting() {
        var generator = SystemRandomNumberGenerator()
        let lists: [[Float]] = [
            (0..<10_000).map { _ in Float.random(in: -120...0, using: &generator) },
            // Most cells in one narrow band (a quiet floor), a few loud.
            (0..<10_000).map {
                $0 % 100 == 0 ? Float.random(in: -20...0, using: &generator) : -95 + Float($0 % 7) * 1e-4
            },
            [Float](repeating: -60, count: 500) + [-10],
            [-30, -90],
            [-42],
        ]
        for list in lists {
            let sorted = list.sorted()
            let ranks = [0, Int(Double(list.count - 1) * 0.2), Int(Double(list.count - 1) * 0.999), list.count - 1]
            #expect(OrderStatistics.values(at: ranks, in: list) == ranks.map { sorted[$0] }, "\(list.count) values")
        }
    }

    @Test("the finite values' ranks leave NaN and the infinities out, as a picture's unheard and silent cells")
    func finiteOnly() {
        let values: [Float] = [.nan, -40, -.infinity, -80, .nan, -10, .infinity, -60, -20]
        let finite = values.filter(\.isFinite).sorted()
        let found = values.withUnsafeBufferPointer { buffer in
            OrderStatistics.finiteValues(in: buffer) { count in [0, count / 2, count - 1] }
        }
        #expect(found == [finite[0], finite[finite.count / 2], finite[finite.count - 1]])
        let none: [Float] = [.nan, -.infinity, .nan]
        #expect(none.withUnsafeBufferPointer { OrderStatistics.finiteValues(in: $0) { _ in [0] } } == nil)
    }

    @Test("a running count gives the ranks sorting gives, after values change, beyond its bins and in one bin")
    func runningCount() {
        var generator = SystemRandomNumberGenerator()
        var values: [Float] = (0..<20_000).map { index in
            switch index % 50 {
            case 0: return .nan
            case 1: return -.infinity
            case 2: return -400 + Float(index % 7)  // below the first bin
            case 3: return 90 + Float(index % 5)  // above the last
            default: return Float.random(in: -120...0, using: &generator)
            }
        }
        var counts = DecibelHistogram()
        for value in values { counts.add(value) }
        // Cells grow louder, as a column does while its frames land; some are heard for the first time.
        for index in stride(from: 0, to: values.count, by: 3) {
            counts.remove(values[index])
            values[index] = values[index].isNaN ? -50 : values[index] + 3
            counts.add(values[index])
        }
        // A quiet floor in one narrow band: every rank in one bin.
        let floor = [Float](repeating: -95.001, count: 300) + (0..<300).map { -95 + Float($0) * 1e-6 }
        var floorCounts = DecibelHistogram()
        for value in floor { floorCounts.add(value) }
        for (list, counted) in [(values, counts), (floor, floorCounts)] {
            let sorted = list.filter(\.isFinite).sorted()
            let ranks = { (count: Int) in [0, count / 5, count * 999 / 1000, count - 1] }
            let found = list.withUnsafeBufferPointer { counted.values(in: $0, ranks: ranks) }
            #expect(counted.count == sorted.count)
            #expect(found == ranks(sorted.count).map { sorted[$0] })
        }
    }
}
