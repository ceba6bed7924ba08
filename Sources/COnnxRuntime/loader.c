// Loads ONNX Runtime on demand (see include/COnnxRuntime.h). Unlike the libraries of CLazyLibrary.h, whose
// name is fixed, this one is a file the caller names (it is fetched into the user's data folder, not installed),
// and it offers one function, whose table serves every call.
#include "COnnxRuntime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t chirper_onnxruntime_lock = PTHREAD_MUTEX_INITIALIZER;
/// The table of the library loaded, and the file it was loaded from (NULL and empty before).
static const OrtApi *chirper_onnxruntime_api;
static char chirper_onnxruntime_file[4096];

const OrtApi *chirper_onnxruntime_load(const char *path, char *error, size_t size) {
    char reason[512] = "";
    const OrtApi *api = NULL;
    pthread_mutex_lock(&chirper_onnxruntime_lock);
    if (chirper_onnxruntime_api != NULL && strcmp(path, chirper_onnxruntime_file) == 0) {
        api = chirper_onnxruntime_api;
    } else {
        // Never closed once its table is handed out: ONNX Runtime keeps threads and statics that outlive a call.
        void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        const OrtApiBase *(*base)(void) = library == NULL ? NULL : (const OrtApiBase *(*)(void))dlsym(library, "OrtGetApiBase");
        if (library == NULL) {
            snprintf(reason, sizeof reason, "%s", dlerror());
        } else if (base == NULL) {
            snprintf(reason, sizeof reason, "%s has no OrtGetApiBase", path);
            dlclose(library);
        } else if ((api = base()->GetApi(ORT_API_VERSION)) == NULL) {
            snprintf(reason, sizeof reason, "%s is ONNX Runtime %s, older than the API version %d this program needs",
                     path, base()->GetVersionString(), ORT_API_VERSION);
            dlclose(library);
        } else if (chirper_onnxruntime_api != NULL && api != chirper_onnxruntime_api) {
            snprintf(reason, sizeof reason, "another ONNX Runtime is loaded already, from %s", chirper_onnxruntime_file);
            api = NULL;
        } else {
            chirper_onnxruntime_api = api;
            if (chirper_onnxruntime_file[0] == '\0')
                snprintf(chirper_onnxruntime_file, sizeof chirper_onnxruntime_file, "%s", path);
        }
    }
    pthread_mutex_unlock(&chirper_onnxruntime_lock);
    if (api == NULL && error != NULL && size > 0) snprintf(error, size, "%s", reason);
    return api;
}
