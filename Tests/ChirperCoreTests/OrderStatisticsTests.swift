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
}
