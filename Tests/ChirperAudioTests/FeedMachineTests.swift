import ChirperCore
import Testing

@testable import ChirperAudio

private let mono8k = PCMFormat(sampleRate: 8000, channels: 1)
private let stereo44k = PCMFormat(sampleRate: 44100, channels: 2)

private func segment(
    _ number: Int, from start: Double = 0, loop: LoopSection? = nil, speed: PlaybackSpeed = .normal
) -> PlaybackSegment {
    var settings = PlaybackSettings()
    settings.speed = speed
    return PlaybackSegment(number: number, start: start, settings: settings, loop: loop)
}

/// A machine whose stream is 8 kHz mono and has its output; with `then`, restarted for that segment (a seek,
/// a loop) and landed at its start exactly (WAV).
private func playing(then plan: PlaybackSegment? = nil) -> FeedMachine {
    var machine = FeedMachine(segment: segment(0))
    let opened = machine.formatArrived(mono8k, duration: 10, outputFormat: nil)
    #expect(opened == [.reportDuration(10), .openOutput(mono8k)])
    if let plan {
        let restarted = machine.restart(plan)
        #expect(restarted)
        let frame = Int(plan.start * 8000)
        let start = machine.landed(atFrame: frame, target: frame)
        #expect(start == plan.start)
    }
    return machine
}

@Suite("The track feed's decisions")
struct FeedMachineTests {
    @Test("a section played once ends at its end: nothing after it plays, nothing is kept, the track finishes")
    func sectionOnce() {
        let section = LoopSection(start: 1.0, end: 1.5, once: true)
        var machine = playing(then: segment(1, from: 1.0, loop: section))
        #expect(machine.decoded(frames: 2000) == FeedMachine.Cut(frames: 0..<2000, wrapTo: nil))
        machine.keepForLoop([Int16](repeating: 1, count: 2000))
        #expect(machine.loopPass?.isEmpty != false, "a section played once keeps no pass to replay")
        // The end is inside this batch: its first 2000 frames play, then the section is over.
        #expect(machine.decoded(frames: 4000) == FeedMachine.Cut(frames: 0..<2000, wrapTo: nil))
        #expect(machine.decoded(frames: 4000) == FeedMachine.Cut(frames: 0..<0, wrapTo: nil))
        #expect(machine.nextStep(undecodedInput: true, readerOpen: true) == .endOfBody)
        #expect(machine.endOfBody() == .finish)
        // A seek (a restart) plays on from its target.
        let restarted = machine.restart(segment(2, from: 0.5, loop: section))
        #expect(restarted)
        #expect(machine.nextStep(undecodedInput: true, readerOpen: true) == .decode)
    }

    @Test("a loop's first pass is kept; at its end the feed replays it from memory, piece by piece, seam after seam")
    func loopReplays() {
        // A loop of 1.0–1.5 s at 8 kHz: frames 8000..<12000.
        let loop = LoopSection(start: 1.0, end: 1.5)
        var machine = playing(then: segment(1, from: 1.0, loop: loop))
        // 0.25 s, then 0.5 s: the loop's end is inside the second batch.
        let r4 = machine.decoded(frames: 2000)
        #expect(r4 == FeedMachine.Cut(frames: 0..<2000, wrapTo: nil))
        machine.keepForLoop([Int16](repeating: 1, count: 2000))
        let r5 = machine.decoded(frames: 4000)
        #expect(r5 == FeedMachine.Cut(frames: 0..<2000, wrapTo: 1.0))
        machine.keepForLoop([Int16](repeating: 2, count: 2000))
        let r6 = machine.wrap(to: 1.0)
        #expect(r6 == .replay)
        #expect(machine.nextStep(undecodedInput: true, readerOpen: true) == .replay, "the pass, not the decoder")
        let first = machine.nextReplayPiece()
        #expect(first?.count == 2000 && first?.allSatisfy { $0 == 1 } == true)
        machine.queued(seconds: 0.25)
        let r7 = machine.replayPiecePlayed()
        #expect(r7 == .goOn)
        let second = machine.nextReplayPiece()
        #expect(second?.allSatisfy { $0 == 2 } == true)
        machine.queued(seconds: 0.25)
        let r8 = machine.replayPiecePlayed()
        #expect(r8 == .wrapped(atOutput: 0.5, to: 1.0), "the seam, at the output it is heard")
        let again = machine.nextReplayPiece()
        #expect(again?.first == 1, "and again from the start")
    }

