/*
 * _stream.h: reading a stream libICTKitC wrote (an archive's value stream, a store's object stream) front to back,
 * every read checked against its length, numbers little-endian. One reader for _archive.c and _coredata.c.
 */
#ifndef ICTKIT_PY_STREAM_H
#define ICTKIT_PY_STREAM_H

#include <Python.h>
#include <stdint.h>

typedef struct {
    const uint8_t *bytes;
    size_t length, position;
} ictkit_py_stream;

/* The next `count` bytes, or -1 with SystemError when fewer are left. */
static inline int ictkit_py_take(ictkit_py_stream *stream, size_t count, const uint8_t **out) {
    if (count > stream->length - stream->position) {
        PyErr_SetString(PyExc_SystemError, "ictkit: a stream from the library ended early");
        return -1;
    }
    *out = stream->bytes + stream->position;
    stream->position += count;
    return 0;
}

static inline int ictkit_py_take_u32(ictkit_py_stream *stream, uint32_t *value) {
    const uint8_t *bytes;
    if (ictkit_py_take(stream, 4, &bytes) < 0) return -1;
    *value = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
    return 0;
}

static inline int ictkit_py_take_u64(ictkit_py_stream *stream, uint64_t *value) {
    const uint8_t *bytes;
    if (ictkit_py_take(stream, 8, &bytes) < 0) return -1;
    *value = 0;
    for (int index = 7; index >= 0; index--) *value = *value << 8 | bytes[index];
    return 0;
}

#endif
