#ifndef CHIRPER_CKISSFFT_SHIM_H
#define CHIRPER_CKISSFFT_SHIM_H
// Debian's libkissfft-float is built with float scalars (kissfft-float.pc says -Dkiss_fft_scalar=float).
#define kiss_fft_scalar float
#include <stdlib.h>
#include <kissfft/kiss_fftr.h>
#endif
