import Testing

@testable import ChirperCore

private let mono8k = PCMFormat(sampleRate: 8000, channels: 1)
private let stereo44k = PCMFormat(sampleRate: 44100, channels: 2)
private let limits = TrackMachine.Limits(startFloor: 0.2, decodeChunkBytes: 16 * 1024, canResume: true)
/// A WAV of 8 kHz mono: 16 000 bytes a second after its 44-byte header; 10 s of it arrived.
private let arrived: Int64 = 160_044

private typealias Landed = TrackMachine.Landed

private func segment(
    _ number: Int, from start: Double = 0, loop: LoopSection? = nil, speed: PlaybackSpeed = .normal
) -> PlaybackSegment {
    var settings = PlaybackSettings()
    settings.speed = speed
    return PlaybackSegment(number: number, start: start, settings: settings, loop: loop)
}

private func output(
    _ format: PCMFormat = mono8k, segment: Int, band: FrequencyBand? = nil, speed: PlaybackSpeed = .normal,
    playedBefore: Double = 0, continuing: Bool = true
) -> TrackMachine.OutputSetup {
    TrackMachine.OutputSetup(
        format: format, speed: speed, band: band, segment: segment, playedBefore: playedBefore,
        continuing: continuing)
}

private func samples(_ value: Int16, _ count: Int) -> [Int16] { [Int16](repeating: value, count: count) }

/// The body byte of a frame of the 8 kHz mono WAV.
private func byte(_ frame: Int) -> Int64 { 44 + 2 * Int64(frame) }

/// A machine whose stream is 8 kHz mono and has its output; with `then`, restarted for that segment (a seek,
/// a loop) and landed at its start exactly, inside what arrived.
private func playing(then plan: PlaybackSegment? = nil) -> TrackMachine {
    var machine = TrackMachine(segment: segment(0), limits: limits)
    let opened = machine.handle(.format(mono8k, duration: 10, outputFormat: nil))
    #expect(
        opened == [.report(.durationKnown(10)), .openOutput(output(segment: 0, continuing: false), drainingOld: false)])
    if let plan {
        let frame = Int(plan.start * 8000)
        #expect(machine.handle(.command(.restart(plan))) == [.seekDecoder(toFrame: frame)])
        let landed = machine.handle(
            .decoderLanded(
                Landed(frame: frame, byteOffset: byte(frame), estimated: false, received: arrived, heldFrom: 0)))
        #expect(
            landed == [
                .feed(from: byte(frame)),
                .openOutput(
                    output(segment: plan.number, band: plan.loop?.band, speed: plan.settings.speed), drainingOld: false),
                .report(
                    .seekLanded(
                        at: plan.start, landing: .exact, networkOffset: nil, rangeIgnored: false, segment: plan.number)),
            ])
    }
    return machine
}

/// A loop of 0–0.25 s at 8 kHz whose first pass was kept, and whose last piece was just handed to the sink.
private func atTheLoopsEnd() -> TrackMachine {
    var machine = playing(then: segment(1, loop: LoopSection(start: 0, end: 0.25)))
    _ = machine.handle(.samples(samples(3, 1000), undecodedBytes: 0, decodedBytes: byte(1000)))
    _ = machine.handle(.played(nil))
    let end = machine.handle(.samples(samples(4, 2000), undecodedBytes: 0, decodedBytes: byte(3000)))
    #expect(
        end == [
            .hear(mono8k, frame: 1000, samples: samples(4, 1000)),
            .play(samples(4, 1000), through: .bandAndSpeed, pieceSeconds: 0.2, ahead: 0),
        ])
    return machine
}

/// Once the piece in hand is played, the decoder is pointed at the loop's end (frame 2000) and decodes on.
private func expectGoesOnFromTheLoopsEnd(_ machine: inout TrackMachine) {
    #expect(machine.handle(.played(nil)) == [.seekDecoder(toFrame: 2000)], "on from the loop's end")
    let landed = machine.handle(
        .decoderLanded(Landed(frame: 2000, byteOffset: byte(2000), estimated: false, received: arrived, heldFrom: 0)))
    #expect(landed == [.feed(from: byte(2000))])
    #expect(machine.handle(.ready(undecodedInput: true)) == [.decode(pieceBytes: 4096, atLeast: 0.2, join: true)])
}

