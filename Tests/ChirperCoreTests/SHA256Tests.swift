import Testing

@testable import ChirperCore

@Suite("SHA-256, the check of a model file")
struct SHA256Tests {
    private func digest(_ text: String, pieces: Int = 1) -> String {
        var hash = SHA256()
        let bytes = Array(text.utf8)
        let size = max(1, bytes.count / pieces)
        var start = 0
        while start < bytes.count {
            hash.update(bytes[start..<min(bytes.count, start + size)])
            start += size
        }
        return hash.hexDigest()
    }

    @Test("FIPS 180-4's examples, whole and fed in pieces that cross the blocks")
    func knownDigests() {
        #expect(digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(digest(long) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(digest(long, pieces: 7) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            digest(String(repeating: "a", count: 1_000_000), pieces: 13)
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
