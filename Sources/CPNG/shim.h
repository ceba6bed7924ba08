#include <png.h>

// libpng's simplified API names its formats and version with macros Swift cannot import.
static const unsigned int chirper_png_image_version = PNG_IMAGE_VERSION;
static const unsigned int chirper_png_format_rgba = PNG_FORMAT_RGBA;
