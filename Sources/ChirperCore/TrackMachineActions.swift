/// The track machine's events, its reports to the playback machine and its actions for the driver.
extension TrackMachine {
    /// Where the decoder was pointed by a `seekDecoder`, and what of the body is held.
    public struct Landed: Sendable, Hashable {
        /// The frame the decoder will decode next (an MP3 seek may land a little before the target).
        public var frame: Int
        /// The body byte to feed the decoder from.
        public var byteOffset: Int64
        /// The landing is near the target rather than on it (a VBR MP3 placed by its table of contents).
        public var estimated: Bool
        /// Body bytes that arrived so far, and the first one still held (nil: none).
        public var received: Int64
        public var heldFrom: Int64?

        public init(frame: Int, byteOffset: Int64, estimated: Bool, received: Int64, heldFrom: Int64?) {
            self.frame = frame
            self.byteOffset = byteOffset
            self.estimated = estimated
            self.received = received
            self.heldFrom = heldFrom
        }
    }

    /// The sink's position: seconds of `segment` it has played.
    public struct SinkPosition: Sendable, Hashable {
        public var segment: Int
        public var seconds: Double

        public init(segment: Int, seconds: Double) {
            self.segment = segment
            self.seconds = seconds
        }
    }

    public enum Event: Sendable, Hashable {
        /// A command from the playback machine; nil: the channel was closed.
        case command(Command?)
        /// The driver is ready for the next step; `undecodedInput`: held bytes wait to be decoded.
        case ready(undecodedInput: Bool)
        /// A chunk of `bytes` arrived from the connection.
        case arrived(bytes: Int)
        /// The body ended after `received` of `total` bytes.
        case bodyEnded(received: Int64, total: Int64?)
        /// A read or a connect failed: `network`, a failure of the connection (not of the answer or the audio).
        case connectionFailed(network: Bool)
        /// A new connection is open; `rangeIgnored`: the server answered a Range request with the whole body.
        case connected(rangeIgnored: Bool)
        /// The decoder announced a format; `outputFormat` is the open output's, if any.
        case format(PCMFormat, duration: Double?, outputFormat: PCMFormat?)
        /// Decoded samples; `undecodedBytes` arrived and wait, `decodedBytes` were decoded so far.
        case samples([Int16], undecodedBytes: Int64, decodedBytes: Int64)
        /// The decoder met damaged frames (more than it had said before).
        case decoderDamaged(FLACDamage)
        /// The decoder's last frames were handed on (after `finishDecoding`).
        case decoderFinished
        /// The speed stage's last samples (after `flushSpeed`).
        case speedFlushed([Int16])
        /// A piece of a `play` was queued at the sink.
        case queued(seconds: Double, ahead: Double)
        /// Every piece of a `play` was queued; the sink's position, if it tells.
        case played(SinkPosition?)
        /// The output was retired (a seek) or closed (a stop) under a write or a drain: the command follows.
        case outputRetired
        /// The decoder was pointed for a `seekDecoder`.
        case decoderLanded(Landed)
        /// The decoder cannot seek yet (its format or its seek index is not ready).
        case decoderCannotSeek
        /// The output played everything out, the last sample `late` seconds ago.
        case drained(late: Double)
    }

    /// What the playback machine is told.
    public enum Report: Sendable, Hashable {
        case bytesArrived(Int)
        case durationKnown(Double)
        /// The recording has damaged frames, played as silence (`FLACDamage.notice` says so).
        case damaged(FLACDamage)
        case pcmQueued(seconds: Double, segment: Int, ahead: Double)
        case progress(SinkPosition)
        case seekLanded(at: Double, landing: Landing, networkOffset: Int64?, rangeIgnored: Bool, segment: Int)
        case loopWrapped(atOutput: Double, to: Double, segment: Int)
        case connectionDropped(segment: Int)
        case endOfStream(segment: Int)
        case drainFinished(segment: Int, late: Double)
    }

    /// What a `play` passes through before the sink.
    public enum Stages: Sendable, Hashable {
        /// Decoded audio: the section's band-pass (if any), then the speed stage.
        case bandAndSpeed
        /// The loop's kept pass: the speed stage.
        case speed
        /// The speed stage's tail: nothing more.
        case none
    }

    /// How an output is opened for a segment.
    public struct OutputSetup: Sendable, Hashable {
        public var format: PCMFormat
        public var speed: PlaybackSpeed
        /// The section's band, heard alone.
        public var band: FrequencyBand?
        /// The segment whose underruns the output reports.
        public var segment: Int
        /// Seconds of the segment played by earlier outputs (a format change).
        public var playedBefore: Double
        /// The track had an output before (a seek, a loop, a format change).
        public var continuing: Bool

        public init(
            format: PCMFormat, speed: PlaybackSpeed, band: FrequencyBand?, segment: Int, playedBefore: Double,
            continuing: Bool
        ) {
            self.format = format
            self.speed = speed
            self.band = band
            self.segment = segment
            self.playedBefore = playedBefore
            self.continuing = continuing
        }
    }

    public enum Action: Sendable, Hashable {
        /// Tell the playback machine.
        case report(Report)
        /// Read the next chunk from the connection, and wait for it (or for a command, which comes first).
        case read
        /// Decode held input in pieces of `pieceBytes`, one after another while input is held, until `atLeast`
        /// output seconds are decoded; `join`: samples after samples are handed on as one batch.
        case decode(pieceBytes: Int, atLeast: Double, join: Bool)
        /// Hand on what the decoder still holds, then report `decoderFinished`.
        case finishDecoding
        /// Take what the speed stage still holds (keep speed: libsonic's last pitch periods).
        case flushSpeed
        /// Play out the old format's output, then open one as `setup` says, with its speed stage and band-pass.
        case openOutput(OutputSetup, drainingOld: Bool)
        /// Play out the old format's output (a seek waiting for the format is carried out next).
        case drainOldOutput
        /// Decoded samples in `format` at recording frame `frame`, for those who listen (the live strip).
        case hear(PCMFormat, frame: Int, samples: [Int16])
        /// Through `stages` to the sink, written in pieces of `pieceSeconds`, each reported `queued`.
        case play([Int16], through: Stages, pieceSeconds: Double, ahead: Double)
        /// Point the decoder at `frame`; report where it landed. Ends the actions of the batch decoded before.
        case seekDecoder(toFrame: Int)
        /// Feed the decoder from body byte `offset` (inside what is held, or the next byte to arrive).
        case feed(from: Int64)
        /// Drop the connection and what is held, and ask the source from byte `offset`.
        case request(from: Int64)
        /// Wait the back-off for `attempt`, then ask the source from byte `offset`.
        case reconnect(from: Int64, attempt: Int)
        /// Nothing to do until the next command or the connection's next news: wait for it.
        case awaitInput
        /// Wait until the output has played everything; report `drained`.
        case drainOutput
        /// The track fails: with the failure just met (nil: it is not a drop to resume from), or `reason`.
        case fail(String?)
        /// The pipeline ends.
        case end(Outcome)
    }
}
