import CChafa
import ChirperCore

/// Encodes a picture for a terminal graphics protocol (kitty or sixel) with libchafa. Each call owns its
/// canvas, its configuration and its output, and frees them before it returns.
public enum PixelEncoder {
    /// The escape sequence that draws `image` at the cursor, `cellWidth × cellHeight` pixels a character cell.
    /// The picture takes `ceil(width / cellWidth)` columns and `ceil(height / cellHeight)` lines; an image whose
    /// size is a whole number of cells is drawn pixel for pixel.
    public static func encode(_ image: RasterImage, as protocol: PixelProtocol, cellWidth: Int, cellHeight: Int)
        -> String
    {
        let cellWidth = max(1, cellWidth)
        let cellHeight = max(1, cellHeight)
        guard let config = chafa_canvas_config_new() else { return "" }
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
        chafa_canvas_config_set_pixel_mode(
            config, `protocol` == .kitty ? CHAFA_PIXEL_MODE_KITTY : CHAFA_PIXEL_MODE_SIXELS)
        chafa_canvas_config_set_cell_geometry(config, Int32(cellWidth), Int32(cellHeight))
        chafa_canvas_config_set_geometry(
            config, Int32((image.width + cellWidth - 1) / cellWidth),
            Int32((image.height + cellHeight - 1) / cellHeight))
        guard let canvas = chafa_canvas_new(config) else { return "" }
        defer { chafa_canvas_unref(canvas) }
        image.rgba.withUnsafeBytes { raw in
            chafa_canvas_draw_all_pixels(
                canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, raw.bindMemory(to: UInt8.self).baseAddress,
                Int32(image.width), Int32(image.height), Int32(image.width * 4))
        }
        // The fallback terminal description knows every protocol's sequences; the choice was made by asking.
        guard let info = chafa_term_db_get_fallback_info(chafa_term_db_get_default()) else { return "" }
        defer { chafa_term_info_unref(info) }
        guard let printed = chafa_canvas_print(canvas, info) else { return "" }
        defer { g_string_free(printed, 1) }
        return String(cString: printed.pointee.str)
    }
}
