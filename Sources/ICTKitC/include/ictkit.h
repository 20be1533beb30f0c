/*
 * ictkit.h: ICTKit's C interface (property lists), implemented in Swift
 * (Sources/ICTKitC) and shipped as the shared library libICTKitC.so.
 *
 * Ownership, in one place:
 *   - ictkit_plist *   made by ictkit_plist_read or ictkit_plist_create; the caller owns it and frees it
 *                      with ictkit_plist_free (NULL is allowed). Every node, string and data pointer taken
 *                      from it belongs to it: valid until it is freed or a node is added to it.
 *   - ictkit_error *   set through an `ictkit_error **error` argument when a call fails (left untouched on
 *                      success); the caller owns it and frees it with ictkit_error_free. Its strings belong to
 *                      it. Passing NULL for `error` drops the error.
 *   - uint8_t *        the bytes ictkit_plist_write, ictkit_plist_read_flat and ictkit_plist_write_flat return,
 *                      and the chunks ictkit_plist_read_flat_chunks hands to its handler;
 *                      the caller frees them with ictkit_bytes_free.
 * No call keeps a pointer the caller passed in. A plist is not locked: use one plist from one thread at a
 * time (distinct plists on distinct threads at once are fine; reading is reentrant).
 */
#ifndef ICTKIT_H
#define ICTKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A property list: a tree of nodes, read from bytes or built with the ictkit_plist_add_ calls. */
typedef struct ictkit_plist ictkit_plist;
/* What went wrong and where (byte offset, line and column, key path). */
typedef struct ictkit_error ictkit_error;
/* One value of a plist, numbered inside it. */
typedef uint32_t ictkit_node;

/* No node: what lookups return when there is nothing there, and add calls when the input is invalid. */
#define ICTKIT_NO_NODE ((ictkit_node)0xFFFFFFFFu)

/* The serialised forms. AUTO (reading only) detects the form from the bytes. OPENSTEP is read only. */
enum {
    ICTKIT_FORMAT_AUTO = 0,
    ICTKIT_FORMAT_BINARY = 1,
    ICTKIT_FORMAT_XML = 2,
    ICTKIT_FORMAT_OPENSTEP = 3,
    ICTKIT_FORMAT_JSON = 4
};

/* The kinds of node. */
enum {
    ICTKIT_TYPE_STRING = 1,
    ICTKIT_TYPE_INTEGER = 2,
    ICTKIT_TYPE_REAL = 3,
    ICTKIT_TYPE_BOOL = 4,
    ICTKIT_TYPE_DATE = 5,
    ICTKIT_TYPE_DATA = 6,
    ICTKIT_TYPE_ARRAY = 7,
    ICTKIT_TYPE_DICT = 8,
    ICTKIT_TYPE_UID = 9
};

/* ---- Reading ---------------------------------------------------------------------------------------- */

/* Reads `length` bytes in `format` (or the detected one, for ICTKIT_FORMAT_AUTO). On success returns a new
 * plist (free with ictkit_plist_free) and, when `read_format` is not NULL, stores the form it was read in.
 * On failure returns NULL and sets *error. Cost: the whole input is decoded and copied into the plist
 * (strings as NUL-terminated UTF-8, data as bytes); the default limits of depth, object count and size apply. */
ictkit_plist *ictkit_plist_read(const void *bytes, size_t length, int format, int *read_format, ictkit_error **error);

/* Frees a plist and everything taken from it. NULL is allowed. */
void ictkit_plist_free(ictkit_plist *plist);

/* The root node of a read plist; ICTKIT_NO_NODE for a plist made by ictkit_plist_create. */
ictkit_node ictkit_plist_root(const ictkit_plist *plist);

/* ---- Nodes (every call takes a node of `plist`; another number is a programming error and stops) ------ */

