import ChirperCore
import ChirperGraphics
import ChirperTestSupport
import Foundation
import Testing

/// A staircase: a tone that steps up every quarter of the picture, drawn as a sonogram of `columns × rows`.
private func staircase(columns: Int = 200, rows: Int = 100) -> Sonogram {
    var levels = [Float](repeating: 0.05, count: rows * columns)
    for column in 0..<columns {
        let row = 10 + (column * 4 / columns) * 20
        levels[row * columns + column] = 1
    }
    return Sonogram(rows: rows, columns: columns, levels: levels, maxFrequency: 10_000, duration: 4, sampleRate: 22_050)
}

/// Why a picture for `protocol` is refused once the library the environment variable `variable` names is loaded
/// from `file` (in an exit test's process: a library is loaded once per process); nil if it was drawn.
private func refusal(_ protocol: PixelProtocol, loading variable: String, as file: String) -> String? {
    setenv(variable, file, 1)
    do throws(PixelEncoderError) {
        _ = try PixelEncoder.encode(SonogramRaster.image(staircase()), as: `protocol`, cellWidth: 10, cellHeight: 20)
        return nil
    } catch {
        return error.userMessage
    }
}

/// The tone's row in each column, as a reader of `image` sees it: the darkest pixel of the column's picture area.
private func darkestRows(_ image: RasterImage, columns: Int, rows: Int) -> [Int] {
    (0..<columns).map { column in
        var best = (grey: 256, row: -1)
        for row in 0..<rows {
            let grey = Int(image.grey(x: SonogramRaster.left + column, y: SonogramRaster.top + rows - 1 - row))
            if grey < best.grey { best = (grey, row) }
        }
        return best.row
    }
}

private func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "chirper-graphics-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private let expectedRows = (0..<200).map { 10 + ($0 * 4 / 200) * 20 }

