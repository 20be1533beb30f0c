/*
 * A C client of ictkit.h, run by ICTKitCTests under valgrind (every allocation freed, no invalid access).
 *
 *   plist_client read FILE...      prints, per file, "FILE: format F, N nodes, root TYPE" or "FILE: error CODE at
 *                                  byte B | line L column C | key path K: DESCRIPTION"; each file read is also
 *                                  written back as binary and read again, and the node counts must agree.
 *                                  ictkit_plist_read_flat must read the same file to as many values (or refuse it
 *                                  with the same code), and its flat value written as binary must read back so.
 *   plist_client build OUT.plist   builds one dictionary of every kind with the ictkit_plist_add_ calls and
 *                                  writes it to OUT.plist as XML, then prints the values at three key paths.
 *   plist_client flat OUT.plist    writes a flat value made by hand to OUT.plist as binary, then prints
 *                                  ictkit_plist_write_flat's refusal of each malformed flat value, one a line.
 * Exit status: 0 when every call behaved as the header says, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ictkit.h"

#include "client_support.h"

/* Counts the nodes under `node`, touching every accessor of its kind. */
static size_t walk(const ictkit_plist *plist, ictkit_node node) {
    size_t length = 0, count = 1;
    switch (ictkit_node_type(plist, node)) {
    case ICTKIT_TYPE_STRING: {
        const char *text = ictkit_node_string(plist, node, &length);
        CHECK(text != NULL && text[length] == '\0');
        break;
    }
    case ICTKIT_TYPE_DATA:
        (void)ictkit_node_data(plist, node, &length);
        break;
    case ICTKIT_TYPE_INTEGER:
        (void)ictkit_node_int64(plist, node);
        break;
    case ICTKIT_TYPE_ARRAY:
        for (size_t index = 0; index < ictkit_node_count(plist, node); index++)
            count += walk(plist, ictkit_node_item(plist, node, index));
        CHECK(ictkit_node_item(plist, node, ictkit_node_count(plist, node)) == ICTKIT_NO_NODE);
        break;
    case ICTKIT_TYPE_DICT:
        for (size_t index = 0; index < ictkit_node_count(plist, node); index++) {
            CHECK(ictkit_node_type(plist, ictkit_node_key(plist, node, index)) == ICTKIT_TYPE_STRING);
            count += 1 + walk(plist, ictkit_node_value(plist, node, index));
        }
        break;
    default:
        break;
    }
    return count;
}

/* Counts the values of the flat value at *cursor (each dictionary key one), moving past it; 0 when it is
 * malformed (ictkit.h: the flat form). */
static size_t flat_walk(const uint8_t **cursor, const uint8_t *end) {
    if (*cursor >= end) return 0;
    uint8_t tag = *(*cursor)++;
    uint32_t count;
    switch (tag) {
    case ICTKIT_FLAT_FALSE:
    case ICTKIT_FLAT_TRUE:
        return 1;
    case ICTKIT_FLAT_INT64:
    case ICTKIT_FLAT_UINT64:
    case ICTKIT_FLAT_REAL:
    case ICTKIT_FLAT_REAL32:
    case ICTKIT_FLAT_DATE:
    case ICTKIT_FLAT_UID:
        if (end - *cursor < 8) return 0;
        *cursor += 8;
        return 1;
    case ICTKIT_FLAT_STRING:
    case ICTKIT_FLAT_DATA:
    case ICTKIT_FLAT_ARRAY:
    case ICTKIT_FLAT_DICT:
        if (end - *cursor < 4) return 0;
        memcpy(&count, *cursor, 4);
        *cursor += 4;
        break;
    default:
        return 0;
    }
    if (tag == ICTKIT_FLAT_STRING || tag == ICTKIT_FLAT_DATA) {
        if ((size_t)(end - *cursor) < count) return 0;
        *cursor += count;
        return 1;
    }
    size_t values = 1;
    for (uint32_t index = 0; index < count; index++) {
        if (tag == ICTKIT_FLAT_DICT) {
            if (*cursor >= end || **cursor != ICTKIT_FLAT_STRING) return 0;
            values += flat_walk(cursor, end);
        }
        size_t member = flat_walk(cursor, end);
        if (member == 0) return 0;
        values += member;
    }
    return values;
}

static void print_error(const char *path, const ictkit_error *error) {
    printf("%s: error %s at", path, ictkit_error_code(error));
    if (ictkit_error_byte_offset(error) >= 0) printf(" byte %lld", (long long)ictkit_error_byte_offset(error));
    if (ictkit_error_line(error) >= 0)
        printf(" line %lld column %lld", (long long)ictkit_error_line(error), (long long)ictkit_error_column(error));
    if (ictkit_error_key_path(error)[0]) printf(" key path %s", ictkit_error_key_path(error));
    printf(": %s\n", ictkit_error_description(error));
}

