// Loads libsonic on demand (see include/CSonic.h): the `sonic*` functions the Swift code calls are this file's
// forwarders to libsonic's own (CLazyLibrary.h). CHIRPER_LIBSONIC names another file to load (tests name a
// missing one).
#include "CSonic.h"

#include <CLazyLibrary.h>

// X(return type, name, parameters, arguments, value without the library), and V(…) for the void functions.
#define CHIRPER_SONIC_FUNCTIONS(X) \
    X(sonicStream, sonicCreateStream, (int sampleRate, int numChannels), (sampleRate, numChannels), NULL) \
    X(int, sonicWriteShortToStream, (sonicStream stream, short *samples, int numSamples), (stream, samples, numSamples), 0) \
    X(int, sonicReadShortFromStream, (sonicStream stream, short *samples, int maxSamples), (stream, samples, maxSamples), 0) \
    X(int, sonicFlushStream, (sonicStream stream), (stream), 0) \
    X(int, sonicSamplesAvailable, (sonicStream stream), (stream), 0)

#define CHIRPER_SONIC_VOID_FUNCTIONS(V) \
    V(sonicDestroyStream, (sonicStream stream), (stream)) \
    V(sonicSetSpeed, (sonicStream stream, float speed), (stream, speed))

CHIRPER_LAZY_LIBRARY(sonic, "libsonic.so.0", "CHIRPER_LIBSONIC", CHIRPER_SONIC_FUNCTIONS, CHIRPER_SONIC_VOID_FUNCTIONS,
                     CHIRPER_LAZY_NONE)
