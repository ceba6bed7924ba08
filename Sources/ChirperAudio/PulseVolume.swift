import CPulse

/// The PulseAudio stream volume for `volume` and `mute` (a muted stream is set to volume 0): set on the server, so it acts on what is heard now,
/// not ~2 s later as a gain applied before the sink's buffer would (`Gain`).
///
/// For `PulseOutput` to call later, on its stream; these functions issue the request and return (the
/// server applies it within a few milliseconds). Call with the threaded mainloop lock held, as every libpulse
/// call on the context.
public enum PulseVolume {
    /// The volume PulseAudio uses for `percent` (0…100) on a linear amplitude scale: 50 is half the
    /// amplitude (−6 dB), 100 is the stream's normal volume (`PA_VOLUME_NORM`), 0 is muted.
    public static func volume(percent: Int) -> pa_volume_t {
        pa_sw_volume_from_linear(Gain.linear(percent: percent))
    }

    /// The amplitude factor a PulseAudio volume gives: the inverse of `volume(percent:)`.
    public static func linear(_ volume: pa_volume_t) -> Double {
        pa_sw_volume_to_linear(volume)
    }

    /// Sets the stream's volume on every channel (`pa_context_set_sink_input_volume`).
    public static func set(percent: Int, context: OpaquePointer, stream: OpaquePointer, channels: Int) {
        var volume = pa_cvolume()
        pa_cvolume_set(&volume, UInt32(max(1, channels)), Self.volume(percent: percent))
        let index = pa_stream_get_index(stream)
        // PA_INVALID_INDEX ((uint32_t) -1) does not import.
        guard index != UInt32.max else { return }  // not connected yet: set it at connect time instead
        if let operation = pa_context_set_sink_input_volume(context, index, &volume, nil, nil) {
            pa_operation_unref(operation)
        }
    }
}
