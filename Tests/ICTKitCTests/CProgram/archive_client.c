/*
 * A C client of ictkit.h's archive calls, run by ICTKitCTests (ArchiveExportsTests) under valgrind (every
 * allocation freed, no invalid access).
 *
 *   archive_client keyed|graph|typedstream|typedvalue|nib FILE...
 *       decodes each file (ictkit_keyed_archive_decode in ICTKIT_ARCHIVE_FOUNDATION or ICTKIT_ARCHIVE_GRAPH,
 *       ictkit_typedstream_decode in ICTKIT_TYPEDSTREAM_DOCUMENT or ICTKIT_TYPEDSTREAM_FOUNDATION,
 *       ictkit_nib_archive_decode), walks the value stream it returns to its end (every tag, length, count and
 *       shared-object slot checked against the bytes), and prints "FILE: N values, root TAG" (followed by
 *       ", S shared objects named again R times" when the stream shares objects) or
 *       "FILE: error CODE at byte B | line L column C | key path K: DESCRIPTION".
 * Exit status: 0 when every call behaved as the header says, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ictkit.h"

#include "client_support.h"

static uint32_t u32(const uint8_t *bytes) {
    return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}

/* Walks one value at *position; returns the number of values in it, or -1 when the stream is malformed. */
/* Shared objects defined so far ('D') and named again ('R') in the stream being walked. */
static uint32_t definitions, references;

static long walk(const uint8_t *bytes, size_t length, size_t *position) {
    if (*position >= length) return -1;
    uint8_t tag = bytes[(*position)++];
    switch (tag) {
    case 'D':
        definitions++;
        return walk(bytes, length, position);
    case 'R': {
        if (length - *position < 4) return -1;
        uint32_t slot = u32(bytes + *position);
        *position += 4;
        /* A slot is named again only once it is defined. */
        if (slot >= definitions) return -1;
        references++;
        return 1;
    }
    case 'n': case 't': case 'f': return 1;
    case 'i': case 'u': case 'r': case 'd': case 'U':
        if (length - *position < 8) return -1;
        *position += 8;
        return 1;
    case 's': case 'b': {
        if (length - *position < 4) return -1;
        uint32_t count = u32(bytes + *position);
        *position += 4;
        if (length - *position < count) return -1;
        *position += count;
        return 1;
    }
    case 'l': case 'm': {
        if (length - *position < 4) return -1;
        uint32_t count = u32(bytes + *position);
        *position += 4;
        long total = 1;
        for (uint64_t index = 0; index < (uint64_t)count * (tag == 'm' ? 2 : 1); index++) {
            long inner = walk(bytes, length, position);
            if (inner < 0) return -1;
            total += inner;
        }
        return total;
    }
    default: return -1;
    }
}

static void decode_one(const char *kind, const char *path) {
    size_t length = 0;
    unsigned char *bytes = read_file(path, &length);
    if (!bytes) {
        printf("%s: cannot be read\n", path);
        failures++;
        return;
    }
    ictkit_error *error = NULL;
    ictkit_values *values = NULL;
    if (strcmp(kind, "keyed") == 0) values = ictkit_keyed_archive_decode(bytes, length, ICTKIT_ARCHIVE_FOUNDATION, 0, &error);
    else if (strcmp(kind, "graph") == 0) values = ictkit_keyed_archive_decode(bytes, length, ICTKIT_ARCHIVE_GRAPH, 0, &error);
    else if (strcmp(kind, "typedstream") == 0) values = ictkit_typedstream_decode(bytes, length, ICTKIT_TYPEDSTREAM_DOCUMENT, &error);
    else if (strcmp(kind, "typedvalue") == 0) values = ictkit_typedstream_decode(bytes, length, ICTKIT_TYPEDSTREAM_FOUNDATION, &error);
    else values = ictkit_nib_archive_decode(bytes, length, 0, &error);
    free(bytes); /* no call keeps a pointer the caller passed in */
    if (!values) {
        CHECK(error != NULL);
        if (!error) return;
        printf("%s: error %s at ", path, ictkit_error_code(error));
        if (ictkit_error_byte_offset(error) >= 0) printf("byte %lld", (long long)ictkit_error_byte_offset(error));
        else if (ictkit_error_line(error) >= 0)
            printf("line %lld column %lld", (long long)ictkit_error_line(error), (long long)ictkit_error_column(error));
        else printf("key path %s", ictkit_error_key_path(error));
        printf(": %s\n", ictkit_error_description(error));
        ictkit_error_free(error);
        return;
    }
    CHECK(error == NULL);
    size_t stream_length = 0, position = 0;
    const uint8_t *stream = ictkit_values_bytes(values, &stream_length);
    definitions = references = 0;
    long count = walk(stream, stream_length, &position);
    CHECK(count > 0);
    CHECK(position == stream_length);
    printf("%s: %ld values, root %c", path, count, stream_length > 0 ? stream[0] : '?');
    if (definitions > 0) printf(", %u shared objects named again %u times", definitions, references);
    printf("\n");
    ictkit_values_free(values);
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "keyed") != 0 && strcmp(argv[1], "graph") != 0 &&
                     strcmp(argv[1], "typedstream") != 0 && strcmp(argv[1], "typedvalue") != 0 &&
                     strcmp(argv[1], "nib") != 0)) {
        fprintf(stderr, "usage: archive_client keyed|graph|typedstream|typedvalue|nib FILE...\n");
        return 2;
    }
    for (int index = 2; index < argc; index++) decode_one(argv[1], argv[index]);
    ictkit_values_free(NULL);
    return failures == 0 ? 0 : 1;
}
