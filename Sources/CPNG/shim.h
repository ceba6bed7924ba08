#include <png.h>

// libpng's simplified API names its formats and version with macros Swift cannot import.
static const unsigned int chirper_png_image_version = PNG_IMAGE_VERSION;
static const unsigned int chirper_png_format_rgba = PNG_FORMAT_RGBA;
static const unsigned int chirper_png_format_gray = PNG_FORMAT_GRAY;
static const unsigned int chirper_png_image_flag_fast = PNG_IMAGE_FLAG_FAST;

// An upper bound on the PNG file `image` makes (the macro does arithmetic Swift cannot import).
static inline png_alloc_size_t chirper_png_size_max(png_image image) { return PNG_IMAGE_PNG_SIZE_MAX(image); }
