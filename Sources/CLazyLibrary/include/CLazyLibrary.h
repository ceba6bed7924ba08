#ifndef CHIRPER_CLAZYLIBRARY_H
#define CHIRPER_CLAZYLIBRARY_H
// A C library loaded with dlopen at its first use instead of being linked.
//
// A linked library is loaded, relocated and initialised at every start of the program, before `main`, whether
// the session uses it or not; each one also lengthens every symbol lookup of the libraries after it. This
// header writes, in one loader file per library, the code that loads it on demand instead:
//
//     #define CHIRPER_FOO_FUNCTIONS(X) X(int, foo_open, (foo **f), (f), -1) ...
//     #define CHIRPER_FOO_VOID_FUNCTIONS(V) V(foo_close, (foo *f), (f)) ...
//     CHIRPER_LAZY_LIBRARY(foo, "libfoo.so.1", "CHIRPER_LIBFOO", CHIRPER_FOO_FUNCTIONS, CHIRPER_FOO_VOID_FUNCTIONS,
//                          CHIRPER_LAZY_NONE)
//
// - Every function listed gets a forwarder with the library's own name and signature (so the Swift code calls
//   `foo_open` as declared by the library's header), hidden, so the library's internal calls never reach it.
//   The first call to any of them loads the library (once per process) and looks up every listed function.
// - Without the library (or without one of its functions) a forwarder calls nothing: it returns the value
//   without the library given in its entry (an error code, NULL, or `chirper_lazy_failure`, the reason as
//   text, for functions that return a message), and a void function does nothing. A stray call cannot crash.
// - `int chirper_foo_load(char *error, size_t size)` loads the library and returns 0, or -1 with the reason
//   (dlerror's text, or the missing function) in `error`. Owners call it before their first call, so that a
//   missing library is reported as what it is.
// - The environment variable (here CHIRPER_LIBFOO) names another file to load: tests name a missing one.
// - POINTERS lists, as P(return type, name, parameters), functions looked up without a forwarder (C variadic
//   functions, which cannot be forwarded): the loader file calls them as `loaded_<name>` after
//   `chirper_lazy_ready()`.
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/// For a library without void functions or without pointers.
#define CHIRPER_LAZY_NONE(X)

#define CHIRPER_LAZY_POINTER(ret, name, params, args, none) static ret(*loaded_##name) params;
#define CHIRPER_LAZY_VOID_POINTER(name, params, args) static void(*loaded_##name) params;
#define CHIRPER_LAZY_RAW_POINTER(ret, name, params) static ret(*loaded_##name) params;

#define CHIRPER_LAZY_FORWARD(ret, name, params, args, none) \
    __attribute__((visibility("hidden"))) ret name params { \
        if (!chirper_lazy_ready()) return none; \
        return loaded_##name args; \
    }
#define CHIRPER_LAZY_FORWARD_VOID(name, params, args) \
    __attribute__((visibility("hidden"))) void name params { \
        if (chirper_lazy_ready()) loaded_##name args; \
    }

#define CHIRPER_LAZY_CLEAR(ret, name, params, args, none) loaded_##name = NULL;
#define CHIRPER_LAZY_CLEAR_VOID(name, params, args) loaded_##name = NULL;
#define CHIRPER_LAZY_CLEAR_RAW(ret, name, params) loaded_##name = NULL;

#define CHIRPER_LAZY_LOOKUP(ret, name, params, args, none) chirper_lazy_lookup(library, #name, (void **)&loaded_##name) &&
#define CHIRPER_LAZY_LOOKUP_VOID(name, params, args) chirper_lazy_lookup(library, #name, (void **)&loaded_##name) &&
#define CHIRPER_LAZY_LOOKUP_RAW(ret, name, params) chirper_lazy_lookup(library, #name, (void **)&loaded_##name) &&

#define CHIRPER_LAZY_LIBRARY(PREFIX, SONAME, ENVIRONMENT, FUNCTIONS, VOID_FUNCTIONS, POINTERS) \
    FUNCTIONS(CHIRPER_LAZY_POINTER) \
    VOID_FUNCTIONS(CHIRPER_LAZY_VOID_POINTER) \
    POINTERS(CHIRPER_LAZY_RAW_POINTER) \
    static pthread_once_t chirper_lazy_once = PTHREAD_ONCE_INIT; \
    /* Empty once loaded; else why not (a forwarder returns it where its library would return a message). */ \
    static char chirper_lazy_failure[256]; \
    /* The file loaded: SONAME, or the one ENVIRONMENT names. */ \
    static const char *chirper_lazy_file = SONAME; \
    static int chirper_lazy_lookup(void *library, const char *name, void **pointer) { \
        *pointer = dlsym(library, name); \
        if (*pointer == NULL) \
            snprintf(chirper_lazy_failure, sizeof chirper_lazy_failure, "%s has no %s", chirper_lazy_file, name); \
        return *pointer != NULL; \
    } \
    static void chirper_lazy_load(void) { \
        const char *name = getenv(ENVIRONMENT); \
        if (name != NULL && name[0] != '\0') chirper_lazy_file = name; \
        /* Lazy binding: the library's own calls (and its dependencies', 28 libraries for libpulse) are bound \
           at their first use, not all at load: dlopen of libpulse 1.73 ms instead of 1.84 and 0.2 ms less CPU \
           (medians of 180 loads), beside a cold start's first request. The functions listed here are still \
           looked up now (dlsym), so one missing is said. */ \
        void *library = dlopen(chirper_lazy_file, RTLD_LAZY | RTLD_LOCAL); \
        if (library == NULL) { \
            snprintf(chirper_lazy_failure, sizeof chirper_lazy_failure, "%s", dlerror()); \
            return; \
        } \
        if (FUNCTIONS(CHIRPER_LAZY_LOOKUP) VOID_FUNCTIONS(CHIRPER_LAZY_LOOKUP_VOID) POINTERS(CHIRPER_LAZY_LOOKUP_RAW) 1) \
            return; \
        /* One is missing: none is called, and the library goes, so it is not half there. */ \
        FUNCTIONS(CHIRPER_LAZY_CLEAR) VOID_FUNCTIONS(CHIRPER_LAZY_CLEAR_VOID) POINTERS(CHIRPER_LAZY_CLEAR_RAW) \
        dlclose(library); \
    } \
    /* Whether the library is loaded with every function listed (loading it the first time). */ \
    static inline int chirper_lazy_ready(void) { \
        pthread_once(&chirper_lazy_once, chirper_lazy_load); \
        return chirper_lazy_failure[0] == '\0'; \
    } \
    FUNCTIONS(CHIRPER_LAZY_FORWARD) \
    VOID_FUNCTIONS(CHIRPER_LAZY_FORWARD_VOID) \
    int chirper_##PREFIX##_load(char *error, size_t size) { \
        if (chirper_lazy_ready()) return 0; \
        if (error != NULL && size > 0) snprintf(error, size, "%s", chirper_lazy_failure); \
        return -1; \
    }

#endif
