// Loads libFLAC on demand (see include/CFLAC.h): the `FLAC__stream_decoder_*` functions the Swift code calls are
// this file's forwarders to libFLAC's own (CLazyLibrary.h). CHIRPER_LIBFLAC names another file to load (tests
// name a missing one).
#include "CFLAC.h"

#include <CLazyLibrary.h>

#define CHIRPER_FLAC_INIT_PARAMETERS \
    (FLAC__StreamDecoder * decoder, FLAC__StreamDecoderReadCallback read, FLAC__StreamDecoderSeekCallback seek, \
     FLAC__StreamDecoderTellCallback tell, FLAC__StreamDecoderLengthCallback length, \
     FLAC__StreamDecoderEofCallback eof, FLAC__StreamDecoderWriteCallback write, \
     FLAC__StreamDecoderMetadataCallback metadata, FLAC__StreamDecoderErrorCallback error, void *client)

// X(return type, name, parameters, arguments, value without the library), and V(…) for the void functions.
#define CHIRPER_FLAC_FUNCTIONS(X) \
    X(FLAC__StreamDecoder *, FLAC__stream_decoder_new, (void), (), NULL) \
    X(FLAC__StreamDecoderInitStatus, FLAC__stream_decoder_init_stream, CHIRPER_FLAC_INIT_PARAMETERS, \
      (decoder, read, seek, tell, length, eof, write, metadata, error, client), \
      FLAC__STREAM_DECODER_INIT_STATUS_MEMORY_ALLOCATION_ERROR) \
    X(FLAC__bool, FLAC__stream_decoder_finish, (FLAC__StreamDecoder * decoder), (decoder), 0) \
    X(FLAC__bool, FLAC__stream_decoder_process_single, (FLAC__StreamDecoder * decoder), (decoder), 0) \
    X(FLAC__bool, FLAC__stream_decoder_process_until_end_of_metadata, (FLAC__StreamDecoder * decoder), (decoder), 0) \
    X(FLAC__bool, FLAC__stream_decoder_seek_absolute, (FLAC__StreamDecoder * decoder, FLAC__uint64 sample), \
      (decoder, sample), 0) \
    X(FLAC__bool, FLAC__stream_decoder_flush, (FLAC__StreamDecoder * decoder), (decoder), 0) \
    X(FLAC__bool, FLAC__stream_decoder_get_decode_position, (const FLAC__StreamDecoder *decoder, FLAC__uint64 *position), \
      (decoder, position), 0) \
    X(uint32_t, FLAC__stream_decoder_get_blocksize, (const FLAC__StreamDecoder *decoder), (decoder), 0) \
    X(FLAC__StreamDecoderState, FLAC__stream_decoder_get_state, (const FLAC__StreamDecoder *decoder), (decoder), \
      FLAC__STREAM_DECODER_ABORTED) \
    X(const char *, FLAC__stream_decoder_get_resolved_state_string, (const FLAC__StreamDecoder *decoder), (decoder), \
      chirper_lazy_failure)

#define CHIRPER_FLAC_VOID_FUNCTIONS(V) V(FLAC__stream_decoder_delete, (FLAC__StreamDecoder * decoder), (decoder))

CHIRPER_LAZY_LIBRARY(flac, "libFLAC.so.12", "CHIRPER_LIBFLAC", CHIRPER_FLAC_FUNCTIONS, CHIRPER_FLAC_VOID_FUNCTIONS,
                     CHIRPER_LAZY_NONE)