@Suite("Pictures at pixel resolution, read back with real decoders")
struct PictureTests {
    @Test("a PNG written with libpng reads back pixel for pixel; the tone is the darkest pixel of every column")
    func pngRoundTrip() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let image = SonogramRaster.image(staircase())
        try PNGFile.write(image, to: directory + "/sono.png")
        #expect(!FileManager.default.fileExists(atPath: directory + "/sono.png.part"))
        let read = try PNGFile.read(directory + "/sono.png")
        #expect(read == image)
        #expect(darkestRows(read, columns: 200, rows: 100) == expectedRows)
    }

    @Test("a PNG that cannot be written says why in one line and leaves nothing behind")
    func pngRefused() throws {
        let image = SonogramRaster.image(staircase())
        #expect {
            try PNGFile.write(image, to: "/nonexistent-folder/sono.png")
        } throws: { error in
            let message = (error as? PNGError)?.userMessage ?? ""
            return message.hasPrefix("png: /nonexistent-folder/sono.png:") && !message.contains("\n")
        }
        #expect(throws: PNGError.self) { try PNGFile.read("/nonexistent-folder/sono.png") }
    }

    @Test(
        "sixels from libchafa, decoded by libsixel's sixel2png, show the tone at the right row in every column",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sixel2png"),
            "skipped: sixel2png (libsixel-bin) is not installed"))
    func sixelDecodes() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 200 × 102 and the margins: 242 × 126 pixels, 22 × 9 cells of 11 × 14 pixels, a whole number of
        // sixel bands (6 rows): drawn pixel for pixel (libchafa scales a picture onto whole bands).
        let image = SonogramRaster.image(staircase(rows: 102))
        #expect(image.width == 242 && image.height == 126)
        let sixel = try PixelEncoder.encode(image, as: .sixel, cellWidth: 11, cellHeight: 14)
        #expect(sixel.hasPrefix("\u{1B}P"))
        try Data(sixel.utf8).write(to: URL(fileURLWithPath: directory + "/sono.six"))
        let decoding = try await Tool.run(
            "/usr/bin/sixel2png", ["-i", directory + "/sono.six", "-o", directory + "/sono.png"])
        #expect(decoding.status == 0)
        let decoded = try PNGFile.read(directory + "/sono.png")
        #expect(decoded.width == image.width && decoded.height == image.height)
        let rows = darkestRows(decoded, columns: 200, rows: 102)
        #expect(zip(rows, expectedRows).allSatisfy { abs($0 - $1) <= 1 }, "\(rows)")
    }

    @Test("without libchafa a sixel picture is refused with one line naming the package")
    func sixelsWithoutLibchafa() async {
        // In a child process of its own: the library is loaded once per process.
        await #expect(processExitsWith: .success) {
            guard
                let message = refusal(.sixel, loading: "CHIRPER_LIBCHAFA", as: "/nonexistent/libchafa.so.0"),
                message.hasPrefix("cannot draw the picture: cannot load libchafa (/nonexistent/libchafa.so.0"),
                message.hasSuffix("; install libchafa0"), !message.contains("\n")
            else { exit(2) }
        }
    }

    @Test("without libpng a kitty picture is refused with one line naming the package")
    func kittyWithoutLibpng() async {
        await #expect(processExitsWith: .success) {
            guard
                let message = refusal(.kitty, loading: "CHIRPER_LIBPNG", as: "/nonexistent/libpng16.so.16"),
                message.hasPrefix("cannot draw the picture: cannot load libpng ("),
                message.hasSuffix("; install libpng16-16")
            else { exit(2) }
        }
    }

    @Test("a PNG in memory reads back as the picture: grey pictures as grey files, coloured ones in colour")
    func pngInMemory() throws {
        let grey = RasterImage(
            width: 3, height: 2, rgba: Array([[UInt8]](repeating: [200, 200, 200, 255], count: 6).joined()))
        var coloured = grey
        coloured.rgba[4...7] = [255, 0, 0, 255]
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, image) in [("grey", grey), ("coloured", coloured)] {
            let bytes = try PNGFile.encode(image)
            // IHDR's colour type, at byte 25: 0 grey, 6 RGBA.
            #expect(bytes[25] == (name == "grey" ? 0 : 6), "\(name)")
            try Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/\(name).png"))
            #expect(try PNGFile.read("\(directory)/\(name).png") == image, "\(name)")
        }
    }

    @Test("kitty graphics: the payload's base64 is a PNG file that libpng reads back as the picture, pixel for pixel")
    func kittyDecodes() throws {
        let image = SonogramRaster.image(staircase())
        let cell = (width: 11, height: 31)
        let escape = try PixelEncoder.encode(image, as: .kitty, cellWidth: cell.width, cellHeight: cell.height)
        // Every chunk is ESC _ G keys ; base64 ESC \ ; the first names the format and the cells, and each chunk's
        // base64 stands alone; the last says m=0.
        var bytes = Data()
        var keys: [String: String] = [:]
        var chunks = 0
        for chunk in escape.components(separatedBy: "\u{1B}_G").dropFirst() {
            let end = try #require(chunk.range(of: "\u{1B}\\"))
            let parts = chunk[..<end.lowerBound].split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            for pair in parts[0].split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { keys[String(kv[0])] = String(kv[1]) }
            }
            let payload = try #require(parts.count == 2 ? parts[1] : nil)
            #expect(payload.count <= 4096)
            bytes += try #require(Data(base64Encoded: String(payload)))
            chunks += 1
        }
        #expect(keys["f"] == "100" && keys["a"] == "T" && keys["m"] == "0")
        #expect(keys["c"] == "\((image.width + 10) / 11)" && keys["r"] == "\((image.height + 30) / 31)")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try bytes.write(to: URL(fileURLWithPath: directory + "/kitty.png"))
        let decoded = try PNGFile.read(directory + "/kitty.png")
        #expect(decoded == image, "lossless: the picture itself")
        let base64Count = (bytes.count + 2) / 3 * 4
        #expect(chunks == (base64Count + 4095) / 4096, "full chunks of 4096 but the last")
        for column in stride(from: 0, to: 200, by: 7) {
            let x = SonogramRaster.left + column
            let darkest = (0..<decoded.height).min { decoded.grey(x: x, y: $0) < decoded.grey(x: x, y: $1) }
            #expect(darkest == SonogramRaster.top + 99 - expectedRows[column], "column \(column)")
        }
    }
}