@Suite("One track's decisions, event by event")
struct TrackMachineTests {
    @Test("a seek's restart that comes after a newer seek's is dropped: the track stays on the newer segment")
    func lateRestartAfterNewer() {
        var machine = playing(then: segment(3, from: 2.0))
        #expect(machine.handle(.command(.restart(segment(2, from: 1.0)))) == [])
        #expect(machine.track.plan.number == 3)
        #expect(machine.handle(.command(.restart(segment(4, from: 0.5)))) == [.seekDecoder(toFrame: 4000)])
    }

    @Test("a section played once ends at its end: nothing after it plays, the track finishes, a seek plays on")
    func sectionOnce() {
        let section = LoopSection(start: 1.0, end: 1.5, once: true)
        var machine = playing(then: segment(1, from: 1.0, loop: section))
        let first = machine.handle(.samples(samples(1, 2000), undecodedBytes: 0, decodedBytes: byte(10_000)))
        #expect(
            first == [
                .hear(mono8k, frame: 8000, samples: samples(1, 2000)),
                .play(samples(1, 2000), through: .bandAndSpeed, pieceSeconds: 0.2, ahead: 0),
            ])
        #expect(
            machine.handle(.queued(seconds: 0.25, ahead: 0)) == [
                .report(.pcmQueued(seconds: 0.25, segment: 1, ahead: 0))
            ])
        #expect(machine.handle(.played(nil)) == [])
        // The end is inside this batch: its first 2000 frames play, then the section is over.
        let last = machine.handle(.samples(samples(2, 4000), undecodedBytes: 0, decodedBytes: byte(14_000)))
        #expect(
            last == [
                .hear(mono8k, frame: 10_000, samples: samples(2, 2000)),
                .play(samples(2, 2000), through: .bandAndSpeed, pieceSeconds: 0.2, ahead: 0),
            ])
        #expect(machine.handle(.samples(samples(3, 4000), undecodedBytes: 0, decodedBytes: byte(18_000))) == [])
        #expect(machine.handle(.ready(undecodedInput: true)) == [.flushSpeed], "nothing after the section is decoded")
        #expect(machine.handle(.speedFlushed([])) == [.report(.endOfStream(segment: 1))])
        #expect(machine.handle(.ready(undecodedInput: true)) == [.awaitInput])
        // A seek (a restart) plays on from its target.
        #expect(
            machine.handle(.command(.restart(segment(2, from: 0.5, loop: section)))) == [.seekDecoder(toFrame: 4000)])
        let landed = machine.handle(
            .decoderLanded(
                Landed(frame: 4000, byteOffset: byte(4000), estimated: false, received: arrived, heldFrom: 0)))
        #expect(
            landed == [
                .feed(from: byte(4000)), .openOutput(output(segment: 2), drainingOld: false),
                .report(.seekLanded(at: 0.5, landing: .exact, networkOffset: nil, rangeIgnored: false, segment: 2)),
            ])
        #expect(machine.handle(.ready(undecodedInput: true)) == [.decode(pieceBytes: 4096, atLeast: 0.2, join: true)])
    }

    @Test("a loop's first pass is kept; at its end the track replays it from memory, piece by piece, seam after seam")
    func loopReplays() {
        // A loop of 1.0–1.5 s at 8 kHz: frames 8000..<12000.
        let loop = LoopSection(start: 1.0, end: 1.5)
        var machine = playing(then: segment(1, from: 1.0, loop: loop))
        _ = machine.handle(.samples(samples(1, 2000), undecodedBytes: 0, decodedBytes: byte(10_000)))
        _ = machine.handle(.queued(seconds: 0.25, ahead: 0))
        #expect(machine.handle(.played(nil)) == [])
        // The loop's end is inside the next batch: its kept piece is written, then the loop wraps.
        let end = machine.handle(.samples(samples(2, 4000), undecodedBytes: 0, decodedBytes: byte(14_000)))
        #expect(
            end == [
                .hear(mono8k, frame: 10_000, samples: samples(2, 2000)),
                .play(samples(2, 2000), through: .bandAndSpeed, pieceSeconds: 0.2, ahead: 0),
            ])
        _ = machine.handle(.queued(seconds: 0.25, ahead: 0))
        let heard = TrackMachine.SinkPosition(segment: 1, seconds: 0.1)
        #expect(
            machine.handle(.played(heard)) == [
                .report(.progress(heard)), .report(.loopWrapped(atOutput: 0.5, to: 1.0, segment: 1)),
            ], "the seam, at the output it is heard")
        #expect(
            machine.handle(.ready(undecodedInput: true)) == [
                .play(samples(1, 2000), through: .speed, pieceSeconds: 0.2, ahead: 0)
            ], "the pass, not the decoder")
        _ = machine.handle(.queued(seconds: 0.25, ahead: 0))
        #expect(machine.handle(.played(nil)) == [])
        #expect(
            machine.handle(.ready(undecodedInput: true)) == [
                .play(samples(2, 2000), through: .speed, pieceSeconds: 0.2, ahead: 0)
            ])
        _ = machine.handle(.queued(seconds: 0.25, ahead: 0))
        #expect(machine.handle(.played(nil)) == [.report(.loopWrapped(atOutput: 1.0, to: 1.0, segment: 1))])
        #expect(
            machine.handle(.ready(undecodedInput: true)) == [
                .play(samples(1, 2000), through: .speed, pieceSeconds: 0.5, ahead: 0)
            ], "and again from the start, in larger pieces once a second is queued")
    }

    @Test("loop off while the pass's last piece is written: no seam and no other pass; on from the loop's end")
    func loopOffWhileWrapping() {
        var machine = atTheLoopsEnd()
        machine.setLoop(nil)
        expectGoesOnFromTheLoopsEnd(&machine)
    }

    @Test("loop off during a replay: the pass plays to its end, then decoding goes on from the loop's end")
    func loopOffDuringReplay() {
        var machine = atTheLoopsEnd()
        #expect(machine.handle(.played(nil)) == [.report(.loopWrapped(atOutput: 0, to: 0, segment: 1))])
        machine.setLoop(nil)
        #expect(
            machine.handle(.ready(undecodedInput: true)) == [
                .play(samples(3, 1000) + samples(4, 1000), through: .speed, pieceSeconds: 0.2, ahead: 0)
            ])
        expectGoesOnFromTheLoopsEnd(&machine)
    }

    @Test(
        "a format change inside a loop plays out the old output and opens one for the new format; the same format again changes nothing"
    )
    func formatChangeInLoop() {
        var machine = playing(then: segment(1, loop: LoopSection(start: 0, end: 1)))
        #expect(machine.handle(.format(mono8k, duration: 10, outputFormat: mono8k)) == [])
        #expect(
            machine.handle(.format(stereo44k, duration: nil, outputFormat: mono8k)) == [
                .openOutput(output(stereo44k, segment: 1), drainingOld: true)
            ])
        #expect(machine.track.format == stereo44k)
    }

    @Test("a seek before the format is known waits for it, and is carried out when it comes")
    func seekBeforeFormat() {
        var machine = TrackMachine(segment: segment(0), limits: limits)
        let seek = segment(1, from: 3.0)
        #expect(machine.handle(.command(.restart(seek))) == [], "no format: it waits")
        #expect(
            machine.handle(.format(mono8k, duration: 10, outputFormat: nil)) == [
                .report(.durationKnown(10)), .seekDecoder(toFrame: 24_000),
            ])
        #expect(!machine.track.seekPending)
    }

    @Test("the end of the body at keep speed plays the speed stage out, then reports the end; a loop wraps instead")
    func endOfStream() {
        var kept = playing(then: segment(1, speed: PlaybackSpeed(factor: 0.5, mode: .keep)))
        #expect(kept.handle(.bodyEnded(received: 100, total: 100)) == [])
        #expect(kept.handle(.ready(undecodedInput: false)) == [.finishDecoding])
        #expect(kept.handle(.decoderFinished) == [.flushSpeed])
        #expect(kept.handle(.speedFlushed([7, 7])) == [.play([7, 7], through: .none, pieceSeconds: 0.2, ahead: 0)])
        #expect(kept.handle(.played(nil)) == [.report(.endOfStream(segment: 1))])
        var looped = playing(then: segment(1, from: 0.5, loop: LoopSection(start: 0.5, end: 10)))
        _ = looped.handle(.bodyEnded(received: 100, total: 100))
        #expect(
            looped.handle(.ready(undecodedInput: false)) == [
                .report(.loopWrapped(atOutput: 0, to: 0.5, segment: 1)), .seekDecoder(toFrame: 4000),
            ], "nothing was kept of the pass: back to the loop's start")
    }

    @Test(
        "a body cut short is a drop to resume from, reported once; a network failure is one; other failures end the track"
    )
    func drops() {
        var machine = playing()
        #expect(machine.handle(.bodyEnded(received: 50, total: 100)) == [])
        #expect(
            machine.handle(.ready(undecodedInput: false)) == [
                .report(.connectionDropped(segment: 0)), .awaitInput,
            ])
        machine.setLoop(LoopSection(start: 1, end: 2))
        #expect(machine.handle(.ready(undecodedInput: false)) == [.awaitInput], "the drop is not reported again")
        #expect(machine.handle(.command(.reconnect(from: 50, attempt: 1))) == [.reconnect(from: 50, attempt: 1)])
        #expect(machine.handle(.connectionFailed(network: true)) == [])
        #expect(
            machine.handle(.ready(undecodedInput: false)) == [.report(.connectionDropped(segment: 0)), .awaitInput])
        #expect(machine.handle(.command(.reconnect(from: 50, attempt: 2))) == [.reconnect(from: 50, attempt: 2)])
        #expect(machine.handle(.connected(rangeIgnored: false)) == [])
        #expect(machine.handle(.ready(undecodedInput: false)) == [.read])
        #expect(machine.handle(.connectionFailed(network: false)) == [.fail(nil)], "the server's answer, not a drop")
        var whole = TrackMachine(
            segment: segment(0), limits: TrackMachine.Limits(startFloor: 0.2, decodeChunkBytes: 1, canResume: false))
        #expect(whole.handle(.connectionFailed(network: true)) == [.fail(nil)], "a source that cannot resume ends")
        _ = whole.handle(.bodyEnded(received: 50, total: 100))
        #expect(whole.track.body == .complete)
    }

    @Test(
        "until the source first answers the track waits; a failure then ends it, and once it answered a network failure is a drop"
    )
    func firstAnswer() {
        var machine = TrackMachine(segment: segment(0), limits: limits)
        #expect(machine.handle(.ready(undecodedInput: false)) == [.awaitInput], "nothing to read yet")
        #expect(machine.handle(.connectionFailed(network: true)) == [.fail(nil)], "nothing to resume")
        var answered = TrackMachine(segment: segment(0), limits: limits)
        #expect(answered.handle(.connected(rangeIgnored: false)) == [])
        #expect(answered.handle(.ready(undecodedInput: false)) == [.read])
        #expect(answered.handle(.connectionFailed(network: true)) == [])
        #expect(answered.track.body == .cutOff)
    }

    @Test("stale commands change nothing, and keep the track waiting for what it waited for")
    func staleCommands() {
        var machine = playing()
        // A drain that answered the end of a segment a restart replaced; a reconnect asked for before a seek made
        // a new request.
        #expect(machine.handle(.command(.drain)) == [])
        #expect(machine.handle(.command(.reconnect(from: 10, attempt: 1))) == [])
        _ = machine.handle(.bodyEnded(received: 100, total: 100))
        #expect(machine.handle(.ready(undecodedInput: false)) == [.finishDecoding])
        #expect(machine.handle(.decoderFinished) == [.flushSpeed])
        #expect(machine.handle(.speedFlushed([])) == [.report(.endOfStream(segment: 0))])
        // Every byte is here: a reconnect is stale while waiting for the drain.
        #expect(machine.handle(.command(.reconnect(from: 10, attempt: 1))) == [])
        #expect(machine.handle(.command(.drain)) == [.drainOutput])
        #expect(machine.handle(.drained(late: 0.02)) == [.report(.drainFinished(segment: 0, late: 0.02))])
        #expect(machine.handle(.command(nil)) == [.end(.ended)], "a closed channel ends the track")
        #expect(machine.handle(.command(.restart(segment(1)))) == [], "nothing after the end")
    }

    @Test("a loop too long to keep is replayed by seeking back, and no later pass is kept")
    func tooLongToKeep() {
        var machine = playing(then: segment(1, loop: LoopSection(start: 0, end: 10_000)))
        let long = samples(0, TrackMachine.loopPassLimit + 1)
        _ = machine.handle(.samples(long, undecodedBytes: 0, decodedBytes: 100))
        _ = machine.handle(.played(nil))
        _ = machine.handle(.bodyEnded(received: arrived, total: arrived))
        #expect(
            machine.handle(.ready(undecodedInput: false)) == [
                .report(.loopWrapped(atOutput: 0, to: 0, segment: 1)), .seekDecoder(toFrame: 0),
            ])
        _ = machine.handle(
            .decoderLanded(Landed(frame: 0, byteOffset: byte(0), estimated: false, received: arrived, heldFrom: 0)))
        #expect(machine.state == .feeding(.tooLong))
    }
}

