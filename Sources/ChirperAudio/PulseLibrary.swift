import CPulse
import ChirperCore
import ChirperSystem

/// libpulse, loaded at the first PulseAudio connection instead of at program start (see `CPulse.h`).
enum PulseLibrary {
    /// Loads libpulse once; every other libpulse call comes after this has returned. A machine without it
    /// (no `libpulse0`) gets one line saying so, and `--output wav` or `null` never loads it.
    static func load() throws(AudioSinkError) {
        if let missing = LazyLibrary.missing(chirper_pulse_load, library: "libpulse", package: "libpulse0") {
            throw .soundServer(detail: missing)
        }
    }
}
