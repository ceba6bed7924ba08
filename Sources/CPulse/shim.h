#ifndef CHIRPER_CPULSE_SHIM_H
#define CHIRPER_CPULSE_SHIM_H
// The asynchronous API (threaded main loop, context, streams); pa_simple is not used.
#include <pulse/pulseaudio.h>
#endif
