import Testing

@testable import ChirperCore

@Suite("Study: times, loops, speeds, seek plans")
struct StudyTests {
    @Test(
        "times the user types parse to positions or steps",
        arguments: [
            ("0:30", TimeInput.absolute(30)), ("1:05", .absolute(65)), ("1:05.5", .absolute(65.5)),
            ("12", .absolute(12)), ("12.5", .absolute(12.5)), (" 7 ", .absolute(7)), ("1:00:00", .absolute(3600)),
            ("+5", .relative(5)), ("-2.5", .relative(-2.5)), ("+1:00", .relative(60)), ("0", .absolute(0)),
        ])
    func parsesTimes(text: String, expected: TimeInput) {
        #expect(TimeInput.parse(text) == .success(expected))
    }

    @Test(
        "garbage, signs in the wrong place and out-of-range parts are refused with one line",
        arguments: [
            "", "abc", "1:2:3:4", "1:60", "1:", ":30", "1.5:00", "--3", "+-3", "1e3", "nan", "inf", "0x10", "12..5",
            ".", "+", "3 4", "99999999999999",
        ])
    func refusesGarbage(text: String) {
        guard case .failure(let error) = TimeInput.parse(text) else {
            Issue.record("'\(text)' parsed")
            return
        }
        #expect(error == .unreadable(text))
        #expect(error.message.contains("is not a time"))
        #expect(!error.message.contains("\n"))
    }

    @Test("a time at or past the end is refused; a step back past the start lands on the start")
    func resolvesAgainstTheRecording() {
        #expect(TimeInput.absolute(31).resolve(current: 0, duration: 31) == .failure(.pastEnd(31, duration: 31)))
        #expect(TimeInput.relative(20).resolve(current: 20, duration: 31) == .failure(.pastEnd(40, duration: 31)))
        #expect(TimeInput.relative(-10).resolve(current: 4, duration: 31) == .success(0))
        #expect(TimeInput.relative(5).resolve(current: 4, duration: 31) == .success(9))
        #expect(TimeInput.absolute(500).resolve(current: 0, duration: nil) == .success(500))
        let message = TimeInputError.pastEnd(40, duration: 31).message
        #expect(message == "0:40.0 is past the end of the recording (0:31.0); pick an earlier time")
    }

