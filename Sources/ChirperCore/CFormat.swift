#if canImport(Glibc)
    import Glibc
#endif

extension String {
    /// printf-style text of numbers (C's `vsnprintf`): `String(cFormat: "%.1f", seconds)`. FoundationEssentials,
    /// which the program is built on instead of Foundation (Foundation and ICU cost every start), has
    /// no `String(format:)`. Only numbers go through it, never text from outside. The C library's numeric locale
    /// is never set (the terminal console sets only LC_CTYPE), so the decimal point is always ".".
    public init(cFormat format: String, _ arguments: any CVarArg...) {
        func written(capacity: Int) -> (text: String, needed: Int) {
            withVaList(arguments) { list in
                var buffer = [CChar](repeating: 0, count: capacity)
                let needed = Int(vsnprintf(&buffer, capacity, format, list))
                let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                return (text, needed)
            }
        }
        let first = written(capacity: 64)
        self = first.needed < 64 ? first.text : written(capacity: first.needed + 1).text
    }
}
