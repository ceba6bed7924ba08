#ifndef CHIRPER_CSYSTEMD_H
#define CHIRPER_CSYSTEMD_H
// sd-bus (libsystemd), for MPRIS on the session bus.
//
// libsystemd is not linked: it is loaded with dlopen by `chirper_sdbus_load`, when the MPRIS server starts (in
// the background, after the session has started). It brings six libraries of its own (libgcrypt, liblzma,
// libzstd, liblz4, libcap, libgpg-error) whose loading and constructors would cost every start of the program
// time on the path to its first line. The `sd_bus_*` functions declared by
// <systemd/sd-bus.h> that this program uses are defined by this target, each calling libsystemd's through a
// pointer looked up at load time. Call `chirper_sdbus_load` before anything else: it reports a missing library
// as an error. Without the library a forwarder does nothing and returns -ENOSYS (or NULL).
#include <poll.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

/// Loads libsystemd.so.0 and looks up every `sd_bus_*` function this program uses (once; later calls return the
/// first call's result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_sdbus_load(char *error, size_t size);

#endif
