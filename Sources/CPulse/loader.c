// Loads libpulse on demand (see include/CPulse.h) and defines the `pa_*` functions the Swift code calls, each
// forwarding to libpulse's own. They are hidden, so libpulse's internal calls never reach them.
#include "CPulse.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// X(return type, name, parameters, arguments): every libpulse function the Swift code uses, in two lists:
// those that return a value and those that do not.
#define CHIRPER_PULSE_VALUE_FUNCTIONS(X) \
    X(int, pa_context_connect, (pa_context *c, const char *server, pa_context_flags_t flags, const pa_spawn_api *api), (c, server, flags, api)) \
    X(int, pa_context_errno, (const pa_context *c), (c)) \
    X(pa_context_state_t, pa_context_get_state, (const pa_context *c), (c)) \
    X(pa_context *, pa_context_new, (pa_mainloop_api *mainloop, const char *name), (mainloop, name)) \
    X(pa_operation *, pa_context_set_sink_input_volume, (pa_context *c, uint32_t idx, const pa_cvolume *volume, pa_context_success_cb_t cb, void *userdata), (c, idx, volume, cb, userdata)) \
    X(pa_cvolume *, pa_cvolume_set, (pa_cvolume *a, unsigned channels, pa_volume_t v), (a, channels, v)) \
    X(int, pa_sample_spec_valid, (const pa_sample_spec *spec), (spec)) \
    X(int, pa_stream_connect_playback, (pa_stream *s, const char *dev, const pa_buffer_attr *attr, pa_stream_flags_t flags, const pa_cvolume *volume, pa_stream *sync_stream), (s, dev, attr, flags, volume, sync_stream)) \
    X(pa_operation *, pa_stream_cork, (pa_stream *s, int b, pa_stream_success_cb_t cb, void *userdata), (s, b, cb, userdata)) \
    X(int, pa_stream_disconnect, (pa_stream *s), (s)) \
    X(pa_operation *, pa_stream_drain, (pa_stream *s, pa_stream_success_cb_t cb, void *userdata), (s, cb, userdata)) \
    X(pa_operation *, pa_stream_flush, (pa_stream *s, pa_stream_success_cb_t cb, void *userdata), (s, cb, userdata)) \
    X(pa_context *, pa_stream_get_context, (const pa_stream *p), (p)) \
    X(uint32_t, pa_stream_get_index, (const pa_stream *s), (s)) \
    X(pa_stream_state_t, pa_stream_get_state, (const pa_stream *p), (p)) \
    X(int, pa_stream_get_time, (pa_stream *s, pa_usec_t *r_usec), (s, r_usec)) \
    X(pa_stream *, pa_stream_new, (pa_context *c, const char *name, const pa_sample_spec *ss, const pa_channel_map *map), (c, name, ss, map)) \
    X(pa_operation *, pa_stream_set_name, (pa_stream *s, const char *name, pa_stream_success_cb_t cb, void *userdata), (s, name, cb, userdata)) \
    X(size_t, pa_stream_writable_size, (const pa_stream *p), (p)) \
    X(int, pa_stream_write, (pa_stream *p, const void *data, size_t nbytes, pa_free_cb_t free_cb, int64_t offset, pa_seek_mode_t seek), (p, data, nbytes, free_cb, offset, seek)) \
    X(const char *, pa_strerror, (int error), (error)) \
    X(pa_volume_t, pa_sw_volume_from_linear, (double v), (v)) \
    X(double, pa_sw_volume_to_linear, (pa_volume_t v), (v)) \
    X(pa_mainloop_api *, pa_threaded_mainloop_get_api, (pa_threaded_mainloop *m), (m)) \
    X(pa_threaded_mainloop *, pa_threaded_mainloop_new, (void), ()) \
    X(int, pa_threaded_mainloop_start, (pa_threaded_mainloop *m), (m))

