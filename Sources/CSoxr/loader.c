// Loads libsoxr on demand (see include/CSoxr.h): the `soxr_*` functions the Swift code calls are this file's
// forwarders to libsoxr's own (CLazyLibrary.h). CHIRPER_LIBSOXR names another file to load (tests name a
// missing one).
#include "CSoxr.h"

#include <CLazyLibrary.h>

// X(return type, name, parameters, arguments, value without the library), and V(…) for the void functions.
#define CHIRPER_SOXR_FUNCTIONS(X) \
    X(soxr_t, soxr_create, \
      (double input_rate, double output_rate, unsigned num_channels, soxr_error_t *error, \
       soxr_io_spec_t const *io, soxr_quality_spec_t const *quality, soxr_runtime_spec_t const *runtime), \
      (input_rate, output_rate, num_channels, error, io, quality, runtime), NULL) \
    X(soxr_error_t, soxr_process, \
      (soxr_t resampler, soxr_in_t in, size_t ilen, size_t *idone, soxr_out_t out, size_t olen, size_t *odone), \
      (resampler, in, ilen, idone, out, olen, odone), chirper_lazy_failure) \
    X(soxr_quality_spec_t, soxr_quality_spec, (unsigned long recipe, unsigned long flags), (recipe, flags), \
      (soxr_quality_spec_t){0}) \
    X(double, soxr_delay, (soxr_t resampler), (resampler), 0)

#define CHIRPER_SOXR_VOID_FUNCTIONS(V) V(soxr_delete, (soxr_t resampler), (resampler))

CHIRPER_LAZY_LIBRARY(soxr, "libsoxr.so.0", "CHIRPER_LIBSOXR", CHIRPER_SOXR_FUNCTIONS, CHIRPER_SOXR_VOID_FUNCTIONS,
                     CHIRPER_LAZY_NONE)
