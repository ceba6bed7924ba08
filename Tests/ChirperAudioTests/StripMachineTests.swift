import ChirperCore
import Testing

@testable import ChirperAudio

private let rate = 22_050
private let streamed = PlayItem(label: "XC1", location: .remote("http://127.0.0.1:1/1"), expectedDuration: 10)
private let onDisk = PlayItem(label: "DEMO-1", location: .local(path: "/demo/1.wav"), expectedDuration: 10)
private let shape = SonogramShape(columns: 100, rows: 16, maxFrequency: 11_025)

/// `seconds` of silence from `start`, as the player hands it on for request `ticket`.
private func piece(_ ticket: UInt64, from start: Double, seconds: Double) -> HeardAudio {
    HeardAudio(
        ticket: PlaybackTicket(ticket), sampleRate: rate, channels: 1, frame: Int(start * Double(rate)),
        samples: Array(repeating: 0, count: Int(seconds * Double(rate))))
}

private func draw(_ item: PlayItem, _ ticket: UInt64, onDisk: Bool = false) -> StripMachine.Event {
    .drawRequested(item, PlaybackTicket(ticket), shape, duration: 10, wholeLocalFile: onDisk)
}

/// The actions of each event, in order.
private func run(_ events: [StripMachine.Event]) -> [[StripMachine.Action]] {
    var machine = StripMachine()
    return events.map { machine.handle($0) }
}

@Suite("The live strip's decisions")
struct StripMachineTests {
    @Test("a piece heard before its picture is asked for is kept, fed first when it is, and shown at once")
    func heldPieceKept() {
        let first = piece(1, from: 0, seconds: 0.5)
        let second = piece(1, from: 0.5, seconds: 0.5)
        let third = piece(1, from: 1, seconds: 0.5)
        #expect(
            run([.heard(first), .heard(second), draw(streamed, 1), .heard(third)]) == [
                [], [],
                [
                    .startAccumulator(PlaybackTicket(1), shape, sampleRate: rate, duration: 10), .accumulate(first),
                    .accumulate(second), .showGrown(PlaybackTicket(1)),
                ],
                // Less than a picture's worth of audio since the last: fed, not shown.
                [.accumulate(third)],
            ])
    }

    @Test("a newer request stops the older one's drawing from its file and is drawn at once; the old result is dropped")
    func newerCancelsWhole() {
        let heard = piece(2, from: 0, seconds: 1)
        let old = Sonogram(
            rows: 1, columns: 1, levels: [0], maxFrequency: 11_025, duration: 10, sampleRate: rate)
        #expect(
            run([draw(onDisk, 1, onDisk: true), draw(streamed, 2), .heard(heard), .wholeDrawn(PlaybackTicket(1), old)])
                == [
                    [.drawWhole(onDisk, PlaybackTicket(1), shape)],
                    [.cancelWhole],
                    [
                        .startAccumulator(PlaybackTicket(2), shape, sampleRate: rate, duration: 10), .accumulate(heard),
                        .showGrown(PlaybackTicket(2)),
                    ],
                    [],
                ])
    }

    @Test("a newer request on disk replaces the one drawn whole: the first stopped, the second drawn and shown")
    func wholeReplacesWhole() {
        let picture = Sonogram(
            rows: 1, columns: 1, levels: [0], maxFrequency: 11_025, duration: 10, sampleRate: rate)
        #expect(
            run([
                draw(onDisk, 1, onDisk: true), draw(onDisk, 2, onDisk: true), .heard(piece(2, from: 0, seconds: 1)),
                .wholeDrawn(PlaybackTicket(2), picture),
            ]) == [
                [.drawWhole(onDisk, PlaybackTicket(1), shape)],
                [.cancelWhole, .drawWhole(onDisk, PlaybackTicket(2), shape)],
                [],
                [.show(PlaybackTicket(2), picture)],
            ])
    }

    @Test("after a seek the piece is fed at its own place and nothing fills the span not heard")
    func seekLeavesGap() {
        let start = piece(1, from: 0, seconds: 1)
        let later = piece(1, from: 6, seconds: 1)
        #expect(
            run([draw(streamed, 1), .heard(start), .heard(later)]) == [
                [],
                [
                    .startAccumulator(PlaybackTicket(1), shape, sampleRate: rate, duration: 10), .accumulate(start),
                    .showGrown(PlaybackTicket(1)),
                ],
                [.accumulate(later), .showGrown(PlaybackTicket(1))],
            ])
    }

    @Test("pieces of an older request, arriving after a newer one's, are dropped and the newer picture goes on")
    func oldPiecesDropped() {
        let new = piece(3, from: 0, seconds: 1)
        let next = piece(3, from: 1, seconds: 1)
        #expect(
            run([draw(streamed, 3), .heard(new), .heard(piece(2, from: 5, seconds: 1)), .heard(next)]) == [
                [],
                [
                    .startAccumulator(PlaybackTicket(3), shape, sampleRate: rate, duration: 10), .accumulate(new),
                    .showGrown(PlaybackTicket(3)),
                ],
                [],
                [.accumulate(next), .showGrown(PlaybackTicket(3))],
            ])
    }

    @Test("a rate that changes part-way ends the picture with one line; its later pieces are not fed")
    func rateChanges() {
        let first = piece(1, from: 0, seconds: 1)
        var other = piece(1, from: 1, seconds: 1)
        other.sampleRate = 44_100
        #expect(
            run([draw(streamed, 1), .heard(first), .heard(other), .heard(piece(1, from: 2, seconds: 1))]) == [
                [],
                [
                    .startAccumulator(PlaybackTicket(1), shape, sampleRate: rate, duration: 10), .accumulate(first),
                    .showGrown(PlaybackTicket(1)),
                ],
                [
                    .fail(
                        PlaybackTicket(1),
                        message:
                            "sono: XC1 failed after 1.0 s of audio: the sample rate changes part-way (22050 Hz to 44100 Hz); a sonogram needs one rate"
                    )
                ],
                [],
            ])
    }

    @Test("when no more work comes, a picture still drawn from its file is awaited and handed on, then the strip stops")
    func workEndsAfterWhole() {
        let picture = Sonogram(rows: 1, columns: 1, levels: [0], maxFrequency: 11_025, duration: 10, sampleRate: rate)
        #expect(
            run([
                draw(onDisk, 1, onDisk: true), .workEnded, .heard(piece(1, from: 0, seconds: 1)),
                .wholeDrawn(PlaybackTicket(1), picture),
            ]) == [[.drawWhole(onDisk, PlaybackTicket(1), shape)], [], [], [.show(PlaybackTicket(1), picture), .stop]])
        #expect(run([draw(streamed, 1), .workEnded]) == [[], [.stop]])
    }

    @Test("a drawing from the file that fails is one line for its request; the strip going away stops one under way")
    func wholeFailsAndCancel() {
        #expect(
            run([
                draw(onDisk, 1, onDisk: true), .wholeFailed(PlaybackTicket(1), message: "sono: cannot draw DEMO-1: x"),
                draw(onDisk, 2, onDisk: true), .cancelled,
            ]) == [
                [.drawWhole(onDisk, PlaybackTicket(1), shape)],
                [.fail(PlaybackTicket(1), message: "sono: cannot draw DEMO-1: x")],
                [.drawWhole(onDisk, PlaybackTicket(2), shape)],
                [.cancelWhole],
            ])
    }
}
