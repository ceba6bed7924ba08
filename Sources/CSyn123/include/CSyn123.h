#ifndef CHIRPER_CSYN123_H
#define CHIRPER_CSYN123_H
// libsyn123 (ships with libmpg123): the resampler of `speed … tape`.
//
// libsyn123 is not linked: it is loaded with dlopen by the first resampler made (CLazyLibrary.h), so a session
// that never changes the speed never loads it. The `syn123_*` functions declared by <syn123.h> that this program
// uses are defined by this target, each calling libsyn123's through a pointer looked up at load time. Without
// the library `syn123_new` returns NULL with the error code -1 (none of the library's), and `syn123_strerror` the reason.
#include <stddef.h>
#include <syn123.h>

/// Loads libsyn123.so.0 and looks up every `syn123_*` function this program uses (once; later calls return the
/// first call's result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_syn123_load(char *error, size_t size);

#endif
