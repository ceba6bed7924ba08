import CPNG
import ChirperCore
import FoundationEssentials
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Why a PNG could not be written or read: one line, with libpng's own words.
public struct PNGError: UserFacingError, Hashable {
    public var path: String
    public var reason: String

    public var userMessage: String { "png: \(TerminalText.sanitize(path)): \(reason)" }

    /// The one funnel for libpng's simplified API: a zero result is a failure, and `image.message` says why.
    static func check(_ result: Int32, _ image: inout png_image, path: String) throws(PNGError) {
        guard result == 0 else { return }
        let message = withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        png_image_free(&image)
        let missing = LazyLibrary.missing(chirper_png_load, library: "libpng", package: "libpng16-16")
        throw PNGError(path: path, reason: message.isEmpty ? missing ?? "libpng failed" : message)
    }
}

/// PNG files through libpng's simplified API (RGBA, 8 bits a channel).
public enum PNGFile {
    /// Writes `image` to `path`: into `path.part` first, then renamed, so a failure never leaves half a file
    /// under the name asked for.
    public static func write(_ image: RasterImage, to path: String) throws(PNGError) {
        var png = png_image()
        png.version = chirper_png_image_version
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = chirper_png_format_rgba
        let partial = path + ".part"
        let result = image.rgba.withUnsafeBytes { raw in
            png_image_write_to_file(&png, partial, 0, raw.baseAddress, 0, nil)
        }
        if result == 0 { unlink(partial) }
        try PNGError.check(result, &png, path: path)
        guard rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw PNGError(path: path, reason: reason)
        }
    }

    /// `image` as the bytes of a PNG file (for kitty graphics, which carries PNG), written for speed: grey
    /// when every pixel is (a sonogram is), with libpng's fast filtering and compression.
    public static func encode(_ image: RasterImage) throws(PNGError) -> [UInt8] {
        var png = png_image()
        png.version = chirper_png_image_version
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.flags = chirper_png_image_flag_fast
        let pixels = image.width * image.height
        var grey = [UInt8](repeating: 0, count: pixels)
        var isGrey = true
        image.rgba.withUnsafeBufferPointer { rgba in
            for pixel in 0..<pixels {
                let (r, g, b) = (rgba[pixel * 4], rgba[pixel * 4 + 1], rgba[pixel * 4 + 2])
                isGrey = isGrey && r == g && g == b && rgba[pixel * 4 + 3] == 255
                grey[pixel] = r
            }
        }
        png.format = isGrey ? chirper_png_format_gray : chirper_png_format_rgba
        let source = isGrey ? grey : image.rgba
        // Room for the largest file libpng can make of it, so it is compressed once.
        var size = chirper_png_size_max(png)
        var bytes = [UInt8](repeating: 0, count: size)
        let written = bytes.withUnsafeMutableBytes { memory in
            source.withUnsafeBytes { raw in
                png_image_write_to_memory(&png, memory.baseAddress, &size, 0, raw.baseAddress, 0, nil)
            }
        }
        try PNGError.check(written, &png, path: "(in memory)")
        return Array(bytes.prefix(size))
    }

    /// Reads a PNG file of any kind as RGBA.
    public static func read(_ path: String) throws(PNGError) -> RasterImage {
        var png = png_image()
        png.version = chirper_png_image_version
        try PNGError.check(png_image_begin_read_from_file(&png, path), &png, path: path)
        png.format = chirper_png_format_rgba
        let (width, height) = (Int(png.width), Int(png.height))
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        let result = rgba.withUnsafeMutableBytes { raw in
            png_image_finish_read(&png, nil, raw.baseAddress, 0, nil)
        }
        try PNGError.check(result, &png, path: path)
        return RasterImage(width: width, height: height, rgba: rgba)
    }
}
