import ChirperCore
import Testing

/// Seconds of audio at 48 kHz, as a sample count.
private func samples(_ seconds: Double) -> Int { Int(seconds * 48_000) }

/// The segments of `count` samples of audio, fed to the cutter in pieces of 10,007 samples (not a divisor of
/// anything it counts), with the input each is given.
private func cuts(_ count: Int, overlap: Double = 0, value: Float = 0) -> [SegmentCutter.Cut] {
    var cutter = SegmentCutter(overlap: overlap)
    var cuts: [SegmentCutter.Cut] = []
    var fed = 0
    while fed < count {
        let piece = min(10_007, count - fed)
        cuts += cutter.push([Float](repeating: value, count: piece))
        fed += piece
    }
    return cuts + cutter.finish()
}

private func segments(_ count: Int, overlap: Double = 0) -> [BirdNETSegment] {
    cuts(count, overlap: overlap).map(\.segment)
}

@Suite("BirdNET: segments cut as the audio comes, confidences, labels and detections")
struct BirdNETTests {
    @Test("a 10 s recording is three 3 s segments and a 1 s rest, which is too short to identify")
    func tenSeconds() {
        let found = segments(samples(10))
        #expect(found.map(\.startSeconds) == [0, 3, 6])
        #expect(found.map(\.length) == [144_000, 144_000, 144_000])
        #expect(found.map(\.endSeconds) == [3, 6, 9])
    }

    @Test("a last piece of 1.5 s or more is identified, padded with silence to 3 s; its end is written as start + 3 s")
    func paddedLastSegment() {
        let found = segments(samples(7.5))
        #expect(found.map(\.start) == [0, 144_000, 288_000])
        #expect(found.last?.length == 72_000)
        #expect(found.last?.endSeconds == 9)
        let input = cuts(samples(7.5), value: 0.25)[2].samples
        #expect(input.count == 144_000)
        #expect(input[71_999] == 0.25 && input[72_000] == 0 && input[143_999] == 0)
        #expect(segments(samples(7.5) - 1).count == 2, "a sample short of 1.5 s is dropped")
    }

    @Test("a recording shorter than 1.5 s has nothing to identify; one of 2 s is one padded segment")
    func shortRecordings() {
        #expect(segments(samples(1.4)).isEmpty)
        #expect(segments(0).isEmpty)
        #expect(segments(samples(2)) == [BirdNETSegment(index: 0, start: 0, length: 96_000)])
    }

    @Test("with 1 s overlap a segment starts every 2 s, and the list stops at the first piece under 1.5 s")
    func overlap() {
        let found = segments(samples(9), overlap: 1)
        #expect(found.map(\.startSeconds) == [0, 2, 4, 6])
        #expect(found.map(\.length) == [144_000, 144_000, 144_000, 144_000])
        let longer = segments(samples(9.6), overlap: 1)
        #expect(longer.map(\.startSeconds) == [0, 2, 4, 6, 8], "8 s has 1.6 s left: padded")
        #expect(longer.last?.length == samples(1.6))
        #expect(segments(samples(9), overlap: 2.5).map(\.startSeconds).last == 7.5)
    }

    @Test("confidence is sigmoid of the logit, clipped at ±15")
    func confidence() {
        #expect(BirdNET.confidence(logit: 0) == 0.5)
        #expect(abs(BirdNET.confidence(logit: 2) - 0.8807970779778823) < 1e-12)
        #expect(abs(BirdNET.confidence(logit: -2) - 0.11920292202211755) < 1e-12)
        #expect(BirdNET.confidence(logit: 40) == BirdNET.confidence(logit: 15))
        #expect(BirdNET.confidence(logit: -1000) == BirdNET.confidence(logit: -15))
        #expect(BirdNET.confidence(logit: 15) < 1 && BirdNET.confidence(logit: -15) > 0)
        #expect(BirdNET.confidence(logit: .infinity) == BirdNET.confidence(logit: 15))
    }

    @Test("the labels file gives each class its scientific and common names, in order")
    func labels() throws {
        let text =
            "Abroscopus albogularis_Rufous-faced Warbler\r\nPrunella modularis_Dunnock\nHuman vocal_Human vocal\n"
        #expect(
            try BirdNET.labels(text, classes: 3) == [
                Species(scientific: "Abroscopus albogularis", english: "Rufous-faced Warbler"),
                Species(scientific: "Prunella modularis", english: "Dunnock"),
                Species(scientific: "Human vocal", english: "Human vocal"),
            ])
        #expect(
            try BirdNET.labels("Gallus gallus_Red Junglefowl_domestic") == [
                Species(scientific: "Gallus gallus", english: "Red Junglefowl_domestic")
            ])
    }

    @Test("a malformed labels file is refused in one line naming the line and what to run")
    func malformedLabels() {
        #expect(throws: BirdNETLabelsError(line: 2, problem: "no `_` between the scientific and common names")) {
            try BirdNET.labels("Prunella modularis_Dunnock\nPrunella modularis Dunnock\n")
        }
        #expect(throws: BirdNETLabelsError(line: 3, problem: "an empty name")) {
            try BirdNET.labels("A a_B\nC c_D\n_Nameless\n")
        }
        #expect(throws: BirdNETLabelsError(line: 2, problem: "no `_` between the scientific and common names")) {
            try BirdNET.labels("A a_B\n\nC c_D\n")
        }
        #expect(throws: BirdNETLabelsError(line: 1, problem: "a control character")) {
            try BirdNET.labels("A a_B\u{1B}[31m\n")
        }
        let wrongCount = BirdNETLabelsError(line: nil, problem: "2 labels for the model's 6522 classes")
        #expect(throws: wrongCount) { try BirdNET.labels("A a_B\nC c_D\n", classes: 6522) }
        #expect(
            wrongCount.userMessage
                == "the labels file is damaged (2 labels for the model's 6522 classes); run `make model` to fetch it again"
        )
        #expect(
            BirdNETLabelsError(line: 7, problem: "an empty name").userMessage
                == "the labels file is damaged (line 7: an empty name); run `make model` to fetch it again")
    }

    @Test("a segment's detections are the classes above the minimum confidence, the most confident first")
    func detections() {
        let segment = BirdNETSegment(index: 4, start: 576_000, length: 144_000)
        // Confidences 0.5, ~0.119, ~0.881, ~0.047, ~0.881.
        let logits: [Float] = [0, -2, 2, -3, 2]
        let found = BirdNET.detections(logits: logits[...], segment: segment)
        #expect(found.map(\.label) == [2, 4, 0, 1])
        #expect(found.allSatisfy { $0.segment == segment })
        #expect(
            BirdNET.detections(logits: logits[...], segment: segment, minimum: 0.5).map(\.label) == [2, 4],
            "exactly at the minimum is not above it")
        #expect(BirdNET.detections(logits: [-20, -15][...], segment: segment).isEmpty)
    }
}
