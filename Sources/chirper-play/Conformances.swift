import ChirperAudio
import ChirperCore
import ChirperGraphics
import ChirperREPL

// The audio side serves the REPL through its protocols; the REPL does not know the audio module.
extension Player: PlaybackControl {}

extension SonogramReader: SonogramSource {}

extension RecordingSaver: RecordingSaving {}

extension MeasurementReader: MeasurementSource {}

/// Pictures at pixel resolution through the graphics libraries (libchafa, libpng).
struct GraphicsPictures: PictureWriting {
    func escape(for image: RasterImage, protocol: PixelProtocol, cellWidth: Int, cellHeight: Int) -> String {
        PixelEncoder.encode(image, as: `protocol`, cellWidth: cellWidth, cellHeight: cellHeight)
    }

    func writePNG(_ image: RasterImage, to path: String) throws {
        try PNGFile.write(image, to: path)
    }
}