/* The node's ICTKIT_TYPE_. */
int ictkit_node_type(const ictkit_plist *plist, ictkit_node node);
/* A string's UTF-8 bytes, NUL-terminated (the string may hold NUL itself: use *length). NULL for other kinds. */
const char *ictkit_node_string(const ictkit_plist *plist, ictkit_node node, size_t *length);
/* A data node's bytes (not NUL-terminated; may be NULL when *length is 0). NULL for other kinds. */
const uint8_t *ictkit_node_data(const ictkit_plist *plist, ictkit_node node, size_t *length);
/* An integer as int64_t; the bit pattern when ictkit_node_integer_is_unsigned says it is above INT64_MAX. */
int64_t ictkit_node_int64(const ictkit_plist *plist, ictkit_node node);
/* An integer as uint64_t (the bit pattern of a negative one). */
uint64_t ictkit_node_uint64(const ictkit_plist *plist, ictkit_node node);
/* 1 when the integer lies above INT64_MAX (read it with ictkit_node_uint64), else 0. */
int ictkit_node_integer_is_unsigned(const ictkit_plist *plist, ictkit_node node);
/* A real as double. */
double ictkit_node_real(const ictkit_plist *plist, ictkit_node node);
/* 1 when the real was stored as a 32-bit float, else 0. */
int ictkit_node_real_is_float32(const ictkit_plist *plist, ictkit_node node);
/* A boolean: 1 or 0. */
int ictkit_node_bool(const ictkit_plist *plist, ictkit_node node);
/* A date, in seconds since 2001-01-01 00:00:00 UTC (Apple's reference date). */
double ictkit_node_date(const ictkit_plist *plist, ictkit_node node);
/* A UID (keyed-archive object reference). */
uint64_t ictkit_node_uid(const ictkit_plist *plist, ictkit_node node);
/* The number of items of an array or entries of a dictionary; 0 for other kinds. */
size_t ictkit_node_count(const ictkit_plist *plist, ictkit_node node);
/* An array's item `index` (< count). ICTKIT_NO_NODE when out of range or not an array. */
ictkit_node ictkit_node_item(const ictkit_plist *plist, ictkit_node node, size_t index);
/* A dictionary's key `index` (a string node), in the order read. ICTKIT_NO_NODE when out of range. */
ictkit_node ictkit_node_key(const ictkit_plist *plist, ictkit_node node, size_t index);
/* A dictionary's value `index`. ICTKIT_NO_NODE when out of range. */
ictkit_node ictkit_node_value(const ictkit_plist *plist, ictkit_node node, size_t index);
/* The node at `key_path` below `node` (`a.b[2].c`, as `ict get` takes it; a key holding `.` cannot be named
 * this way), or ICTKIT_NO_NODE when something on the way is absent. Cost: one step per component; a
 * dictionary step compares keys one by one. */
ictkit_node ictkit_plist_get(const ictkit_plist *plist, ictkit_node node, const char *key_path);

/* ---- Building (nodes are added bottom up: a container takes nodes made before it) ------------------- */

/* A new, empty plist to build (free with ictkit_plist_free). */
ictkit_plist *ictkit_plist_create(void);
/* Adds a string of `length` UTF-8 bytes; ICTKIT_NO_NODE when they are not valid UTF-8. */
ictkit_node ictkit_plist_add_string(ictkit_plist *plist, const char *utf8, size_t length);
ictkit_node ictkit_plist_add_int64(ictkit_plist *plist, int64_t value);
ictkit_node ictkit_plist_add_uint64(ictkit_plist *plist, uint64_t value);
ictkit_node ictkit_plist_add_real(ictkit_plist *plist, double value);
ictkit_node ictkit_plist_add_bool(ictkit_plist *plist, int value);
/* Adds a date, in seconds since 2001-01-01 00:00:00 UTC. */
ictkit_node ictkit_plist_add_date(ictkit_plist *plist, double seconds_since_2001);
ictkit_node ictkit_plist_add_data(ictkit_plist *plist, const void *bytes, size_t length);
ictkit_node ictkit_plist_add_uid(ictkit_plist *plist, uint64_t value);
/* Adds an array of `count` existing nodes (copied). ICTKIT_NO_NODE when one is not a node of `plist`. */
ictkit_node ictkit_plist_add_array(ictkit_plist *plist, const ictkit_node *items, size_t count);
/* Adds a dictionary of `count` entries; every key must be a string node. A key given twice keeps its
 * first place and its last value. ICTKIT_NO_NODE when a key is not a string node or a node is unknown. */
ictkit_node ictkit_plist_add_dict(ictkit_plist *plist, const ictkit_node *keys, const ictkit_node *values, size_t count);

