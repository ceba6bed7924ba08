#ifndef CHIRPER_CFLAC_H
#define CHIRPER_CFLAC_H
// libFLAC (BSD-3-Clause, libflac-dev): the decoder of FLAC recordings.
//
// libFLAC is not linked: it is loaded with dlopen by the first FLAC decoder made (CLazyLibrary.h), so a session
// that never plays a FLAC never loads it. The `FLAC__stream_decoder_*` functions declared by
// <FLAC/stream_decoder.h> that this program uses are defined by this target, each calling libFLAC's through a
// pointer looked up at load time. Without the library `FLAC__stream_decoder_new` returns NULL (which the
// decoder's owner reports, with `chirper_flac_load`'s reason).
#include <FLAC/stream_decoder.h>
#include <stddef.h>

/// Loads libFLAC.so.12 and looks up every `FLAC__stream_decoder_*` function this program uses (once; later
/// calls return the first call's result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_flac_load(char *error, size_t size);

#endif
