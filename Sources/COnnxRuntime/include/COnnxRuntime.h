#ifndef CHIRPER_CONNXRUNTIME_H
#define CHIRPER_CONNXRUNTIME_H
// ONNX Runtime's C API (MIT): the inference of `identify`.
//
// The library is not linked: it is loaded with dlopen by the first model opened, from a file fetched by
// `make ort` (PyPI's wheel; no Debian 12 package has it), so a session that never identifies never loads its
// 35 MB. Only `OrtGetApiBase` is looked up; every other call goes through the table of functions it returns.
// The header is fetched too (Debian 13's libonnxruntime-dev, by `make ort-header`, which every make target that
// builds runs), never committed: a plain `swift build` without it stops here with what to run.
#if __has_include("../onnxruntime/onnxruntime_c_api.h")
#include "../onnxruntime/onnxruntime_c_api.h"
#else
#error "ONNX Runtime's C API header is fetched, not committed: run `make ort-header` (make build, run and test do), then build again"
#endif
#include <stddef.h>

/// Loads the ONNX Runtime library `path` (dlopen) and returns its API table of the version this header declares,
/// or NULL with the reason (dlerror's text, a missing `OrtGetApiBase`, a version too old) in `error`. A file
/// loaded is kept for the process; a failure is not remembered, so another path may be tried. One library per
/// process: a second, different one is refused, since handles of one cannot be given to the other.
const OrtApi *chirper_onnxruntime_load(const char *path, char *error, size_t size);

#endif
