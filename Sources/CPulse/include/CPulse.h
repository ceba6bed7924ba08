#ifndef CHIRPER_CPULSE_H
#define CHIRPER_CPULSE_H
// libpulse's asynchronous API (threaded main loop, context, streams); pa_simple is not used.
//
// libpulse is not linked: it is loaded with dlopen by `chirper_pulse_load`, the first time a PulseAudio
// output is made (in the background at start-up, while the first search runs). It brings a few dozen shared
// libraries of its own (X11, D-Bus, sndfile, FLAC, vorbis, opus, gcrypt…), which would cost every start of the
// program their dynamic loading on the path to its first line, even with `--output wav` or
// `--version`. The `pa_*` functions declared below are this target's own, each calling libpulse's through a
// pointer looked up at load time (loading it first if need be). Call `chirper_pulse_load` before anything
// else: it reports a missing library as an error. Without the library a forwarder does nothing and returns
// NULL, 0, an unconnected state, -1 where 0 would mean success, or the reason (pa_strerror), so a stray call
// cannot crash (CLazyLibrary.h). `CHIRPER_LIBPULSE` in the environment names another file.
#include <pulse/pulseaudio.h>
#include <stddef.h>

/// Loads libpulse.so.0 and looks up every `pa_*` function this program uses (once; later calls return the
/// first call's result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_pulse_load(char *error, size_t size);

#endif
