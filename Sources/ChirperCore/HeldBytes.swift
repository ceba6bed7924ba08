/// The body bytes that arrived, kept (up to a bound) so a seek or a loop back inside them needs no request.
///
/// Offsets are body offsets (what `Range: bytes=` counts). When the bound is passed the oldest quarter is
/// dropped, so memory stays bounded for long recordings; `heldFrom` says where what is kept begins (the
/// `heldFrom` of `SeekPlan.fetch`). After a new request from offset `o`, `restart(at: o)` starts again there.
public struct HeldBytes: Sendable {
    public let limit: Int
    private var storage: [UInt8] = []
    /// The body offset of `storage[0]`.
    public private(set) var heldFrom: Int64 = 0

    /// - Parameter limit: bytes kept at most (default 64 MiB: a typical xeno-canto MP3 is under 10 MB).
    public init(limit: Int = 64 << 20) {
        self.limit = max(1, limit)
        // Room for the bound and a network chunk past it, once: the storage never grows by doubling, so a
        // long recording holds no more memory than a short one that fills the bound.
        storage.reserveCapacity(self.limit + 256 << 10)
    }

    /// The body offset after the last byte kept.
    public var end: Int64 { heldFrom + Int64(storage.count) }

    /// Keeps the next bytes of the body (they follow `end`). Over the bound, the oldest bytes go, but never
    /// those from `needed` on (the bytes not yet decoded): a chunk larger than the bound is held whole.
    public mutating func append(_ bytes: some Collection<UInt8>, keepingFrom needed: Int64? = nil) {
        storage.append(contentsOf: bytes)
        if storage.count > limit {
            var drop = min(storage.count, max(storage.count - limit, limit / 4))
            if let needed { drop = min(drop, max(0, Int(needed - heldFrom))) }
            storage.removeFirst(drop)
            heldFrom += Int64(drop)
        }
    }

    /// The kept bytes from body offset `offset` to `end`, or nil if `offset` is not kept.
    public func bytes(from offset: Int64) -> ArraySlice<UInt8>? {
        guard offset >= heldFrom, offset <= end else { return nil }
        return storage[Int(offset - heldFrom)...]
    }

    /// Forgets everything and continues from body offset `offset` (after a request from there).
    public mutating func restart(at offset: Int64) {
        storage.removeAll(keepingCapacity: true)
        heldFrom = offset
    }
}