    @Test("loop off during a replay: the pass plays to its end, then decoding goes on from the loop's end")
    func loopOffDuringReplay() {
        let loop = LoopSection(start: 0, end: 0.25)
        var machine = playing(then: segment(1, loop: loop))
        _ = machine.decoded(frames: 1000)
        machine.keepForLoop([Int16](repeating: 3, count: 1000))
        let r9 = machine.decoded(frames: 2000)
        #expect(r9 == FeedMachine.Cut(frames: 0..<1000, wrapTo: 0))
        machine.keepForLoop([Int16](repeating: 4, count: 1000))
        let r10 = machine.wrap(to: 0)
        #expect(r10 == .replay)
        let r11 = machine.command(.setLoop(nil), while: .step, readerOpen: true)
        #expect(r11 == .none)
        let whole = machine.nextReplayPiece()
        #expect(whole?.count == 2000)
        let r12 = machine.replayPiecePlayed()
        #expect(r12 == .resume(atSeconds: 0.25))
        #expect(machine.nextStep(undecodedInput: true, readerOpen: true) == .decode)
    }

    @Test(
        "a seek during a loop replay ends the replay: the new segment decodes from its target, frames before it dropped"
    )
    func seekDuringReplay() {
        let loop = LoopSection(start: 0, end: 0.125)
        var machine = playing(then: segment(1, loop: loop))
        let r13 = machine.decoded(frames: 2000)
        #expect(r13 == FeedMachine.Cut(frames: 0..<1000, wrapTo: 0))
        machine.keepForLoop([Int16](repeating: 5, count: 1000))
        let r14 = machine.wrap(to: 0)
        #expect(r14 == .replay)
        _ = machine.nextReplayPiece()
        let seek = segment(1, from: 2.0)
        let r15 = machine.command(.restart(seek), while: .step, readerOpen: true)
        #expect(r15 == .restart(seek))
        let r16 = machine.restart(seek)
        #expect(r16)
        #expect(machine.nextStep(undecodedInput: true, readerOpen: true) == .decode, "no replay after the seek")
        // The MP3 seek landed two frames early: they prime the decoder and are dropped.
        let r17 = machine.landed(atFrame: 16000 - 2304, target: 16000)
        #expect(r17 == 2.0)
        let r18 = machine.decoded(frames: 1152)
        #expect(r18 == FeedMachine.Cut(frames: 1152..<1152, wrapTo: nil))
        let r19 = machine.decoded(frames: 1152)
        #expect(r19 == FeedMachine.Cut(frames: 1152..<1152, wrapTo: nil))
        let r20 = machine.decoded(frames: 1152)
        #expect(r20 == FeedMachine.Cut(frames: 0..<1152, wrapTo: nil))
        #expect(machine.segmentQueued == 0 && machine.starting)
    }

    @Test(
        "a format change inside a loop plays out the old output and opens one for the new format; the same format again changes nothing"
    )
    func formatChangeInLoop() {
        var machine = playing(then: segment(1, loop: LoopSection(start: 0, end: 1)))
        let r21 = machine.formatArrived(mono8k, duration: 10, outputFormat: mono8k)
        #expect(r21 == [])
        let r22 = machine.formatArrived(stereo44k, duration: nil, outputFormat: mono8k)
        #expect(r22 == [.drainOutput, .openOutput(stereo44k)])
        #expect(machine.format == stereo44k)
    }

