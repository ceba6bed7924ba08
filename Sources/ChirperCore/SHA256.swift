/// SHA-256 (FIPS 180-4), fed piece by piece: the check that a model file is the one `make model` wrote. Pure
/// Swift, so that checking a file does not link a second cryptography library into the program.
public struct SHA256: Sendable {
    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private var h: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Bytes not yet making a whole 64-byte block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {}

    public mutating func update(_ bytes: some Collection<UInt8>) {
        length &+= UInt64(bytes.count)
        pending.append(contentsOf: bytes)
        let whole = pending.count / 64 * 64
        guard whole > 0 else { return }
        // Every block through raw pointers, with no array access or call per word: the tests run a debug build,
        // where each of those is a call and a retain, and a model checked that way is not ready before the
        // recording it is to hear live has ended.
        Self.k.withUnsafeBufferPointer { k in
            h.withUnsafeMutableBufferPointer { h in
                pending.withUnsafeBufferPointer { buffer in
                    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                        var offset = 0
                        while offset < whole {
                            Self.compress(
                                buffer.baseAddress! + offset, k: k.baseAddress!, h: h.baseAddress!, w: w.baseAddress!)
                            offset += 64
                        }
                    }
                }
            }
        }
        pending.removeFirst(whole)
    }

    /// The digest, as 64 lower-case hexadecimal digits.
    public mutating func hexDigest() -> String {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        tail += [UInt8](repeating: 0, count: (119 - Int(length % 64)) % 64)
        tail += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * $0)) }
        let kept = length
        update(tail)
        length = kept
        let digits = Array("0123456789abcdef")
        return String(h.flatMap { word in (0..<8).map { digits[Int((word >> (28 - 4 * $0)) & 0xf)] } })
    }

    private static func compress(
        _ block: UnsafePointer<UInt8>, k: UnsafePointer<UInt32>, h: UnsafeMutablePointer<UInt32>,
        w: UnsafeMutablePointer<UInt32>
    ) {
        var i = 0
        while i < 16 {
            let byte = block + 4 * i
            w[i] = UInt32(byte[0]) << 24 | UInt32(byte[1]) << 16 | UInt32(byte[2]) << 8 | UInt32(byte[3])
            i += 1
        }
        while i < 64 {
            let (x, y) = (w[i - 15], w[i - 2])
            let s0 = (x >> 7 | x << 25) ^ (x >> 18 | x << 14) ^ (x >> 3)
            let s1 = (y >> 17 | y << 15) ^ (y >> 19 | y << 13) ^ (y >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            i += 1
        }
        var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
        i = 0
        while i < 64 {
            let s1 = (e >> 6 | e << 26) ^ (e >> 11 | e << 21) ^ (e >> 25 | e << 7)
            let choice = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ choice &+ k[i] &+ w[i]
            let s0 = (a >> 2 | a << 30) ^ (a >> 13 | a << 19) ^ (a >> 22 | a << 10)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ s0 &+ majority)
            i += 1
        }
        h[0] &+= a
        h[1] &+= b
        h[2] &+= c
        h[3] &+= d
        h[4] &+= e
        h[5] &+= f
        h[6] &+= g
        h[7] &+= hh
    }
}
