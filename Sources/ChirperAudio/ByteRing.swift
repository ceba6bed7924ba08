/// A bounded first-in first-out queue of bytes in one buffer of a fixed size: bytes are copied in once and
/// read out where they lie, never moved, and the buffer is the bound, not the bound and a growing copy.
///
/// The buffer is allocated at the first append and its pages are left untouched until bytes are written to
/// them, so a queue that never fills costs only what it held. Appends and reads in whole units of
/// `capacity`'s divisor (audio frames) stay in whole units across the wrap, as long as `capacity` is a
/// multiple of the unit.
struct ByteRing {
    let capacity: Int
    private var storage: [UInt8] = []
    /// The index in `storage` of the oldest byte.
    private var head = 0
    /// Bytes held.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var room: Int { capacity - count }

    /// Appends as many of `bytes` as there is room for; returns how many were taken.
    @discardableResult
    mutating func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        let taken = min(bytes.count, room)
        guard taken > 0 else { return 0 }
        if storage.isEmpty {
            // Uninitialized on purpose: no byte is read before it is written, and untouched pages stay unmapped.
            storage = [UInt8](unsafeUninitializedCapacity: capacity) { _, initialized in initialized = capacity }
        }
        var tail = (head + count) % capacity
        var copied = 0
        storage.withUnsafeMutableBytes { buffer in
            while copied < taken {
                let run = min(taken - copied, capacity - tail)
                buffer.baseAddress!.advanced(by: tail).copyMemory(
                    from: bytes.baseAddress!.advanced(by: copied), byteCount: run)
                copied += run
                tail = (tail + run) % capacity
            }
        }
        count += taken
        return taken
    }

    /// The oldest bytes that lie in one piece (up to the end of the buffer), at most `limit` of them; `body`
    /// returns how many it consumed, and those are dropped.
    mutating func consume(upTo limit: Int, _ body: (UnsafeRawBufferPointer) -> Int) {
        let run = min(limit, count, capacity - head)
        guard run > 0 else { return }
        let used = storage.withUnsafeBytes { buffer in
            body(UnsafeRawBufferPointer(rebasing: buffer[head..<(head + run)]))
        }
        let dropped = min(max(used, 0), run)
        head = (head + dropped) % capacity
        count -= dropped
        if count == 0 { head = 0 }
    }

    /// Forgets the bytes held and gives the buffer back.
    mutating func removeAll() {
        storage = []
        head = 0
        count = 0
    }
}
