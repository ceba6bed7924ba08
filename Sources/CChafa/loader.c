// Loads libchafa on demand (see include/CChafa.h): the `chafa_*` functions below, and glib's `g_string_free`
// for what `chafa_canvas_print` returns, are this file's forwarders to the libraries' own (CLazyLibrary.h;
// dlsym on libchafa's handle finds glib's, a library libchafa brings). CHIRPER_LIBCHAFA names another file to
// load (tests name a missing one).
#include "CChafa.h"

#include <CLazyLibrary.h>
#include <chafa.h>
#include <stdlib.h>
#include <string.h>

// Newer glib makes g_string_free a macro over the function; the forwarder is the function.
#ifdef g_string_free
#undef g_string_free
#endif

// X(return type, name, parameters, arguments, value without the library), and V(…) for the void functions.
#define CHIRPER_CHAFA_FUNCTIONS(X) \
    X(ChafaCanvasConfig *, chafa_canvas_config_new, (void), (), NULL) \
    X(ChafaCanvas *, chafa_canvas_new, (const ChafaCanvasConfig *config), (config), NULL) \
    X(GString *, chafa_canvas_print, (ChafaCanvas *canvas, ChafaTermInfo *term_info), (canvas, term_info), NULL) \
    X(ChafaTermDb *, chafa_term_db_get_default, (void), (), NULL) \
    X(ChafaTermInfo *, chafa_term_db_get_fallback_info, (ChafaTermDb *term_db), (term_db), NULL) \
    X(gchar *, g_string_free, (GString *string, gboolean free_segment), (string, free_segment), NULL)

#define CHIRPER_CHAFA_VOID_FUNCTIONS(V) \
    V(chafa_canvas_config_unref, (ChafaCanvasConfig *config), (config)) \
    V(chafa_canvas_config_set_geometry, (ChafaCanvasConfig *config, gint width, gint height), (config, width, height)) \
    V(chafa_canvas_config_set_cell_geometry, (ChafaCanvasConfig *config, gint cell_width, gint cell_height), (config, cell_width, cell_height)) \
    V(chafa_canvas_config_set_canvas_mode, (ChafaCanvasConfig *config, ChafaCanvasMode mode), (config, mode)) \
    V(chafa_canvas_config_set_pixel_mode, (ChafaCanvasConfig *config, ChafaPixelMode pixel_mode), (config, pixel_mode)) \
    V(chafa_canvas_unref, (ChafaCanvas *canvas), (canvas)) \
    V(chafa_canvas_draw_all_pixels, (ChafaCanvas *canvas, ChafaPixelType src_pixel_type, const guint8 *src_pixels, gint src_width, gint src_height, gint src_rowstride), (canvas, src_pixel_type, src_pixels, src_width, src_height, src_rowstride)) \
    V(chafa_term_info_unref, (ChafaTermInfo *term_info), (term_info))

CHIRPER_LAZY_LIBRARY(chafa, "libchafa.so.0", "CHIRPER_LIBCHAFA", CHIRPER_CHAFA_FUNCTIONS, CHIRPER_CHAFA_VOID_FUNCTIONS,
                     CHIRPER_LAZY_NONE)

char *chirper_chafa_sixels(const uint8_t *rgba, int width, int height, int columns, int rows, int cell_width,
                           int cell_height) {
    if (!chirper_lazy_ready()) return NULL;
    ChafaCanvasConfig *config = chafa_canvas_config_new();
    if (config == NULL) return NULL;
    chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR);
    chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SIXELS);
    chafa_canvas_config_set_cell_geometry(config, cell_width, cell_height);
    chafa_canvas_config_set_geometry(config, columns, rows);
    ChafaCanvas *canvas = chafa_canvas_new(config);
    chafa_canvas_config_unref(config);
    if (canvas == NULL) return NULL;
    chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, rgba, width, height, width * 4);
    // The fallback terminal description knows every protocol's sequences; the choice was made by asking.
    ChafaTermInfo *info = chafa_term_db_get_fallback_info(chafa_term_db_get_default());
    char *sixels = NULL;
    if (info != NULL) {
        GString *printed = chafa_canvas_print(canvas, info);
        if (printed != NULL) {
            sixels = strdup(printed->str);
            g_string_free(printed, TRUE);
        }
        chafa_term_info_unref(info);
    }
    chafa_canvas_unref(canvas);
    return sixels;
}
