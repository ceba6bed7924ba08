#ifndef CHIRPER_CFFTW_SHIM_H
#define CHIRPER_CFFTW_SHIM_H
// FFTW 3, single precision (libfftw3f): the real FFT of the sonogram and the measurements.
#include <fftw3.h>
// The planner flags, as constants Swift can see (they are macros).
static const unsigned chirper_fftw_estimate = FFTW_ESTIMATE;
#endif