#define CHIRPER_PULSE_VOID_FUNCTIONS(X) \
    X(void, pa_context_disconnect, (pa_context *c), (c)) \
    X(void, pa_context_set_state_callback, (pa_context *c, pa_context_notify_cb_t cb, void *userdata), (c, cb, userdata)) \
    X(void, pa_context_unref, (pa_context *c), (c)) \
    X(void, pa_operation_unref, (pa_operation *o), (o)) \
    X(void, pa_stream_set_state_callback, (pa_stream *s, pa_stream_notify_cb_t cb, void *userdata), (s, cb, userdata)) \
    X(void, pa_stream_set_underflow_callback, (pa_stream *p, pa_stream_notify_cb_t cb, void *userdata), (p, cb, userdata)) \
    X(void, pa_stream_set_write_callback, (pa_stream *p, pa_stream_request_cb_t cb, void *userdata), (p, cb, userdata)) \
    X(void, pa_stream_unref, (pa_stream *s), (s)) \
    X(void, pa_threaded_mainloop_free, (pa_threaded_mainloop *m), (m)) \
    X(void, pa_threaded_mainloop_lock, (pa_threaded_mainloop *m), (m)) \
    X(void, pa_threaded_mainloop_stop, (pa_threaded_mainloop *m), (m)) \
    X(void, pa_threaded_mainloop_unlock, (pa_threaded_mainloop *m), (m))

#define CHIRPER_PULSE_FUNCTIONS(X) CHIRPER_PULSE_VALUE_FUNCTIONS(X) CHIRPER_PULSE_VOID_FUNCTIONS(X)

#define CHIRPER_POINTER(ret, name, params, args) static ret(*loaded_##name) params;
CHIRPER_PULSE_FUNCTIONS(CHIRPER_POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];
static void load(void);

// Each forwarder makes sure the library was loaded (pure helpers such as pa_sw_volume_from_linear may be
// called before any connection); the connection calls `chirper_pulse_load` first, which reports a missing
// library as an error instead. Where the library could not be loaded, a forwarder does nothing and returns
// zero (NULL, 0, PA_CONTEXT_UNCONNECTED…), never calling through a null pointer.
#define CHIRPER_FORWARD_VALUE(ret, name, params, args) \
    __attribute__((visibility("hidden"))) ret name params { \
        pthread_once(&once, load); \
        if (loaded_##name == NULL) { \
            ret none; \
            memset(&none, 0, sizeof none); \
            return none; \
        } \
        return loaded_##name args; \
    }
CHIRPER_PULSE_VALUE_FUNCTIONS(CHIRPER_FORWARD_VALUE)

#define CHIRPER_FORWARD_VOID(ret, name, params, args) \
    __attribute__((visibility("hidden"))) ret name params { \
        pthread_once(&once, load); \
        if (loaded_##name == NULL) return; \
        loaded_##name args; \
    }
CHIRPER_PULSE_VOID_FUNCTIONS(CHIRPER_FORWARD_VOID)

static void clear(void) {
#define CHIRPER_CLEAR(ret, name, params, args) loaded_##name = NULL;
    CHIRPER_PULSE_FUNCTIONS(CHIRPER_CLEAR)
}

static void load(void) {
    // CHIRPER_LIBPULSE names another file to load (a libpulse built elsewhere; tests name a missing one).
    const char *name = getenv("CHIRPER_LIBPULSE");
    void *library = dlopen(name != NULL && name[0] != '\0' ? name : "libpulse.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
#define CHIRPER_LOOKUP(ret, name, params, args) \
    if ((*(void **)&loaded_##name = dlsym(library, #name)) == NULL) { \
        snprintf(failure, sizeof failure, "libpulse.so.0 has no %s", #name); \
        clear(); \
        return; \
    }
    CHIRPER_PULSE_FUNCTIONS(CHIRPER_LOOKUP)
}

int chirper_pulse_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (failure[0] == '\0') return 0;
    if (error != NULL && size > 0) snprintf(error, size, "%s", failure);
    return -1;
}