/* The chunks ictkit_plist_read_flat_chunks hands over, put end to end (each freed as it comes). */
typedef struct {
    uint8_t *bytes;
    size_t length;
    size_t chunks;
} joined_chunks;

static int join_chunk(void *context, uint8_t *chunk, size_t length) {
    joined_chunks *joined = context;
    uint8_t *grown = realloc(joined->bytes, joined->length + length + 1);
    if (grown) {
        memcpy(grown + joined->length, chunk, length);
        joined->bytes = grown;
        joined->length += length;
        joined->chunks++;
    }
    ictkit_bytes_free(chunk);
    return grown ? 0 : 1;
}

/* Files read as binary, and files ictkit_plist_read_flat_chunks handed over whole in more than one chunk. */
static size_t binary_files, files_in_chunks;

static void read_one(const char *path) {
    size_t length = 0;
    unsigned char *bytes = read_file(path, &length);
    if (!bytes) {
        fprintf(stderr, "%s: cannot open\n", path);
        failures++;
        return;
    }
    ictkit_error *error = NULL;
    int format = 0;
    ictkit_plist *plist = ictkit_plist_read(bytes, length, ICTKIT_FORMAT_AUTO, &format, &error);
    uint8_t *flat = NULL;
    size_t flat_length = 0;
    int flat_format = 0;
    ictkit_error *flat_error = NULL;
    int flat_status = ictkit_plist_read_flat(bytes, length, ICTKIT_FORMAT_AUTO, &flat_format, &flat, &flat_length, &flat_error);
    /* In chunks (a container of three members or more in three): when the whole value is handed over, the
     * chunks end to end are the flat bytes; it is, for every binary file the quick read takes. */
    joined_chunks joined = {NULL, 0, 0};
    int chunks_status = ictkit_plist_read_flat_chunks(bytes, length, ICTKIT_FORMAT_AUTO, 3, join_chunk, &joined);
    CHECK(chunks_status == 0 || chunks_status == 1);
    if (flat_status == 0 && flat_format == ICTKIT_FORMAT_BINARY) binary_files++;
    if (chunks_status == 0 && joined.chunks > 1) files_in_chunks++;
    if (chunks_status == 0)
        CHECK(flat_status == 0 && flat_format == ICTKIT_FORMAT_BINARY && joined.length == flat_length &&
              memcmp(joined.bytes, flat, flat_length) == 0 && joined.chunks >= 1 && joined.chunks <= 4);
    if (flat_status == 0 && flat_format != ICTKIT_FORMAT_BINARY) CHECK(chunks_status == 1 && joined.chunks == 0);
    free(joined.bytes);
    free(bytes);
    if (!plist) {
        CHECK(error != NULL);
        if (error) print_error(path, error);
        CHECK(flat_status == -1 && flat_error != NULL && flat == NULL);
        if (error && flat_error) CHECK(strcmp(ictkit_error_code(error), ictkit_error_code(flat_error)) == 0);
        ictkit_error_free(error);
        ictkit_error_free(flat_error);
        return;
    }
    CHECK(error == NULL);
    ictkit_node root = ictkit_plist_root(plist);
    size_t nodes = walk(plist, root);
    printf("%s: format %d, %zu nodes, root %d\n", path, format, nodes, ictkit_node_type(plist, root));

    CHECK(flat_status == 0 && flat_error == NULL && flat_format == format);
    if (flat_status == 0) {
        const uint8_t *cursor = flat;
        CHECK(flat_walk(&cursor, flat + flat_length) == nodes && cursor == flat + flat_length);
        uint8_t *binary = NULL;
        size_t binary_length = 0;
        CHECK(ictkit_plist_write_flat(flat, flat_length, ICTKIT_FORMAT_BINARY, &binary, &binary_length, NULL) == 0);
        ictkit_plist *again = ictkit_plist_read(binary, binary_length, ICTKIT_FORMAT_BINARY, NULL, NULL);
        CHECK(again != NULL);
        if (again) CHECK(walk(again, ictkit_plist_root(again)) == nodes);
        ictkit_plist_free(again);
        ictkit_bytes_free(binary);
    }
    ictkit_bytes_free(flat);

    uint8_t *written = NULL;
    size_t written_length = 0;
    if (ictkit_plist_write(plist, root, ICTKIT_FORMAT_BINARY, &written, &written_length, &error) != 0) {
        print_error(path, error);
        ictkit_error_free(error);
        failures++;
    } else {
        ictkit_plist *again = ictkit_plist_read(written, written_length, ICTKIT_FORMAT_BINARY, NULL, NULL);
        CHECK(again != NULL);
        if (again) CHECK(walk(again, ictkit_plist_root(again)) == nodes);
        ictkit_plist_free(again);
        ictkit_bytes_free(written);
    }
    ictkit_plist_free(plist);
}