/* ---- Writing ---------------------------------------------------------------------------------------- */

/* Writes the tree under `root` in `format` (BINARY, XML or JSON). On success returns 0 and stores new bytes in
 * *bytes (free with ictkit_bytes_free) and their count in *length; on failure returns -1 and sets *error
 * (OPENSTEP and AUTO cannot be written; a tree deeper than 512 levels is refused). */
int ictkit_plist_write(const ictkit_plist *plist, ictkit_node root, int format, uint8_t **bytes, size_t *length,
                       ictkit_error **error);
/* Frees bytes from ictkit_plist_write, ictkit_plist_read_flat, ictkit_plist_write_flat or a chunk of
 * ictkit_plist_read_flat_chunks. NULL is allowed. */
void ictkit_bytes_free(uint8_t *bytes);

/* ---- The flat form: a whole property list in one buffer, for callers that build their own objects ------ */

/* Every value in depth-first order: a tag byte, then its payload, numbers in native byte order and unaligned
 * (read them with memcpy); a count or length is a uint32_t.
 *   STRING   uint32 length, then that many bytes of UTF-8 (no NUL)
 *   INT64    int64        UINT64  uint64 (an integer above INT64_MAX)
 *   REAL     double       REAL32  double (the value of a 32-bit float)
 *   FALSE, TRUE  no payload
 *   DATE     double, seconds since 2001-01-01 00:00:00 UTC
 *   DATA     uint32 length, then the bytes
 *   UID      uint64
 *   ARRAY    uint32 count, then the items
 *   DICT     uint32 count, then key, value, key, value, ... (every key a STRING) */
enum {
    ICTKIT_FLAT_STRING = 1,
    ICTKIT_FLAT_INT64 = 2,
    ICTKIT_FLAT_UINT64 = 3,
    ICTKIT_FLAT_REAL = 4,
    ICTKIT_FLAT_REAL32 = 5,
    ICTKIT_FLAT_FALSE = 6,
    ICTKIT_FLAT_TRUE = 7,
    ICTKIT_FLAT_DATE = 8,
    ICTKIT_FLAT_DATA = 9,
    ICTKIT_FLAT_UID = 10,
    ICTKIT_FLAT_ARRAY = 11,
    ICTKIT_FLAT_DICT = 12
};

/* Reads `length` bytes as ictkit_plist_read does and gives the value in the flat form: on success returns 0,
 * stores new bytes in *flat (free with ictkit_bytes_free) and their count in *flat_length, and the form read
 * in *read_format when that is not NULL; on failure returns -1 and sets *error. Cost: the input is decoded
 * and then written out once; nothing of the decoded value is kept but the flat bytes. */
int ictkit_plist_read_flat(const void *bytes, size_t length, int format, int *read_format, uint8_t **flat,
                           size_t *flat_length, ictkit_error **error);
/* Called by ictkit_plist_read_flat_chunks with each chunk of the flat form, on the calling thread: the chunk's
 * `length` bytes are the handler's, to free with ictkit_bytes_free (even when it returns non-zero). Returns 0 to
 * go on, anything else to stop the read. */
typedef int (*ictkit_flat_chunk_handler)(void *context, uint8_t *chunk, size_t length);
/* Reads a binary property list (`format` AUTO or BINARY) into the flat form, as ictkit_plist_read_flat does,
 * handing it to `handler` in chunks as they are written, so a caller on another thread can build its objects
 * from one chunk while the next is read: a top-level array or dictionary of `chunk_count` members or more comes
 * as its tag and count, then its members in up to `chunk_count` chunks, each ending between two members; any
 * other value comes whole, in one chunk. The chunks put end to end are ictkit_plist_read_flat's bytes.
 * Returns 0 when the whole value was handed over. Returns 1, perhaps after handing over chunks, for any input
 * the quick path does not take (not binary, malformed, a container referenced twice, over a limit) or when
 * the handler stopped it: the caller drops what it made of the chunks and calls ictkit_plist_read_flat, which
 * reads every input and says where a problem is. Costs one pass; nothing is kept after it returns. */
int ictkit_plist_read_flat_chunks(const void *bytes, size_t length, int format, size_t chunk_count,
                                  ictkit_flat_chunk_handler handler, void *context);
