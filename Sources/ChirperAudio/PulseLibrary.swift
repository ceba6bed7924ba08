import CPulse

/// libpulse, loaded at the first PulseAudio connection instead of at program start (see `CPulse.h`).
enum PulseLibrary {
    /// Loads libpulse once; every other libpulse call comes after this has returned. A machine without it
    /// (no `libpulse0`) gets one line saying so, and `--output wav` or `null` never loads it.
    static func load() throws(AudioSinkError) {
        var reason = [CChar](repeating: 0, count: 256)
        guard chirper_pulse_load(&reason, reason.count) != 0 else { return }
        let detail = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw .soundServer(detail: "cannot load libpulse (\(detail)); install libpulse0")
    }
}
