/// Reads fuzzed fields off the front of an input, as structure-aware targets need them: every read succeeds
/// (an exhausted input reads as zeros), so any input is a valid program for the target.
public struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    public var isEmpty: Bool { at >= bytes.count }

    public mutating func byte() -> UInt8 {
        defer { at += 1 }
        return at < bytes.count ? bytes[at] : 0
    }

    /// A little-endian integer of `width` bytes.
    public mutating func integer(bytes width: Int) -> Int {
        (0..<width).reduce(0) { value, index in value | Int(byte()) << (8 * index) }
    }

    /// An integer in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = range.upperBound - range.lowerBound + 1
        return range.lowerBound + integer(bytes: span > 256 ? (span > 65536 ? 4 : 2) : 1) % span
    }

    /// One of `choices`.
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[int(in: 0...(choices.count - 1))]
    }

    /// The next `count` bytes (fewer at the end).
    public mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, at + max(0, count))
        defer { at = max(at, end) }
        return at < end ? Array(bytes[at..<end]) : []
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] { take(bytes.count - at) }
}

/// Piece sizes for feeding bytes as a network would: drawn from a seed, so an input says how it is split.
public struct FuzzPieces: IteratorProtocol {
    private var state: UInt64

    public init(seed: UInt8) {
        state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    /// A size from 1 byte to 16 KiB, small ones as often as large ones.
    public mutating func next() -> Int? {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let scale = Int(state % 15)
        return 1 + Int(state >> 8) % (1 << scale)
    }

    /// `bytes` cut into pieces.
    public mutating func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count, let size = next() {
            pieces.append(bytes[start..<min(bytes.count, start + size)])
            start += size
        }
        return pieces
    }
}
