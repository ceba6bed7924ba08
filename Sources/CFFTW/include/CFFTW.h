#ifndef CHIRPER_CFFTW_H
#define CHIRPER_CFFTW_H
// FFTW 3, single precision (libfftw3f): the real FFT of the sonogram and the measurements.
//
// libfftw3f is not linked: it is loaded with dlopen by the first FFT made (CLazyLibrary.h), so a session that
// draws and measures nothing never loads it. The `fftwf_*` functions declared by <fftw3.h> that this program
// uses are defined by this target, each calling libfftw3f's through a pointer looked up at load time. Without
// the library the allocators return NULL (which the FFT's owner reports, with `chirper_fftw_load`'s reason).
#include <fftw3.h>
#include <stddef.h>

/// Loads libfftw3f.so.3 and looks up every `fftwf_*` function this program uses (once; later calls return the
/// first call's result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_fftw_load(char *error, size_t size);

// The planner flag and the direction, as constants Swift can see (they are macros).
static const unsigned chirper_fftw_estimate = FFTW_ESTIMATE;
static const int chirper_fftw_forward = FFTW_FORWARD;

#endif