@Suite("A seek, a stop and a new track are events of the one track machine")
struct TrackMachineScenarioTests {
    @Test(
        "a seek during a loop's replay: the write it retired ends the replay, and the seek asks for what has not arrived"
    )
    func seekDuringReplay() {
        var machine = playing(then: segment(1, loop: LoopSection(start: 0, end: 0.125)))
        let pass = machine.handle(.samples(samples(5, 2000), undecodedBytes: 0, decodedBytes: byte(2000)))
        #expect(
            pass == [
                .hear(mono8k, frame: 0, samples: samples(5, 1000)),
                .play(samples(5, 1000), through: .bandAndSpeed, pieceSeconds: 0.2, ahead: 0),
            ])
        #expect(machine.handle(.played(nil)) == [.report(.loopWrapped(atOutput: 0, to: 0, segment: 1))])
        #expect(
            machine.handle(.ready(undecodedInput: true)) == [
                .play(samples(5, 1000), through: .speed, pieceSeconds: 0.2, ahead: 0)
            ])
        // The runner posts the restart, then retires the output under the replay's write.
        #expect(machine.handle(.outputRetired) == [])
        #expect(machine.handle(.ready(undecodedInput: true)) == [.awaitInput], "nothing more of the pass")
        #expect(machine.handle(.command(.restart(segment(2, from: 2.0)))) == [.seekDecoder(toFrame: 16_000)])
        // An MP3 of which 20 kB arrived: the decoder lands two frames early, far beyond what arrived.
        let landed = machine.handle(
            .decoderLanded(
                Landed(frame: 16_000 - 2304, byteOffset: 100_000, estimated: true, received: 20_000, heldFrom: 0)))
        #expect(landed == [.request(from: 100_000)])
        #expect(
            machine.handle(.connected(rangeIgnored: true)) == [
                .openOutput(output(segment: 2), drainingOld: false),
                .report(
                    .seekLanded(at: 2.0, landing: .estimated, networkOffset: 100_000, rangeIgnored: true, segment: 2)),
            ])
        #expect(
            machine.handle(.ready(undecodedInput: true)) == [.decode(pieceBytes: 4096, atLeast: 0.2, join: true)],
            "the decoder, not the pass")
        // The frames before the target prime the decoder and are dropped.
        #expect(machine.handle(.samples(samples(6, 2304), undecodedBytes: 0, decodedBytes: 101_000)) == [])
        #expect(
            machine.handle(.samples(samples(7, 1152), undecodedBytes: 0, decodedBytes: 101_500)) == [
                .hear(mono8k, frame: 16_000, samples: samples(7, 1152)),
                .play(samples(7, 1152), through: .bandAndSpeed, pieceSeconds: 0.2, ahead: 0),
            ])
    }

    @Test("a stop during a format change: the stop closes the output the change plays out, and ends the track")
    func stopDuringFormatChange() {
        var machine = playing()
        _ = machine.handle(.samples(samples(1, 800), undecodedBytes: 0, decodedBytes: byte(800)))
        #expect(
            machine.handle(.queued(seconds: 0.1, ahead: 0)) == [
                .report(.pcmQueued(seconds: 0.1, segment: 0, ahead: 0))
            ])
        #expect(machine.handle(.played(nil)) == [])
        // The stream changes format: the old output is played out before one for the new format opens.
        #expect(
            machine.handle(.format(stereo44k, duration: nil, outputFormat: mono8k)) == [
                .openOutput(output(stereo44k, segment: 0, playedBefore: 0.1), drainingOld: true)
            ])
        // The user stops while it plays out: the output is closed under the drain, the stop is in the channel.
        #expect(machine.handle(.outputRetired) == [])
        #expect(machine.handle(.ready(undecodedInput: true)) == [.awaitInput], "nothing is decoded for it")
        #expect(machine.handle(.command(.stop)) == [.end(.ended)])
        #expect(machine.handle(.samples(samples(2, 100), undecodedBytes: 0, decodedBytes: 2000)) == [])
    }

    @Test(
        "a new track during the drain: the old track's drain is cut short, its driver ends, its late report is stale")
    func newTrackDuringDrain() {
        var playback = PlaybackMachine()
        let first = PlayItem(label: "XC1", location: .local(path: "/demo/1.wav"), expectedDuration: 1)
        let next = PlayItem(label: "XC2", location: .local(path: "/demo/2.wav"))
        let ticket = PlaybackTicket(1)
        let start = PlaybackSegment(number: 0, start: 0, settings: PlaybackSettings())
        #expect(playback.playRequested(first) == .startPipeline(first, ticket: ticket, segment: start))
        // What the driver meets goes to the track's machine inside the playback machine.
        func step(_ event: TrackMachine.Event) -> PlaybackMachine.TrackStep {
            playback.trackEvent(event, ticket: ticket)
        }
        #expect(
            step(.format(mono8k, duration: 1, outputFormat: nil))
                == PlaybackMachine.TrackStep(driver: [
                    .openOutput(output(segment: 0, continuing: false), drainingOld: false)
                ]))
        _ = step(.samples(samples(1, 8000), undecodedBytes: 0, decodedBytes: byte(8000)))
        #expect(step(.queued(seconds: 0.6, ahead: 0)).actions == [.startOutput])
        _ = step(.bodyEnded(received: byte(8000), total: byte(8000)))
        #expect(step(.played(nil)) == PlaybackMachine.TrackStep())
        #expect(step(.ready(undecodedInput: false)).driver == [.finishDecoding])
        #expect(step(.decoderFinished).driver == [.flushSpeed])
        #expect(step(.speedFlushed([])) == PlaybackMachine.TrackStep(actions: [.drainOutput]))
        #expect(step(.command(.drain)).driver == [.drainOutput])
        // Another recording is played while the sink plays the last of this one out.
        #expect(
            playback.playRequested(next)
                == .replacePipeline(stopping: ticket, item: next, ticket: PlaybackTicket(2), segment: start))
        // The runner stops the old pipeline: its output is closed under the drain; the track is gone, so its
        // driver ends at its next step.
        #expect(step(.outputRetired).driver == [.end(.ended)])
        #expect(
            playback.drainFinished(ticket: ticket, segment: 0, late: 0) == .nothing,
            "the old track's report changes nothing")
        #expect(playback.activeTicket == PlaybackTicket(2))
    }

    @Test("a drained track ends when the playback machine finishes it")
    func drainedTrackFinishes() {
        var playback = PlaybackMachine()
        let item = PlayItem(label: "XC1", location: .local(path: "/demo/1.wav"))
        let ticket = PlaybackTicket(1)
        _ = playback.playRequested(item)
        func step(_ event: TrackMachine.Event) -> PlaybackMachine.TrackStep {
            playback.trackEvent(event, ticket: ticket)
        }
        _ = step(.format(mono8k, duration: 10, outputFormat: nil))
        _ = step(.samples(samples(1, 8000), undecodedBytes: 0, decodedBytes: byte(8000)))
        #expect(step(.queued(seconds: 1, ahead: 0)) == PlaybackMachine.TrackStep(actions: [.startOutput]))
        #expect(playback.track(of: ticket)?.queued == 1, "counted once, by the track's machine")
        _ = step(.bodyEnded(received: byte(8000), total: byte(8000)))
        _ = step(.played(nil))
        _ = step(.ready(undecodedInput: false))
        _ = step(.decoderFinished)
        #expect(step(.speedFlushed([])) == PlaybackMachine.TrackStep(actions: [.drainOutput]))
        #expect(step(.command(.drain)).driver == [.drainOutput])
        #expect(step(.drained(late: 0.01)) == PlaybackMachine.TrackStep(actions: [.finishPipeline(ticket)]))
        #expect(step(.command(.finish)).driver == [.end(.drained)])
    }
}
