// Loads libpulse on demand (see include/CPulse.h): the `pa_*` functions the Swift code calls are this file's
// forwarders to libpulse's own (CLazyLibrary.h). CHIRPER_LIBPULSE names another file to load (a libpulse built
// elsewhere; tests name a missing one).
#include "CPulse.h"

#include <CLazyLibrary.h>

// X(return type, name, parameters, arguments, value without the library), and V(…) for the void functions:
// every libpulse function the Swift code uses.
#define CHIRPER_PULSE_VALUE_FUNCTIONS(X) \
    X(int, pa_context_connect, (pa_context *c, const char *server, pa_context_flags_t flags, const pa_spawn_api *api), (c, server, flags, api), -1) \
    X(int, pa_context_errno, (const pa_context *c), (c), 0) \
    X(pa_context_state_t, pa_context_get_state, (const pa_context *c), (c), PA_CONTEXT_UNCONNECTED) \
    X(pa_context *, pa_context_new, (pa_mainloop_api *mainloop, const char *name), (mainloop, name), NULL) \
    X(pa_operation *, pa_context_set_sink_input_volume, (pa_context *c, uint32_t idx, const pa_cvolume *volume, pa_context_success_cb_t cb, void *userdata), (c, idx, volume, cb, userdata), NULL) \
    X(pa_cvolume *, pa_cvolume_set, (pa_cvolume *a, unsigned channels, pa_volume_t v), (a, channels, v), NULL) \
    X(int, pa_sample_spec_valid, (const pa_sample_spec *spec), (spec), 0) \
    X(int, pa_stream_connect_playback, (pa_stream *s, const char *dev, const pa_buffer_attr *attr, pa_stream_flags_t flags, const pa_cvolume *volume, pa_stream *sync_stream), (s, dev, attr, flags, volume, sync_stream), -1) \
    X(pa_operation *, pa_stream_cork, (pa_stream *s, int b, pa_stream_success_cb_t cb, void *userdata), (s, b, cb, userdata), NULL) \
    X(int, pa_stream_disconnect, (pa_stream *s), (s), -1) \
    X(pa_operation *, pa_stream_drain, (pa_stream *s, pa_stream_success_cb_t cb, void *userdata), (s, cb, userdata), NULL) \
    X(pa_operation *, pa_stream_flush, (pa_stream *s, pa_stream_success_cb_t cb, void *userdata), (s, cb, userdata), NULL) \
    X(pa_context *, pa_stream_get_context, (const pa_stream *p), (p), NULL) \
    X(uint32_t, pa_stream_get_index, (const pa_stream *s), (s), 0) \
    X(pa_stream_state_t, pa_stream_get_state, (const pa_stream *p), (p), PA_STREAM_UNCONNECTED) \
    X(int, pa_stream_get_time, (pa_stream *s, pa_usec_t *r_usec), (s, r_usec), -1) \
    X(pa_stream *, pa_stream_new, (pa_context *c, const char *name, const pa_sample_spec *ss, const pa_channel_map *map), (c, name, ss, map), NULL) \
    X(pa_operation *, pa_stream_set_name, (pa_stream *s, const char *name, pa_stream_success_cb_t cb, void *userdata), (s, name, cb, userdata), NULL) \
    X(size_t, pa_stream_writable_size, (const pa_stream *p), (p), 0) \
    X(int, pa_stream_write, (pa_stream *p, const void *data, size_t nbytes, pa_free_cb_t free_cb, int64_t offset, pa_seek_mode_t seek), (p, data, nbytes, free_cb, offset, seek), -1) \
    X(const char *, pa_strerror, (int error), (error), chirper_lazy_failure) \
    X(pa_volume_t, pa_sw_volume_from_linear, (double v), (v), 0) \
    X(double, pa_sw_volume_to_linear, (pa_volume_t v), (v), 0) \
    X(pa_mainloop_api *, pa_threaded_mainloop_get_api, (pa_threaded_mainloop *m), (m), NULL) \
    X(pa_threaded_mainloop *, pa_threaded_mainloop_new, (void), (), NULL) \
    X(int, pa_threaded_mainloop_start, (pa_threaded_mainloop *m), (m), -1)

#define CHIRPER_PULSE_VOID_FUNCTIONS(V) \
    V(pa_context_disconnect, (pa_context *c), (c)) \
    V(pa_context_set_state_callback, (pa_context *c, pa_context_notify_cb_t cb, void *userdata), (c, cb, userdata)) \
    V(pa_context_unref, (pa_context *c), (c)) \
    V(pa_operation_unref, (pa_operation *o), (o)) \
    V(pa_stream_set_state_callback, (pa_stream *s, pa_stream_notify_cb_t cb, void *userdata), (s, cb, userdata)) \
    V(pa_stream_set_underflow_callback, (pa_stream *p, pa_stream_notify_cb_t cb, void *userdata), (p, cb, userdata)) \
    V(pa_stream_set_write_callback, (pa_stream *p, pa_stream_request_cb_t cb, void *userdata), (p, cb, userdata)) \
    V(pa_stream_unref, (pa_stream *s), (s)) \
    V(pa_threaded_mainloop_free, (pa_threaded_mainloop *m), (m)) \
    V(pa_threaded_mainloop_lock, (pa_threaded_mainloop *m), (m)) \
    V(pa_threaded_mainloop_stop, (pa_threaded_mainloop *m), (m)) \
    V(pa_threaded_mainloop_unlock, (pa_threaded_mainloop *m), (m))

CHIRPER_LAZY_LIBRARY(pulse, "libpulse.so.0", "CHIRPER_LIBPULSE", CHIRPER_PULSE_VALUE_FUNCTIONS,
                     CHIRPER_PULSE_VOID_FUNCTIONS, CHIRPER_LAZY_NONE)
