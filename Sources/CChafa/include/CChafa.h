#ifndef CHIRPER_CCHAFA_H
#define CHIRPER_CCHAFA_H
// libchafa (LGPL-3.0+, libchafa-dev): a picture as sixels, for terminals that draw them.
//
// libchafa is not linked: it is loaded with dlopen by the first sixel picture (CLazyLibrary.h), so a session that
// draws none (every session in a pipe, every terminal with kitty graphics or none) never loads it, nor the glib
// and PCRE2 it brings. Its API is used here, in C, behind one function: Swift does not see chafa.h (whose glib
// headers need pkg-config's paths), only `chirper_chafa_sixels`.
#include <stddef.h>
#include <stdint.h>

/// Loads libchafa.so.0 and looks up every function this program uses (once; later calls return the first call's
/// result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_chafa_load(char *error, size_t size);

/// The escape sequence that draws `rgba` (unassociated RGBA, 4 bytes a pixel, `width * 4` bytes a row) as
/// sixels on `columns × rows` character cells of `cell_width × cell_height` pixels: malloc'd and NUL-terminated,
/// for the caller to free. NULL if libchafa cannot draw it (or cannot be loaded). Each call makes and frees its
/// own canvas, configuration and terminal description.
char *chirper_chafa_sixels(const uint8_t *rgba, int width, int height, int columns, int rows, int cell_width,
                           int cell_height);

#endif
