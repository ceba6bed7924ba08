"""What the recorded samples say: how much of a recording was sound, which tone plays, where a seek landed.
Pure functions of s16 samples (array('h') or any sequence of ints)."""

import array
import math

from .common import RATE, SEEK_TONES, THRESHOLD


def loud(view):
    """Whether any sample of `view` is louder than THRESHOLD."""
    return max(view) > THRESHOLD or min(view) < -THRESHOLD


def tone_power(view, hz):
    """Power of `hz` in `view` (a DFT bin at that frequency; exact when the block holds whole cycles)."""
    step = 2 * math.pi * hz / RATE
    re_sum = sum(v * math.cos(step * n) for n, v in enumerate(view))
    im_sum = sum(v * math.sin(step * n) for n, v in enumerate(view))
    return re_sum * re_sum + im_sum * im_sum


def landing(view):
    """Where a seek to SEEK_TARGET landed, in recording seconds, read from the monitor's samples `view` that
    start at the seek's first sound: the tone heard first says which part of the file it is, the step
    from the first tone to the second (at SEEK_TONES[1][0]) says how far before the step it started.
    Returns (seconds, None) or (None, why)."""
    (_, first_hz), (step_at, second_hz) = SEEK_TONES[0], SEEK_TONES[1]
    block, hop = RATE // 100, RATE // 200  # 10 ms blocks (whole cycles of both tones), every 5 ms
    if len(view) < block:
        return None, "too little audio after the first sound"
    head = view[:block]
    if tone_power(head, second_hz) > tone_power(head, first_hz):
        return None, f"the first sound was the {second_hz} Hz tone: it landed at or after {step_at} s"
    for offset in range(hop, len(view) - block + 1, hop):
        piece = view[offset:offset + block]
        if tone_power(piece, second_hz) > tone_power(piece, first_hz):
            # The first block that is mostly the second tone: the step lies within a hop before its middle.
            return step_at - (offset + block / 2 - hop / 2) / RATE, None
    return None, f"no step to {second_hz} Hz within {len(view) / RATE:.1f} s of the first sound"


def audible_seconds(raw):
    """Seconds of 10 ms blocks with a sample louder than THRESHOLD in s16le mono `raw`."""
    view = array.array("h", raw[:len(raw) // 2 * 2])
    block = RATE // 100
    sounding = 0
    for start in range(0, len(view), block):
        if loud(view[start:start + block]):
            sounding += 1
    return sounding / 100
