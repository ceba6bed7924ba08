import CFLAC
import ChirperCore

// What the fed decoder does about damage: where it resumes after a frame libFLAC gave up on, how far back a
// starved call is made again, and what it says of the damage met.

extension FLACDecoder {
    /// Why a fed call to libFLAC is made again from the byte it started at, with libFLAC flushed.
    enum Retry {
        /// libFLAC asked for bytes not fed yet (damage longer than a frame): its read was abandoned.
        case starved
        /// Its write was libFLAC's own silence for a gap, refused.
        case libFLACSilence
    }

    /// The most bytes a starved call is made again over: well past the longest gap libFLAC fills (50 blocks).
    var retryReach: Int64 { Int64(64 * wholeFrame + (1 << 16)) }

    /// The byte after the last frame sync (0xFFF8 or 0xFFF9) between `from` and libFLAC's position: where the
    /// search goes on after a frame libFLAC gave up on, so what it read before that frame is not read again
    /// (fed); `from + 1` when there is none, or from a file.
    func afterLastSync(from: Int64) -> Int64 {
        var position: UInt64 = 0
        guard case .fed(let held, _, _) = input, FLAC__stream_decoder_get_decode_position(handle, &position) != 0
        else { return from + 1 }
        let low = max(0, from - droppedBytes)
        var index = min(Int64(held.count), Int64(position) - droppedBytes) - 2
        while index >= low {
            let at = Int(index)
            if held[at] == 0xFF, held[at + 1] & 0xFE == 0xF8 { return droppedBytes + index + 1 }
            index -= 1
        }
        return from + 1
    }

    /// libFLAC met damage (a lost sync, a bad header, a checksum that does not match, a frame given up on).
    func noteDamage() {
        if met.errorAt == nil { met.errorAt = seconds(atFrame: nextFrame) }
    }

    func seconds(atFrame frame: UInt64) -> Double {
        info.map { Double(frame) / Double(max(1, $0.sampleRate)) } ?? 0
    }
}

/// The damage a FLAC decoder met: where libFLAC first reported it, and the frames played as silence for it.
struct DamageMet: Equatable {
    var errorAt: Double?
    /// Blocks of silence written in place of frames lost, and where the first began.
    var silencedFrames = 0
    var firstGapAt: Double?

    /// Said from the first error or gap on; at least one frame once libFLAC reported damage (a damaged tail
    /// has no frame after it to make a gap).
    var damage: FLACDamage? {
        guard let at = firstGapAt ?? errorAt else { return nil }
        return FLACDamage(frames: max(1, silencedFrames), firstAt: at)
    }
}