/* Writes the value that `flat_length` bytes of the flat form describe in `format` (BINARY, XML or JSON), as
 * ictkit_plist_write does: on success returns 0 and stores new bytes in *bytes (free with ictkit_bytes_free)
 * and their count in *length; on failure returns -1 and sets *error (the flat bytes are checked: an unknown
 * tag, a length past the end, a string that is not UTF-8 or a non-string key is refused with its offset). */
int ictkit_plist_write_flat(const void *flat, size_t flat_length, int format, uint8_t **bytes, size_t *length,
                            ictkit_error **error);

/* ---- Errors ----------------------------------------------------------------------------------------- */

/* The code's stable name: "truncated", "invalidObject", "malformedXML", "limitExceeded(depth)", ... */
const char *ictkit_error_code(const ictkit_error *error);
/* The whole sentence with its place: "byte 42: ... (at a.b[2])" or "3:7: ...". */
const char *ictkit_error_description(const ictkit_error *error);
/* The sentence alone, without the place. */
const char *ictkit_error_message(const ictkit_error *error);
/* The byte offset of a binary input's problem, or -1. */
int64_t ictkit_error_byte_offset(const ictkit_error *error);
/* The 1-based line of a text input's problem, or -1. */
int64_t ictkit_error_line(const ictkit_error *error);
/* The 1-based column of a text input's problem, or -1. */
int64_t ictkit_error_column(const ictkit_error *error);
/* The key path to the value concerned ("a.b[2]"), or "" when none is known. */
const char *ictkit_error_key_path(const ictkit_error *error);
/* Frees an error. NULL is allowed. */
void ictkit_error_free(ictkit_error *error);

/* ---- Archives: keyed archives, typed streams, NIB archives (issue 42) ------------------------------------
 *
 * Each decode reads the whole input in one call and returns its values as one value stream, which the caller
 * walks once (no call per value). Ownership:
 *   - ictkit_values *  made by a decode call; the caller owns it and frees it with ictkit_values_free (NULL is
 *                      allowed). The bytes ictkit_values_bytes returns belong to it, valid until it is freed.
 *   - ictkit_error *   as above: set on failure, owned and freed by the caller.
 * Decoding is reentrant: distinct calls may run on distinct threads at once.
 *
 * The value stream: one value is a tag byte, then (numbers little-endian; lengths and counts uint32):
 *   'n' none | 't' true | 'f' false | 'i' int64 | 'u' uint64 (above INT64_MAX) | 'r' double (IEEE bits) |
 *   'd' date: double, seconds since 2001-01-01 00:00:00 UTC | 'U' uid: uint64 (a reference into $objects) |
 *   's' string: length, UTF-8 bytes | 'b' bytes: length, bytes |
 *   'l' list: count, then count values | 'm' mapping: count, then count pairs of key value, value value |
 *   'D' a shared object's first naming: its value follows, and it takes the next slot (0, 1, 2, ...) |
 *   'R' a shared object named again: slot (uint32), always of an object whose value has been given in full.
 * A mapping's key is a string but for ICTKIT_ARCHIVE_FOUNDATION's NSDictionary keys, which may be any value.
 * Only ICTKIT_TYPEDSTREAM_FOUNDATION shares objects ('D', 'R'): a reader makes each shared object once and gives
 * the same one for each 'R' (as pytypedstream does), so a nib whose views name each other stays its own size.
 */
typedef struct ictkit_values ictkit_values;

/* The forms of a keyed archive's decode. */
enum {
    /* Foundation's classes converted by name as nska-deserialize 1.5.1 converts them: a mapping of every $top key
     * to its object; NSDictionary -> mapping, NSArray/NSSet -> list, NSString -> string, NSDate -> date, NSUUID ->
     * upper-case string, $null -> "" ; any other object -> a mapping of its fields ($class left out). An object
     * met again inside itself (a cycle) is left out of its container. */
    ICTKIT_ARCHIVE_FOUNDATION = 0,
    /* The raw object graph: {"$top": {key: uid}, "$objects": [...]}, each instance's "$class" replaced by its
     * class name (a string), every other reference a uid. */
    ICTKIT_ARCHIVE_GRAPH = 1
};

