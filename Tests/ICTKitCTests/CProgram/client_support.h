/*
 * What the C clients of ictkit.h (plist_client.c, archive_client.c) share: the failure count their exit status
 * comes from, CHECK, and reading a whole file.
 */
#ifndef ICTKIT_CLIENT_SUPPORT_H
#define ICTKIT_CLIENT_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

#define CHECK(condition)                                                                                     \
    do {                                                                                                     \
        if (!(condition)) {                                                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition);                    \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

/* The whole file at `path` (its length in *length), to be freed with free(); NULL when it cannot be opened. */
static inline unsigned char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    size_t capacity = 4096, count = 0;
    unsigned char *bytes = malloc(capacity);
    size_t got;
    while ((got = fread(bytes + count, 1, capacity - count, file)) > 0) {
        count += got;
        if (count == capacity) bytes = realloc(bytes, capacity *= 2);
    }
    fclose(file);
    *length = count;
    return bytes;
}

#endif
