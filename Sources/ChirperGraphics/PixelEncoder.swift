import FoundationEssentials
import CChafa
import ChirperCore
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A picture the terminal's protocol cannot be given, and why (one line).
public struct PixelEncoderError: UserFacingError, Hashable {
    public var reason: String
    public var userMessage: String { "cannot draw the picture: \(reason)" }
}

/// Encodes a picture for a terminal graphics protocol: sixels with libchafa (each call owns its canvas, its
/// configuration and its output, and frees them before it returns), kitty graphics as a PNG file from libpng.
public enum PixelEncoder {
    /// The escape sequence that draws `image` at the cursor, `cellWidth × cellHeight` pixels a character cell.
    /// The picture takes `ceil(width / cellWidth)` columns and `ceil(height / cellHeight)` lines; an image whose
    /// size is a whole number of cells is drawn pixel for pixel.
    public static func encode(_ image: RasterImage, as protocol: PixelProtocol, cellWidth: Int, cellHeight: Int)
        throws(PixelEncoderError) -> String
    {
        let cellWidth = max(1, cellWidth)
        let cellHeight = max(1, cellHeight)
        if `protocol` == .kitty { return try kitty(image, cellWidth: cellWidth, cellHeight: cellHeight) }
        let columns = Int32((image.width + cellWidth - 1) / cellWidth)
        let rows = Int32((image.height + cellHeight - 1) / cellHeight)
        let sixels = image.rgba.withUnsafeBytes { raw in
            chirper_chafa_sixels(
                raw.bindMemory(to: UInt8.self).baseAddress, Int32(image.width), Int32(image.height), columns, rows,
                Int32(cellWidth), Int32(cellHeight))
        }
        guard let sixels else {
            throw PixelEncoderError(
                reason: LazyLibrary.missing(chirper_chafa_load, library: "libchafa", package: "libchafa0")
                    ?? "libchafa could not draw it")
        }
        defer { free(sixels) }
        return String(cString: sixels)
    }

    /// Kitty graphics carry the picture as a PNG file (`f=100`), which libpng writes: libchafa sends kitty its
    /// raw pixels, 4 bytes each, and a live strip page of 920 × 160 was 785 KB of base64 a page on the terminal
    /// (SSH included). The file goes in base64 chunks of at most 4096 bytes, as the protocol asks; the picture
    /// takes `c × r` cells.
    static func kitty(_ image: RasterImage, cellWidth: Int, cellHeight: Int) throws(PixelEncoderError) -> String {
        let png: [UInt8]
        do {
            png = try PNGFile.encode(image)
        } catch {
            throw PixelEncoderError(reason: error.reason)
        }
        let base64 = Array(Data(png).base64EncodedString().utf8)
        let columns = (image.width + cellWidth - 1) / cellWidth
        let rows = (image.height + cellHeight - 1) / cellHeight
        var escape = ""
        var start = 0
        repeat {
            let end = min(base64.count, start + 4096)
            let keys = start == 0 ? "a=T,f=100,c=\(columns),r=\(rows)," : ""
            escape += "\u{1B}_G\(keys)m=\(end < base64.count ? 1 : 0);"
            escape += String(decoding: base64[start..<end], as: UTF8.self) + "\u{1B}\\"
            start = end
        } while start < base64.count
        return escape
    }
}
