#if canImport(Glibc)
    import Glibc
#endif

/// The hosts reached without the proxy, from `NO_PROXY` as curl reads it: entries separated by commas (or
/// spaces); `*` alone is every host; a name matches itself and every name under it (`example.org` and
/// `.example.org` both match `example.org` and `www.example.org`); an IP address matches itself, an address
/// with `/BITS` its network (`10.0.0.0/8`, `fd00::/8`); `localhost` is a name like any other. An entry with
/// `:PORT` matches that port only. Names compare without case and without a trailing dot.
public struct ProxyBypass: Sendable, Equatable {
    enum Entry: Sendable, Equatable {
        case everything
        case name(String, port: Int?)
        case network([UInt8], bits: Int, port: Int?)
    }

    let entries: [Entry]

    public init(_ list: String) {
        entries = list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).compactMap {
            Self.entry(String($0))
        }
    }

    /// Whether a request to `host` (a name, or an IP address with or without brackets) on `port` skips the
    /// proxy.
    public func matches(host: String, port: Int) -> Bool {
        let name = Self.normalised(host)
        let address = Self.address(name)
        return entries.contains { entry in
            switch entry {
            case .everything:
                return true
            case .name(let pattern, let only):
                guard only == nil || only == port else { return false }
                return name == pattern || name.hasSuffix("." + pattern)
            case .network(let network, let bits, let only):
                guard only == nil || only == port, let address, address.count == network.count else { return false }
                return Self.prefix(of: address, bits: bits) == Self.prefix(of: network, bits: bits)
            }
        }
    }

    static func entry(_ text: String) -> Entry? {
        var text = text.blankTrimmed.lowercased()
        if text == "*" { return .everything }
        if text.hasPrefix(".") { text.removeFirst() }
        guard !text.isEmpty else { return nil }
        var port: Int?
        if text.hasPrefix("[") {
            // [v6]:port or [v6]/bits
            guard let close = text.firstIndex(of: "]") else { return nil }
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") { port = Int(after.dropFirst()) }
            text = String(text[text.index(after: text.startIndex)..<close]) + (after.hasPrefix("/") ? after : "")
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":"),
            let number = Int(text[text.index(after: colon)...])
        {
            port = number
            text = String(text[..<colon])
        }
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        if let bytes = address(parts[0]) {
            let maximum = bytes.count * 8
            let bits = parts.count == 2 ? Int(parts[1]) : maximum
            guard let bits, (0...maximum).contains(bits) else { return nil }
            return .network(bytes, bits: bits, port: port)
        }
        return .name(normalised(text), port: port)
    }

    /// A host as compared: lowercase, without brackets or a trailing dot.
    static func normalised(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The bytes of an IPv4 or IPv6 address, nil for a name.
    static func address(_ text: String) -> [UInt8]? {
        var four = in_addr()
        if inet_pton(AF_INET, text, &four) == 1 {
            return withUnsafeBytes(of: &four) { Array($0) }
        }
        var six = in6_addr()
        if inet_pton(AF_INET6, text, &six) == 1 {
            return withUnsafeBytes(of: &six) { Array($0) }
        }
        return nil
    }

    /// The first `bits` bits of `bytes`, the rest zero.
    static func prefix(of bytes: [UInt8], bits: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let keep = max(0, min(8, bits - index * 8))
            return keep == 0 ? 0 : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and newlines.
    var blankTrimmed: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
