#ifndef CHIRPER_CSONIC_H
#define CHIRPER_CSONIC_H
// libsonic (Apache-2.0): the pitch-keeping time-stretch of `speed … keep`.
//
// libsonic is not linked: it is loaded with dlopen by the first stretcher made (CLazyLibrary.h), so a session
// that never slows down a sound never loads it. The `sonic*` functions declared by <sonic.h> that this program
// uses are defined by this target, each calling libsonic's through a pointer looked up at load time. Without
// the library `sonicCreateStream` returns NULL (which the stretcher's owner reports, with `chirper_sonic_load`'s
// reason).
#include <sonic.h>
#include <stddef.h>

/// Loads libsonic.so.0 and looks up every `sonic*` function this program uses (once; later calls return the
/// first call's result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_sonic_load(char *error, size_t size);

#endif
