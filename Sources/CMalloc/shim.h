#ifndef CHIRPER_CMALLOC_SHIM_H
#define CHIRPER_CMALLOC_SHIM_H
// glibc's allocator settings (mallopt), which Swift's Glibc module does not include.
#include <malloc.h>
#endif
