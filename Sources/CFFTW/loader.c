// Loads libfftw3f on demand (see include/CFFTW.h): the `fftwf_*` functions the Swift code calls are this file's
// forwarders to libfftw3f's own (CLazyLibrary.h). CHIRPER_LIBFFTW names another file to load (tests name a
// missing one).
#include "CFFTW.h"

#include <CLazyLibrary.h>

// X(return type, name, parameters, arguments, value without the library), and V(…) for the void functions.
#define CHIRPER_FFTW_FUNCTIONS(X) \
    X(float *, fftwf_alloc_real, (size_t n), (n), NULL) \
    X(fftwf_complex *, fftwf_alloc_complex, (size_t n), (n), NULL) \
    X(fftwf_plan, fftwf_plan_dft_1d, (int n, fftwf_complex *in, fftwf_complex *out, int sign, unsigned flags), \
      (n, in, out, sign, flags), NULL)

#define CHIRPER_FFTW_VOID_FUNCTIONS(V) \
    V(fftwf_free, (void *p), (p)) \
    V(fftwf_execute, (const fftwf_plan p), (p)) \
    V(fftwf_destroy_plan, (fftwf_plan p), (p))

CHIRPER_LAZY_LIBRARY(fftw, "libfftw3f.so.3", "CHIRPER_LIBFFTW", CHIRPER_FFTW_FUNCTIONS, CHIRPER_FFTW_VOID_FUNCTIONS,
                     CHIRPER_LAZY_NONE)