    @Test("a loop needs its end after its start, inside the recording; its end may be the recording's end")
    func resolvesLoops() {
        let loop = LoopSection.resolve(.absolute(12), .absolute(15), current: 0, duration: 31)
        #expect(loop == .success(LoopSection(start: 12, end: 15)))
        #expect(
            LoopSection.resolve(.absolute(15), .absolute(12), current: 0, duration: 31)
                == .failure(.emptyLoop(start: 15, end: 12)))
        #expect(LoopSection.resolve(.absolute(20), .absolute(31), current: 0, duration: 31).map(\.end) == .success(31))
        #expect(
            LoopSection.resolve(.absolute(20), .absolute(32), current: 0, duration: 31)
                == .failure(.pastEnd(32, duration: 31)))
        #expect(
            LoopSection.resolve(.relative(-2), .relative(3), current: 10, duration: 31)
                == .success(LoopSection(start: 8, end: 13)))
    }

    @Test(
        "speeds parse from 0.1 to 2.0 with an optional mode; anything else is one clear line",
        arguments: [
            (["0.5"], Result<PlaybackSpeed, PlaybackSpeedError>.success(PlaybackSpeed(factor: 0.5, mode: .tape))),
            (["0.25", "keep"], .success(PlaybackSpeed(factor: 0.25, mode: .keep))),
            (["0.1", "TAPE"], .success(PlaybackSpeed(factor: 0.1, mode: .tape))),
            (["2"], .success(PlaybackSpeed(factor: 2, mode: .tape))),
            (["0"], .failure(.outOfRange(0))), (["50"], .failure(.outOfRange(50))),
            (["2.01"], .failure(.outOfRange(2.01))), (["-1"], .failure(.unreadable("-1"))),
            (["fast"], .failure(.unreadable("fast"))), (["1e-1"], .failure(.unreadable("1e-1"))),
            (["0.5", "slow"], .failure(.unknownMode("slow"))), ([], .failure(.missing)),
            (["0.5", "keep", "x"], .failure(.tooMany)),
        ])
    func parsesSpeeds(arguments: [String], expected: Result<PlaybackSpeed, PlaybackSpeedError>) {
        #expect(PlaybackSpeed.parse(arguments) == expected)
    }

    @Test("the status shows the speed as typed")
    func showsSpeeds() {
        #expect(PlaybackSpeed(factor: 0.5, mode: .tape).description == "0.5")
        #expect(PlaybackSpeed(factor: 0.25, mode: .keep).description == "0.25 keep")
        #expect(PlaybackSpeed.normal.description == "1")
    }

    @Test("positions stay in recording time across speed changes and loop wraps")
    func mapsOutputToRecordingTime() {
        var timeline = PlaybackTimeline(recordingStart: 1, factor: 1)
        #expect(timeline.recordingTime(atOutput: 0.5) == 1.5)
        timeline.mark(atOutput: 2, recording: 3, factor: 0.5)
        #expect(timeline.recordingTime(atOutput: 4) == 4)
        #expect(timeline.recordingTime(atOutput: 1) == 2, "what was played before the change keeps its time")
        timeline.mark(atOutput: 6, recording: 3, factor: 0.5)  // a loop wrap back to 3 s
        #expect(timeline.recordingTime(atOutput: 5.5) == 4.75)
        #expect(timeline.recordingTime(atOutput: 7) == 3.5)
        #expect(timeline.start == 1)
    }

    @Test("seconds, frames and the fetch plan: keep feeding, refeed held bytes, read on, or ask with Range")
    func plansFetches() {
        let plan = SeekPlan(sampleRate: 44100)
        #expect(plan.frame(atSeconds: 30) == 1_323_000)
        #expect(plan.frame(atSeconds: -1) == 0)
        #expect(plan.seconds(atFrame: 22050) == 0.5)
        #expect(SeekPlan.fetch(target: 1000, received: 1000, heldFrom: nil) == .continueFeeding)
        #expect(SeekPlan.fetch(target: 500, received: 1000, heldFrom: 0) == .refeedHeld(from: 500))
        #expect(SeekPlan.fetch(target: 500, received: 1000, heldFrom: 600) == .request(offset: 500))
        #expect(SeekPlan.fetch(target: 500, received: 1000, heldFrom: nil) == .request(offset: 500))
        #expect(SeekPlan.fetch(target: 2000, received: 1000, heldFrom: nil) == .discardForward(bytes: 1000))
        #expect(SeekPlan.fetch(target: 1_000_000, received: 1000, heldFrom: 0) == .request(offset: 1_000_000))
    }

    @Test("a WAV seek is arithmetic on the header: data start + frame × block align, data size shortened")
    func locatesWAVData() throws {
        func le(_ value: Int, _ count: Int) -> [UInt8] {
            (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        let format = le(1, 2) + le(2, 2) + le(48000, 4) + le(48000 * 4, 4) + le(4, 2) + le(16, 2)
        let list = Array("LIST".utf8) + le(3, 4) + [1, 2, 3, 0]  // odd size, padded
        let header =
            Array("RIFF".utf8) + le(0, 4) + Array("WAVE".utf8) + list + Array("fmt ".utf8) + le(16, 4)
            + format + Array("data".utf8) + le(4000, 4)
        #expect(WAVDataLocation(header: Array(header.dropLast(6))) == nil)  // does not reach data yet
        let location = try #require(WAVDataLocation(header: header + [9, 9, 9]))
        #expect(location.dataStart == header.count)
        #expect(location.blockAlign == 4 && location.sampleRate == 48000 && location.channels == 2)
        #expect(location.byteOffset(atFrame: 100) == header.count + 400)
        #expect(location.byteOffset(atFrame: 5000) == header.count + 4000)  // clamped to the end
        let resume = location.resumeHeader(atFrame: 100)
        #expect(Array(resume.suffix(4)) == le(3600, 4))
        #expect(resume.count == header.count)
        #expect(WAVDataLocation(header: Array("RIFX".utf8) + header.dropFirst(4)) == nil)
    }

    @Test("a loop cuts the chunk that crosses its end to the frame, and asks to wrap")
    func cutsAtTheLoopEnd() {
        let loop = LoopSection(start: 12, end: 15)
        #expect(loop.frames(sampleRate: 1000) == 12000..<15000)
        #expect(loop.cut(first: 13000, frames: 1152, sampleRate: 1000) == (1152, false))
        #expect(loop.cut(first: 14500, frames: 1152, sampleRate: 1000) == (500, true))
        #expect(loop.cut(first: 13848, frames: 1152, sampleRate: 1000) == (1152, true))
        #expect(loop.cut(first: 15100, frames: 1152, sampleRate: 1000) == (0, true))
    }

    @Test("held bytes serve a seek back without a request, stay bounded, and restart after a new request")
    func holdsBytes() {
        var held = HeldBytes(limit: 100)
        held.append(Array(0..<80).map { UInt8($0) })
        #expect(held.bytes(from: 10)?.first == 10)
        #expect(SeekPlan.fetch(target: 10, received: held.end, heldFrom: held.heldFrom) == .refeedHeld(from: 10))
        held.append(Array(80..<130).map { UInt8($0) })
        #expect(held.heldFrom == 30 && held.end == 130)
        #expect(held.bytes(from: 10) == nil)
        #expect(held.bytes(from: 30)?.count == 100)
        held.restart(at: 5000)
        held.append([1, 2, 3])
        #expect(held.bytes(from: 5001) == [2, 3])
    }
}

@Suite("Held bytes and the decoder")
struct HeldBytesDecodeTests {
    @Test("a chunk larger than the bound never pushes out bytes not yet decoded")
    func keepsUndecoded() {
        var held = HeldBytes(limit: 1000)
        held.append([UInt8](repeating: 1, count: 800), keepingFrom: 0)
        held.append([UInt8](repeating: 2, count: 5000), keepingFrom: 600)
        #expect(held.heldFrom == 600, "only decoded bytes went")
        #expect(held.bytes(from: 600)?.count == 5200)
        held.append([UInt8](repeating: 3, count: 100), keepingFrom: 5700)
        #expect(held.heldFrom > 600 && held.heldFrom <= 5700)
        #expect(held.end == 5900)
    }
}
