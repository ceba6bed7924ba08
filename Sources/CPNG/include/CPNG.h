#ifndef CHIRPER_CPNG_H
#define CHIRPER_CPNG_H
// libpng's simplified API: the sonogram as a PNG file.
//
// libpng is not linked: it is loaded with dlopen by the first picture written or read (CLazyLibrary.h), so a
// session that makes none never loads it. The `png_image_*` functions declared by <png.h> that this program uses
// are defined by this target, each calling libpng's through a pointer looked up at load time. Call
// `chirper_png_load` first: it reports a missing library as an error. Without the library a forwarder returns 0
// (failure).
#include <png.h>
#include <stddef.h>

/// Loads libpng16.so.16 and looks up every `png_image_*` function this program uses (once; later calls return
/// the first call's result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_png_load(char *error, size_t size);

// libpng's simplified API names its formats and version with macros Swift cannot import.
static const unsigned int chirper_png_image_version = PNG_IMAGE_VERSION;
static const unsigned int chirper_png_format_rgba = PNG_FORMAT_RGBA;
static const unsigned int chirper_png_format_gray = PNG_FORMAT_GRAY;
static const unsigned int chirper_png_image_flag_fast = PNG_IMAGE_FLAG_FAST;

// An upper bound on the PNG file `image` makes (the macro does arithmetic Swift cannot import).
static inline png_alloc_size_t chirper_png_size_max(png_image image) { return PNG_IMAGE_PNG_SIZE_MAX(image); }

#endif
