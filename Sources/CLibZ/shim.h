#ifndef ICTKIT_CLIBZ_SHIM_H
#define ICTKIT_CLIBZ_SHIM_H

// zlib: raw deflate and inflate (the streams inside a zip) and CRC-32.
#include <zlib.h>

// The function-like macros Swift cannot import, as functions.
static inline int ictkit_deflate_init_raw(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}

static inline int ictkit_inflate_init_raw(z_streamp stream) {
    return inflateInit2(stream, -MAX_WBITS);
}

// window_bits as inflateInit2 takes them: -15 raw, 15 zlib, 31 gzip.
static inline int ictkit_inflate_init_window(z_streamp stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
