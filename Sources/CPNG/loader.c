// Loads libpng on demand (see include/CPNG.h): the `png_image_*` functions the Swift code calls are this file's
// forwarders to libpng's own (CLazyLibrary.h). CHIRPER_LIBPNG names another file to load (tests name a missing
// one).
#include "CPNG.h"

#include <CLazyLibrary.h>

// X(return type, name, parameters, arguments, value without the library), and V(…) for the void functions.
#define CHIRPER_PNG_FUNCTIONS(X) \
    X(int, png_image_begin_read_from_file, (png_imagep image, const char *file_name), (image, file_name), 0) \
    X(int, png_image_finish_read, (png_imagep image, png_const_colorp background, void *buffer, png_int_32 row_stride, void *colormap), (image, background, buffer, row_stride, colormap), 0) \
    X(int, png_image_write_to_file, (png_imagep image, const char *file, int convert_to_8bit, const void *buffer, png_int_32 row_stride, const void *colormap), (image, file, convert_to_8bit, buffer, row_stride, colormap), 0) \
    X(int, png_image_write_to_memory, (png_imagep image, void *memory, png_alloc_size_t *PNG_RESTRICT memory_bytes, int convert_to_8_bit, const void *buffer, png_int_32 row_stride, const void *colormap), (image, memory, memory_bytes, convert_to_8_bit, buffer, row_stride, colormap), 0)

#define CHIRPER_PNG_VOID_FUNCTIONS(V) V(png_image_free, (png_imagep image), (image))

CHIRPER_LAZY_LIBRARY(png, "libpng16.so.16", "CHIRPER_LIBPNG", CHIRPER_PNG_FUNCTIONS, CHIRPER_PNG_VOID_FUNCTIONS,
                     CHIRPER_LAZY_NONE)