static int build(const char *out_path) {
    ictkit_plist *plist = ictkit_plist_create();
    CHECK(ictkit_plist_root(plist) == ICTKIT_NO_NODE);
    ictkit_node keys[9], values[9];
    const char *names[] = {"name", "count", "big", "ratio", "done", "when", "bytes", "ref", "list"};
    for (int index = 0; index < 9; index++) keys[index] = ictkit_plist_add_string(plist, names[index], strlen(names[index]));
    values[0] = ictkit_plist_add_string(plist, "caf\xc3\xa9", 5);
    values[1] = ictkit_plist_add_int64(plist, -42);
    values[2] = ictkit_plist_add_uint64(plist, UINT64_MAX);
    values[3] = ictkit_plist_add_real(plist, 0.5);
    values[4] = ictkit_plist_add_bool(plist, 1);
    values[5] = ictkit_plist_add_date(plist, 86400.0); /* 2001-01-02T00:00:00Z */
    values[6] = ictkit_plist_add_data(plist, "\x00\x01\x02", 3);
    values[7] = ictkit_plist_add_uid(plist, 7);
    ictkit_node items[2] = {ictkit_plist_add_int64(plist, 1), ictkit_plist_add_string(plist, "two", 3)};
    values[8] = ictkit_plist_add_array(plist, items, 2);
    ictkit_node root = ictkit_plist_add_dict(plist, keys, values, 9);
    CHECK(root != ICTKIT_NO_NODE);

    /* Refusals: invalid UTF-8, a key that is no string, an unknown node. */
    CHECK(ictkit_plist_add_string(plist, "\xff", 1) == ICTKIT_NO_NODE);
    CHECK(ictkit_plist_add_dict(plist, &values[1], &values[0], 1) == ICTKIT_NO_NODE);
    ictkit_node unknown = 1000000;
    CHECK(ictkit_plist_add_array(plist, &unknown, 1) == ICTKIT_NO_NODE);

    /* The OpenStep form is read only: the writer refuses it, saying so. */
    ictkit_error *error = NULL;
    uint8_t *bytes = NULL;
    size_t length = 0;
    CHECK(ictkit_plist_write(plist, root, ICTKIT_FORMAT_OPENSTEP, &bytes, &length, &error) == -1);
    CHECK(error != NULL && bytes == NULL);
    if (error) printf("openstep: error %s: %s\n", ictkit_error_code(error), ictkit_error_description(error));
    ictkit_error_free(error);
    error = NULL;

    /* Binary keeps the UID: read back, it is a UID again. */
    CHECK(ictkit_plist_write(plist, root, ICTKIT_FORMAT_BINARY, &bytes, &length, &error) == 0);
    ictkit_plist *again = ictkit_plist_read(bytes, length, ICTKIT_FORMAT_AUTO, NULL, NULL);
    ictkit_bytes_free(bytes);
    CHECK(again != NULL);
    if (again) {
        ictkit_node ref = ictkit_plist_get(again, ictkit_plist_root(again), "ref");
        CHECK(ictkit_node_type(again, ref) == ICTKIT_TYPE_UID && ictkit_node_uid(again, ref) == 7);
        ictkit_plist_free(again);
    }

    /* Inside an outer dictionary, as XML (where CoreFoundation writes a UID as {CF$UID = 7}). */
    ictkit_node outer_keys[2] = {ictkit_plist_add_string(plist, "inner", 5), keys[8]};
    ictkit_node outer_values[2] = {root, values[8]};
    ictkit_node outer = ictkit_plist_add_dict(plist, outer_keys, outer_values, 2);
    if (ictkit_plist_write(plist, outer, ICTKIT_FORMAT_XML, &bytes, &length, &error) != 0) {
        print_error(out_path, error);
        ictkit_error_free(error);
        ictkit_plist_free(plist);
        return 1;
    }
    FILE *file = fopen(out_path, "wb");
    CHECK(file != NULL);
    if (file) {
        CHECK(fwrite(bytes, 1, length, file) == length);
        fclose(file);
    }
    ictkit_bytes_free(bytes);

    ictkit_node found = ictkit_plist_get(plist, outer, "inner.name");
    size_t text_length = 0;
    printf("inner.name = %s\n", found == ICTKIT_NO_NODE ? "(none)" : ictkit_node_string(plist, found, &text_length));
    found = ictkit_plist_get(plist, outer, "list[1]");
    printf("list[1] = %s\n", found == ICTKIT_NO_NODE ? "(none)" : ictkit_node_string(plist, found, &text_length));
    found = ictkit_plist_get(plist, outer, "inner.big");
    printf("inner.big = %llu unsigned %d\n", (unsigned long long)ictkit_node_uint64(plist, found),
           ictkit_node_integer_is_unsigned(plist, found));
    CHECK(ictkit_plist_get(plist, outer, "list[2]") == ICTKIT_NO_NODE);
    CHECK(ictkit_plist_get(plist, outer, "inner.name.deeper") == ICTKIT_NO_NODE);
    ictkit_plist_free(plist);
    return 0;
}

