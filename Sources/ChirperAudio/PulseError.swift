import CPulse

/// The one funnel from libpulse's error codes to the library's own message
/// (`pa_strerror`), for the `AudioSinkError` details, as `MP3Decoder.check` is for libmpg123.
enum PulseError {
    /// The library's message for a `PA_ERR_*` code (libpulse returns them negated; either sign works).
    static func message(_ code: Int32) -> String {
        guard let text = pa_strerror(code < 0 ? -code : code) else { return "PulseAudio error \(code)" }
        return String(cString: text)
    }

    /// The library's message for the last error of `context`.
    static func message(of context: OpaquePointer) -> String {
        message(pa_context_errno(context))
    }
}
