// zlib for Swift: raw DEFLATE (RFC 1951) inflation with a hard limit on the output, for SAML's
// HTTP-Redirect binding (a DEFLATE-compressed message in the query).
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <stddef.h>
#include <string.h>
#include <zlib.h>

/// Inflates the raw DEFLATE stream `input` into `output` (capacity `capacity`). Returns the
/// number of bytes written, -1 when the stream is not valid raw DEFLATE or is truncated, and -2
/// when it would inflate to more than `capacity` bytes (a compression bomb is cut off there).
static inline long czlib_inflate_raw(const unsigned char *input, size_t length, unsigned char *output, size_t capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof(stream));
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return -1;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = inflate(&stream, Z_FINISH);
    long written = (long)stream.total_out;
    inflateEnd(&stream);
    if (status == Z_STREAM_END) return written;
    if (status == Z_BUF_ERROR && stream.avail_out == 0) return -2;
    return -1;
}

#endif