/* Decodes the keyed archive (binary or XML property list) in `length` bytes in `form`. On success returns new
 * values (free with ictkit_values_free); on failure returns NULL and sets *error (code, byte offset or line and
 * column of a property-list problem, key path into the archive). Cost: the input is read and checked in full,
 * then written once into the stream; an object named N times is written N times (ICTKIT_ARCHIVE_FOUNDATION), up
 * to `maximum_values` values, or for 0 the default (128 per input byte, at least 2^20, at most 2^26), before the
 * decode stops with "limitExceeded(values)"; objects nest 512 deep. */
ictkit_values *ictkit_keyed_archive_decode(const void *bytes, size_t length, int form, size_t maximum_values,
                                           ictkit_error **error);

/* The forms of a typed stream's decode. */
enum {
    /* The document, losslessly: {"format", "byteOrder", "streamerVersion", "systemVersion", "classes", "objects",
     * "root"} as ICTKit's TypedStreamDocument.jsonForm, byte arrays and non-UTF-8 strings as bytes. */
    ICTKIT_TYPEDSTREAM_DOCUMENT = 0,
    /* The root object decoded as Foundation's classes (NSAttributedString -> {"class", "string", "runs"}, NSString
     * -> string, numbers, ...), as FoundationObject.jsonForm: an iMessage attributedBody's text under "string".
     * Each object that is a container (an object of another class, an array, set, dictionary or attributed
     * string) is given once after 'D' and after that by 'R'; an object met again inside itself (a cycle) is
     * {"objectReference": its index}. */
    ICTKIT_TYPEDSTREAM_FOUNDATION = 1
};

/* Decodes the typed stream (NSArchiver; iMessage's attributedBody) in `length` bytes in `form`. On success returns
 * new values (free with ictkit_values_free); on failure returns NULL and sets *error with its byte offset. Cost:
 * one pass over the input; 512 levels and ten million values at most. */
ictkit_values *ictkit_typedstream_decode(const void *bytes, size_t length, int form, ictkit_error **error);

/* Decodes the compiled NIB archive ("NIBArchive" magic) in `length` bytes: its tables, losslessly, as
 * NIBArchiveFile.jsonForm ({"format", "formatVersion", "coderVersion", "objects", "keys", "values",
 * "classNames"}; data values as bytes, float values as doubles). `form` must be 0. On failure returns NULL and
 * sets *error with its byte offset. Cost: one pass over the input; 256 MiB and 4 Mi entries at most. */
ictkit_values *ictkit_nib_archive_decode(const void *bytes, size_t length, int form, ictkit_error **error);

/* The stream's bytes and their count. */
const uint8_t *ictkit_values_bytes(const ictkit_values *values, size_t *length);
/* Frees values. NULL is allowed. */
void ictkit_values_free(ictkit_values *values);

/* ---- Core Data stores, object by object (issue 42) --------------------------------------------------------
 *
 * A store (an SQLite file Core Data wrote) is opened read-only: neither it nor its -wal or -shm is ever written,
 * and what is committed in its -wal is read. Its values are typed by the model the store caches (Z_MODELCACHE);
 * without a readable one, each column as SQLite stores it. A cursor reads the objects table by table and by
 * primary key, a batch of them per call, into one object stream (no call per value), one SQLite row at a time:
 * memory stays constant whatever the store's size. Ownership:
 *   - ictkit_store *         made by ictkit_store_open; the caller frees it with ictkit_store_free (NULL is
 *                            allowed). ictkit_store_description's JSON belongs to it.
 *   - ictkit_store_cursor *  made by ictkit_store_cursor_open; the caller frees it with ictkit_store_cursor_free
 *                            (NULL is allowed). It keeps its store alive: the store may be freed first. The bytes
 *                            ictkit_store_cursor_next gives belong to the cursor, valid until its next call or free.
 *   - ictkit_error *         as above: set on failure, owned and freed by the caller. A store's error has its
 *                            place in ictkit_error_table, ictkit_error_row and ictkit_error_table_column (a value
 *                            that does not match the model, a missing table or column, a corrupt page), or
 *                            ictkit_error_byte_offset 0 (not an SQLite file), or ictkit_error_key_path
 *                            "Entity.property" (a model problem); its code is "store", "notSQLite", "model" or "file".
 * The cursors of one store share its SQLite connection and take its lock around each batch: any thread may use
 * them, and distinct stores run in parallel.
 *
 * The object stream, a sequence of records (numbers little-endian; lengths, counts and entity indexes uint32; an
 * entity index is a position in the description's "entities"):
 *   'e' entity index, count N, then N names (length, UTF-8): the names of the values of that entity's objects, in
 *       the model's order; given once per entity and cursor, before its first object.
 *   'o' entity index, primary key int64, then N values (N of the entity's 'e' record).
 * A value is a tag byte, then:
 *   'n' none (NULL) | 't' true | 'f' false | 'i' int64 | 'r' double (IEEE bits) |
 *   'd' date: double, seconds since 2001-01-01 00:00:00 UTC | 's' string (also a URI): length, UTF-8 |
 *   'b' bytes (binary data; a transformable's stored bytes, undecoded): length, bytes |
 *   'D' decimal: length, its decimal text | 'V' UUID: length, its upper-case text |
 *   'X' external binary data: length, the file's name in the store's .NAME_SUPPORT/_EXTERNAL_DATA/ |
 *   'I' object ID: entity index, primary key int64 | 'J' object ID of an entity the store does not list: length,
 *       its name, primary key int64 | 'l' to-many relationship: count, then count object IDs ('I' or 'J').
 * An object ID prints as x-coredata://STORE-UUID/Entity/pKEY (STORE-UUID the description's "storeIdentifier").
 */
