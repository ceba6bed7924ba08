#ifndef CHIRPER_CSOXR_H
#define CHIRPER_CSOXR_H
// libsoxr (LGPL-2.1+): the resampler of `identify`, which hears at 48 kHz only.
//
// libsoxr is not linked: it is loaded with dlopen by the first resampler made (CLazyLibrary.h), so a session
// that never identifies never loads it. The `soxr_*` functions declared by <soxr.h> that this program uses are
// defined by this target, each calling libsoxr's through a pointer looked up at load time. Without the library
// `soxr_create` returns NULL and `soxr_process` the reason (which the resampler's owner reports, with
// `chirper_soxr_load`'s reason).
#include <soxr.h>
#include <stddef.h>

/// Loads libsoxr.so.0 and looks up every `soxr_*` function this program uses (once; later calls return the
/// first call's result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_soxr_load(char *error, size_t size);

#endif