    @Test("a seek before the format is known waits for it, and is carried out when it comes")
    func seekBeforeFormat() {
        var machine = FeedMachine(segment: segment(0))
        let seek = segment(1, from: 3.0)
        let r23 = machine.restart(seek)
        #expect(!r23, "no format: it waits")
        let r24 = machine.formatArrived(mono8k, duration: 10, outputFormat: nil)
        #expect(r24 == [.reportDuration(10), .restart(seek)])
        #expect(machine.awaitingFormat == nil)
    }

    @Test("end of stream at keep speed: the track finishes (the speed stage is played out), a loop wraps instead")
    func endOfStream() {
        var kept = playing(then: segment(1, speed: PlaybackSpeed(factor: 0.5, mode: .keep)))
        _ = kept.bodyEnded(received: 100, total: 100, canResume: true)
        #expect(kept.nextStep(undecodedInput: false, readerOpen: true) == .endOfBody)
        let r25 = kept.endOfBody()
        #expect(r25 == .finish)
        var looped = playing(then: segment(1, from: 0.5, loop: LoopSection(start: 0.5, end: 10)))
        _ = looped.bodyEnded(received: 100, total: 100, canResume: true)
        let r26 = looped.endOfBody()
        #expect(r26 == .wrap(to: 0.5))
    }

    @Test("a body cut short is a drop to resume from; a whole one is the end")
    func bodyEnds() {
        var machine = playing()
        let r27 = machine.bodyEnded(received: 50, total: 100, canResume: true)
        #expect(r27)
        #expect(machine.nextStep(undecodedInput: false, readerOpen: false) == .dropped)
        let r28 = machine.bodyEnded(received: 50, total: 100, canResume: false)
        #expect(!r28, "a source that cannot resume ends")
        #expect(machine.networkEnded)
    }

    @Test("stale commands after a seek change nothing, and keep the feed waiting for what it waited for")
    func staleCommands() {
        var machine = playing()
        // A drain that answered the end of a segment a restart replaced.
        let r29 = machine.command(.drain, while: .step, readerOpen: true)
        #expect(r29 == .none)
        // A reconnect asked for before a seek made a new request (the reader is open again).
        let r30 = machine.command(.reconnect(from: 10, attempt: 1), while: .step, readerOpen: true)
        #expect(r30 == .none)
        #expect(
            machine.command(.reconnect(from: 10, attempt: 1), while: .step, readerOpen: false)
                == .reconnect(from: 10, attempt: 1))
        // Every byte is here: a reconnect is stale while waiting for the drain.
        let r31 = machine.command(.reconnect(from: 10, attempt: 1), while: .drain, readerOpen: false)
        #expect(r31 == .none)
        let r32 = machine.command(.drain, while: .drain, readerOpen: false)
        #expect(r32 == .drain)
        // A loop change while waiting for a reconnect is taken, and the wait goes on (the drop is not reported again).
        let r33 = machine.command(.setLoop(LoopSection(start: 1, end: 2)), while: .reconnect, readerOpen: false)
        #expect(r33 == .none)
        #expect(machine.plan.loop == LoopSection(start: 1, end: 2))
        let r34 = machine.command(nil, while: .reconnect, readerOpen: false)
        #expect(r34 == .finish)
        let r35 = machine.command(.stop, while: .drain, readerOpen: false)
        #expect(r35 == .finish)
    }

    @Test("a loop too long to keep is replayed by seeking back")
    func tooLongToKeep() {
        var machine = playing(then: segment(1, loop: LoopSection(start: 0, end: 10_000)))
        machine.keepForLoop([Int16](repeating: 0, count: FeedMachine.loopPassLimit + 1))
        let r36 = machine.wrap(to: 0)
        #expect(r36 == .seekBack(to: 0))
        #expect(machine.loopPass == nil, "and no later pass is kept")
    }
}
