// Loads libsyn123 on demand (see include/CSyn123.h): the `syn123_*` functions the Swift code calls are this file's
// forwarders to libsyn123's own (CLazyLibrary.h). CHIRPER_LIBSYN123 names another file to load (tests name a
// missing one).
#include "CSyn123.h"

#include <CLazyLibrary.h>

/// syn123_new without the library: NULL, with the error code set as the library would.
static syn123_handle *chirper_syn123_none(int *err) {
    if (err != NULL) *err = -1;
    return NULL;
}

// X(return type, name, parameters, arguments, value without the library), and V(…) for the void functions.
#define CHIRPER_SYN123_FUNCTIONS(X) \
    X(syn123_handle *, syn123_new, (long rate, int channels, int encoding, size_t maxbuf, int *err), (rate, channels, encoding, maxbuf, err), chirper_syn123_none(err)) \
    X(int, syn123_setup_resample, (syn123_handle *sh, long inrate, long outrate, int channels, int dirty, int smooth), (sh, inrate, outrate, channels, dirty, smooth), -1) \
    X(size_t, syn123_resample, (syn123_handle *sh, float *MPG123_RESTRICT dst, float *MPG123_RESTRICT src, size_t samples), (sh, dst, src, samples), 0) \
    X(size_t, syn123_resample_count, (long inrate, long outrate, size_t ins), (inrate, outrate, ins), 0) \
    X(size_t, syn123_resample_maxincount, (long input_rate, long output_rate), (input_rate, output_rate), 0) \
    X(const char *, syn123_strerror, (int errcode), (errcode), chirper_lazy_failure)

#define CHIRPER_SYN123_VOID_FUNCTIONS(V) V(syn123_del, (syn123_handle *sh), (sh))

CHIRPER_LAZY_LIBRARY(syn123, "libsyn123.so.0", "CHIRPER_LIBSYN123", CHIRPER_SYN123_FUNCTIONS,
                     CHIRPER_SYN123_VOID_FUNCTIONS, CHIRPER_LAZY_NONE)
