import Testing

@testable import ChirperAudio

@Suite("The byte queue between a track's writes and the sound server")
struct ByteRingTests {
    /// Takes what the ring gives, piece by piece, as the sound server would.
    private func drain(_ ring: inout ByteRing, piece: Int) -> [UInt8] {
        var out: [UInt8] = []
        while ring.count > 0 {
            ring.consume(upTo: piece) { bytes in
                out += bytes
                return bytes.count
            }
        }
        return out
    }

    @Test("bytes come out in the order they went in, across the end of the buffer, however they are taken")
    func orderAcrossTheWrap() {
        var ring = ByteRing(capacity: 12)
        let first: [UInt8] = Array(0..<8)
        #expect(first.withUnsafeBytes { ring.append($0) } == 8)
        var taken: [UInt8] = []
        ring.consume(upTo: 5) { bytes in
            taken += bytes
            return bytes.count
        }
        #expect(taken == [0, 1, 2, 3, 4])
        // 3 held from index 5: the next 9 wrap past the end.
        let second: [UInt8] = Array(8..<17)
        #expect(second.withUnsafeBytes { ring.append($0) } == 9)
        #expect(ring.count == 12 && ring.room == 0)
        // A piece never crosses the end of the buffer: the first stops at it.
        var pieces: [[UInt8]] = []
        while ring.count > 0 {
            ring.consume(upTo: 100) { bytes in
                pieces.append(Array(bytes))
                return bytes.count
            }
        }
        #expect(pieces == [Array(5..<12), Array(12..<17)])
    }

    @Test("a full ring takes only what fits, and says how much")
    func fullRingTakesWhatFits() {
        var ring = ByteRing(capacity: 8)
        let bytes: [UInt8] = Array(0..<10)
        #expect(bytes.withUnsafeBytes { ring.append($0) } == 8)
        #expect(bytes.withUnsafeBytes { ring.append($0) } == 0)
        #expect(drain(&ring, piece: 3) == Array(0..<8))
        #expect(ring.room == 8)
    }

    @Test("a consumer that takes less than it was given leaves the rest, in order, for the next piece")
    func partialConsumption() {
        var ring = ByteRing(capacity: 16)
        let bytes: [UInt8] = Array(0..<16)
        _ = bytes.withUnsafeBytes { ring.append($0) }
        ring.consume(upTo: 10) { _ in 4 }
        #expect(ring.count == 12)
        #expect(drain(&ring, piece: 5) == Array(4..<16))
    }

    @Test("whole audio frames written and read stay whole across the wrap when the size is a multiple of a frame")
    func framesStayWhole() {
        let frame = 4
        var ring = ByteRing(capacity: 6 * frame)
        var written: [UInt8] = []
        var read: [UInt8] = []
        var next: UInt8 = 0
        for round in 0..<40 {
            let frames = (round * 7) % 5 + 1
            let chunk = (0..<(frames * frame)).map { _ in
                defer { next &+= 1 }
                return next
            }
            let taken = chunk.withUnsafeBytes { ring.append($0) }
            written += chunk[..<taken]
            ring.consume(upTo: (round % 3 + 1) * frame) { bytes in
                #expect(bytes.count % frame == 0)
                read += bytes
                return bytes.count
            }
        }
        read += drain(&ring, piece: frame)
        #expect(read == written)
    }

    @Test("emptied, the ring holds nothing and takes bytes again from its start")
    func removeAll() {
        var ring = ByteRing(capacity: 8)
        let bytes: [UInt8] = [1, 2, 3]
        _ = bytes.withUnsafeBytes { ring.append($0) }
        ring.removeAll()
        #expect(ring.count == 0 && ring.room == 8)
        _ = bytes.withUnsafeBytes { ring.append($0) }
        #expect(drain(&ring, piece: 8) == [1, 2, 3])
    }
}
