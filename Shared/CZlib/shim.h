#ifndef RENDEZVOUS_CZLIB_SHIM_H
#define RENDEZVOUS_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2/inflateInit2 are macros Swift cannot import.
static inline int czlib_deflate_init_gzip(z_streamp strm, int level) {
    return deflateInit2(strm, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int czlib_inflate_init_gzip(z_streamp strm) {
    return inflateInit2(strm, 15 + 16);
}
#endif
