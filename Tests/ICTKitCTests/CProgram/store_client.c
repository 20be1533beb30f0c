/*
 * A C client of ictkit.h's Core Data calls, run by ICTKitCTests (CoreDataExportsTests) under valgrind (every
 * allocation freed, no invalid access).
 *
 *   store_client BATCH STORE...
 *       opens each store (ictkit_store_open), checks its description is JSON text naming its storeIdentifier,
 *       frees the store while a cursor still holds it, reads every object in batches of BATCH
 *       (ictkit_store_cursor_next), walks each object stream to its end (every record, tag, length and entity
 *       index checked against the bytes), and prints "STORE: N objects, V values, R relationship targets" or,
 *       after the objects read before it, "STORE: error CODE at table T, row R, column C | byte B | key path K:
 *       DESCRIPTION".
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

/* The stream being walked, and what is known of the store's entities (how many values each object has). */
typedef struct {
    const uint8_t *bytes;
    size_t length, position;
    long *value_counts; /* per entity index; -1 before its 'e' record */
    size_t entities;
    long values, targets;
} walker;

static int skip(walker *w, size_t count) {
    if (w->length - w->position < count) return -1;
    w->position += count;
    return 0;
}

static int read_u32(walker *w, uint32_t *value) {
    if (w->length - w->position < 4) return -1;
    *value = u32(w->bytes + w->position);
    w->position += 4;
    return 0;
}

static int skip_text(walker *w) {
    uint32_t length;
    return read_u32(w, &length) < 0 ? -1 : skip(w, length);
}

static int object_id(walker *w) {
    if (w->position >= w->length) return -1;
    uint8_t tag = w->bytes[w->position++];
    uint32_t entity;
    w->targets++;
    if (tag == 'I') return read_u32(w, &entity) < 0 || entity >= w->entities ? -1 : skip(w, 8);
    if (tag == 'J') return skip_text(w) < 0 ? -1 : skip(w, 8);
    return -1;
}

static int value(walker *w) {
    if (w->position >= w->length) return -1;
    uint8_t tag = w->bytes[w->position++];
    w->values++;
    switch (tag) {
    case 'n': case 't': case 'f': return 0;
    case 'i': case 'r': case 'd': return skip(w, 8);
    case 's': case 'b': case 'D': case 'V': case 'X': return skip_text(w);
    case 'I': case 'J':
        w->position--;
        return object_id(w);
    case 'l': {
        uint32_t count;
        if (read_u32(w, &count) < 0) return -1;
        for (uint32_t index = 0; index < count; index++)
            if (object_id(w) < 0) return -1;
        return 0;
    }
    default: return -1;
    }
}

/* Walks one batch; returns its number of objects, or -1 when the stream is malformed. */
static long walk(walker *w) {
    long objects = 0;
    while (w->position < w->length) {
        uint8_t tag = w->bytes[w->position++];
        uint32_t entity, count;
        if (read_u32(w, &entity) < 0 || entity >= w->entities) return -1;
        if (tag == 'e') {
            if (read_u32(w, &count) < 0) return -1;
            for (uint32_t index = 0; index < count; index++)
                if (skip_text(w) < 0) return -1;
            w->value_counts[entity] = count;
        } else if (tag == 'o') {
            if (w->value_counts[entity] < 0 || skip(w, 8) < 0) return -1;
            for (long index = 0; index < w->value_counts[entity]; index++)
                if (value(w) < 0) return -1;
            objects++;
        } else {
            return -1;
        }
    }
    return objects;
}

/* How many entities the description lists: its "number" keys. */
static size_t entity_count(const char *description) {
    size_t count = 0;
    for (const char *found = description; (found = strstr(found, "\"superentityNumber\":")) != NULL; found++) count++;
    return count;
}

static void print_error(const char *path, ictkit_error *error) {
    printf("%s: error %s at ", path, ictkit_error_code(error));
    if (ictkit_error_table(error)[0])
        printf("table %s, row %lld, column %s", ictkit_error_table(error), (long long)ictkit_error_row(error),
               ictkit_error_table_column(error));
    else if (ictkit_error_byte_offset(error) >= 0)
        printf("byte %lld", (long long)ictkit_error_byte_offset(error));
    else
        printf("key path %s", ictkit_error_key_path(error));
    printf(": %s\n", ictkit_error_description(error));
}

static void read_store(size_t batch, const char *path) {
    ictkit_error *error = NULL;
    ictkit_store *store = ictkit_store_open(path, &error);
    if (!store) {
        CHECK(error != NULL);
        if (error) print_error(path, error);
        ictkit_error_free(error);
        return;
    }
    CHECK(error == NULL);
    size_t length = 0;
    const char *description = ictkit_store_description(store, &length);
    CHECK(description != NULL && strlen(description) == length && description[0] == '{');
    CHECK(strstr(description, "\"storeIdentifier\":\"") != NULL);
    walker w = {0};
    w.entities = entity_count(description);
    w.value_counts = malloc((w.entities + 1) * sizeof(long));
    for (size_t index = 0; index < w.entities; index++) w.value_counts[index] = -1;
    ictkit_store_cursor *cursor = ictkit_store_cursor_open(store);
    /* The header: the cursor keeps its store alive. */
    ictkit_store_free(store);
    long objects = 0;
    int64_t read;
    const uint8_t *bytes;
    while ((read = ictkit_store_cursor_next(cursor, batch, &bytes, &w.length, &error)) > 0) {
        CHECK((size_t)read <= batch);
        w.bytes = bytes;
        w.position = 0;
        long walked = walk(&w);
        CHECK(walked == read);
        objects += read;
    }
    if (read < 0) {
        CHECK(error != NULL);
        if (error) print_error(path, error);
        ictkit_error_free(error);
        /* After an error, the cursor is at its end. */
        error = NULL;
        CHECK(ictkit_store_cursor_next(cursor, batch, &bytes, &w.length, &error) == 0 && error == NULL);
    } else {
        CHECK(error == NULL);
        CHECK(ictkit_store_cursor_next(cursor, batch, &bytes, &w.length, &error) == 0);
        printf("%s: %ld objects, %ld values, %ld relationship targets\n", path, objects, w.values, w.targets);
    }
    ictkit_store_cursor_free(cursor);
    free(w.value_counts);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: store_client BATCH STORE...\n");
        return 2;
    }
    size_t batch = (size_t)strtoul(argv[1], NULL, 10);
    for (int index = 2; index < argc; index++) read_store(batch, argv[index]);
    ictkit_store_free(NULL);
    ictkit_store_cursor_free(NULL);
    return failures == 0 ? 0 : 1;
}