typedef struct ictkit_store ictkit_store;
typedef struct ictkit_store_cursor ictkit_store_cursor;

/* Opens the store at `path` (a NUL-terminated file name) read-only and reads its metadata, entities and cached
 * model. On failure returns NULL and sets *error (not a regular file, not SQLite at byte 0, no Z_METADATA or
 * Z_PRIMARYKEY table, a -wal without its -shm). Cost: the store's tables list and Z_MODELCACHE (inflated, at most
 * 64 MB) are read; no object is. */
ictkit_store *ictkit_store_open(const char *path, ictkit_error **error);

/* The store as NUL-terminated JSON: {"path", "storeIdentifier", "storeType", "modelSource" ("modelCache" or
 * "none"), "modelCacheProblem" (why the model cache could not be read, or ""), "entities": [{"name", "number",
 * "superentityNumber", "maximumPrimaryKey", "table"}], "model": the model's JSON form ({"entities": [{"name",
 * "attributes", "relationships", ...}], ...}; {} when there is none)}. *length, when not NULL, gets its length. */
const char *ictkit_store_description(const ictkit_store *store, size_t *length);

/* Frees a store (its cursors keep it alive until they are freed). NULL is allowed. */
void ictkit_store_free(ictkit_store *store);

/* A new cursor before the store's first object. Never NULL. Cost: nothing until ictkit_store_cursor_next. */
ictkit_store_cursor *ictkit_store_cursor_open(ictkit_store *store);

/* Reads the next objects, at most `maximum_objects` (1 at least) and fewer once the batch holds 4 MiB, into an
 * object stream: *bytes and *length get it. Returns how many objects it holds, 0 after the last object, or -1 with
 * *error set when a row cannot be read (the objects before it come first, in the call before). After an error or
 * the end, every call returns 0. When `maximum_objects` is 64 or more, the next batch (of the same size) is read
 * ahead on a thread of the library's own while the caller uses this one: the call after takes it. */
int64_t ictkit_store_cursor_next(ictkit_store_cursor *cursor, size_t maximum_objects, const uint8_t **bytes,
                                 size_t *length, ictkit_error **error);

/* Frees a cursor (after the batch it reads ahead, if any, is read). NULL is allowed. */
void ictkit_store_cursor_free(ictkit_store_cursor *cursor);

/* The table of a store's error ("ZNOTE"), or "" for another error. */
const char *ictkit_error_table(const ictkit_error *error);
/* The row (its primary key, Z_PK; for Z_METADATA its Z_VERSION and for Z_PRIMARYKEY its Z_ENT) of a store's
 * error, or -1. */
int64_t ictkit_error_row(const ictkit_error *error);
/* The column of a store's error ("ZDATE"), or "". */
const char *ictkit_error_table_column(const ictkit_error *error);

#ifdef __cplusplus
}
#endif

#endif /* ICTKIT_H */
