import ChirperCore
import ChirperGraphics
import Foundation
import Testing

/// A quiet picture 0-20 kHz over 4 s, 200 × 100: a column is 20 ms, a row 200 Hz.
private let quiet = Sonogram(
    rows: 100, columns: 200, levels: [Float](repeating: 0.05, count: 100 * 200), maxFrequency: 20_000, duration: 4,
    sampleRate: 44_100)

private let wren = Species(scientific: "Troglodytes troglodytes", english: "Eurasian Wren")

/// The pixel of column `column`, row `row` (0 the lowest) of the picture area.
private func pixel(_ image: RasterImage, column: Int, row: Int) -> [UInt8] {
    let index = ((SonogramRaster.top + quiet.rows - 1 - row) * image.width + SonogramRaster.left + column) * 4
    return Array(image.rgba[index..<(index + 3)])
}

private let orange: [UInt8] = [215, 95, 0]

@Suite("Detections over a sonogram in pixels, read back from a PNG")
struct DetectionPictureTests {
    @Test("a detection is a box over its segment from 0 to 15 kHz, labelled, and the PNG holds it pixel for pixel")
    func boxWhereExpected() throws {
        let heard = [SegmentDetections(start: 1, end: 2.5, detections: [Detection(species: wren, confidence: 0.87)])]
        let directory = NSTemporaryDirectory() + "chirper-detections-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try PNGFile.write(SonogramRaster.image(quiet, heard: heard), to: directory + "/sono.png")
        let image = try PNGFile.read(directory + "/sono.png")
        // 1 s is column 50, 2.5 s column 125; 15 kHz is row 75, so the top edge is row 74, the bottom row 0.
        for row in [0, 30, 74] {
            #expect(pixel(image, column: 50, row: row) == orange, "left edge, row \(row)")
            #expect(pixel(image, column: 125, row: row) == orange, "right edge, row \(row)")
        }
        for column in [50, 90, 125] {
            #expect(pixel(image, column: column, row: 74) == orange, "top edge, column \(column)")
            #expect(pixel(image, column: column, row: 0) == orange, "bottom edge, column \(column)")
        }
        #expect(pixel(image, column: 49, row: 30) != orange && pixel(image, column: 126, row: 30) != orange)
        #expect(pixel(image, column: 90, row: 75) != orange, "nothing above 15 kHz")
        // The label sits inside the box's top: orange letters on a light ground, under the top edge.
        let labelRows = (60...72).filter { row in (52...120).contains { pixel(image, column: $0, row: row) == orange } }
        #expect(!labelRows.isEmpty)
        #expect(pixel(image, column: 90, row: 40) == pixel(image, column: 20, row: 40), "inside, the picture shows")
    }

    @Test("a segment outside the picture's window draws nothing, and a picture below 15 kHz is boxed to its top")
    func clipped() {
        let outside = [SegmentDetections(start: 6, end: 9, detections: [Detection(species: wren, confidence: 0.5)])]
        #expect(SonogramRaster.image(quiet, heard: outside) == SonogramRaster.image(quiet))
        let low = Sonogram(
            rows: 50, columns: 100, levels: [Float](repeating: 0, count: 5000), maxFrequency: 10_000, duration: 3,
            sampleRate: 22_050)
        let heard = [SegmentDetections(start: 0, end: 3, detections: [Detection(species: wren, confidence: 0.5)])]
        let image = SonogramRaster.image(low, heard: heard)
        let topRow = SonogramRaster.top
        let index = (topRow * image.width + SonogramRaster.left + 50) * 4
        #expect(Array(image.rgba[index..<(index + 3)]) == orange, "the box's top is the picture's top row")
    }
}