/* Writes `length` flat bytes as binary: 0 when written (the bytes freed), else prints the refusal. */
static void write_flat(const char *name, const void *flat, size_t length) {
    uint8_t *bytes = NULL;
    size_t written = 0;
    ictkit_error *error = NULL;
    if (ictkit_plist_write_flat(flat, length, ICTKIT_FORMAT_BINARY, &bytes, &written, &error) == 0) {
        printf("%s: written, %zu bytes\n", name, written);
        ictkit_bytes_free(bytes);
        return;
    }
    CHECK(error != NULL && bytes == NULL);
    if (error) printf("%s: error %s at byte %lld\n", name, ictkit_error_code(error), (long long)ictkit_error_byte_offset(error));
    ictkit_error_free(error);
}

static int flat(const char *out_path) {
    /* {"a": [-1, "é"]}: DICT 1, STRING 1 "a", ARRAY 2, INT64 -1, STRING 2 "\xc3\xa9" (native byte order). */
    uint8_t value[64];
    size_t length = 0;
    uint32_t one = 1, two = 2;
    int64_t minus_one = -1;
    value[length++] = ICTKIT_FLAT_DICT;
    memcpy(value + length, &one, 4), length += 4;
    value[length++] = ICTKIT_FLAT_STRING;
    memcpy(value + length, &one, 4), length += 4;
    value[length++] = 'a';
    value[length++] = ICTKIT_FLAT_ARRAY;
    memcpy(value + length, &two, 4), length += 4;
    value[length++] = ICTKIT_FLAT_INT64;
    memcpy(value + length, &minus_one, 8), length += 8;
    value[length++] = ICTKIT_FLAT_STRING;
    memcpy(value + length, &two, 4), length += 4;
    value[length++] = 0xc3;
    value[length++] = 0xa9;
    uint8_t *bytes = NULL;
    size_t written = 0;
    CHECK(ictkit_plist_write_flat(value, length, ICTKIT_FORMAT_BINARY, &bytes, &written, NULL) == 0);
    FILE *file = fopen(out_path, "wb");
    CHECK(file != NULL);
    if (file) {
        CHECK(fwrite(bytes, 1, written, file) == written);
        fclose(file);
    }
    ictkit_bytes_free(bytes);

    /* Refusals, each with the byte where the flat value goes wrong. */
    write_flat("empty", "", 0);
    write_flat("unknown tag", "\x0d", 1);
    uint8_t short_string[7] = {ICTKIT_FLAT_STRING, 0, 0, 0, 0, 'a', 'b'};
    uint32_t five = 5;
    memcpy(short_string + 1, &five, 4);
    write_flat("short string", short_string, sizeof short_string);
    uint8_t number_key[14] = {ICTKIT_FLAT_DICT, 0, 0, 0, 0, ICTKIT_FLAT_INT64};
    memcpy(number_key + 1, &one, 4);
    write_flat("number key", number_key, sizeof number_key);
    uint8_t not_utf8[6] = {ICTKIT_FLAT_STRING, 0, 0, 0, 0, 0xff};
    memcpy(not_utf8 + 1, &one, 4);
    write_flat("not UTF-8", not_utf8, sizeof not_utf8);
    uint8_t two_values[2] = {ICTKIT_FLAT_TRUE, ICTKIT_FLAT_TRUE};
    write_flat("two values", two_values, sizeof two_values);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "read") == 0) {
        for (int index = 2; index < argc; index++) read_one(argv[index]);
        /* A binary file of a container of three members or more, read quickly, was handed over in chunks. */
        CHECK(binary_files == 0 || files_in_chunks > 0);
    } else if (argc == 3 && strcmp(argv[1], "build") == 0) {
        failures += build(argv[2]);
    } else if (argc == 3 && strcmp(argv[1], "flat") == 0) {
        failures += flat(argv[2]);
    } else {
        fprintf(stderr, "usage: plist_client read FILE... | plist_client build OUT.plist | plist_client flat OUT.plist\n");
        return 2;
    }
    return failures == 0 ? 0 : 1;
}
