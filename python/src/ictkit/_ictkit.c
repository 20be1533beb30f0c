/*
 * _ictkit: the C extension behind ictkit.plistlib. It turns property lists from libICTKitC (ictkit.h) into
 * Python objects and back, in C, because building the objects is most of a decode's time: a ctypes call per
 * value would cost more than plistlib's whole pure-Python parse. loads and dumps go through the flat form (one
 * buffer for the whole value, walked once: a call into the library per value cost a third of a large decode);
 * get walks the tree, to build only the value found. The decode and the encode run with the GIL released. A
 * large binary file is read in chunks on a thread of its own while this thread builds the objects from the
 * chunks already read (see "Large binary files" below).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <pthread.h>
#include <string.h>
#ifdef __linux__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "ictkit.h"
#include "_archive.h"
#include "_coredata.h"

/* What ictkit.plistlib hands over once: the exception class, UID, and the date conversions. */
static PyObject *error_class, *uid_class, *date_from_seconds, *seconds_from_date, *datetime_class;

/* The options of one loads call. */
typedef struct key_cache key_cache;

typedef struct {
    key_cache *cache;
    PyObject *dict_type; /* NULL for dict itself */
    int aware;
    /* From XML a UID is what the file spells, {"CF$UID": n}, as plistlib gives it (ICTKit reads it as a UID). */
    int uid_as_dict;
} load_options;

/* When a value below a container could not be built (a date outside datetime's years, found after the reader
 * finished), puts the step to it in front of the exception's key_path, so the refusal still says where. */
static void note_step(PyObject *key, Py_ssize_t index) {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (value && PyObject_IsInstance(value, error_class) == 1) {
        PyObject *old = PyObject_GetAttrString(value, "key_path");
        const char *rest = old && PyUnicode_Check(old) ? PyUnicode_AsUTF8(old) : "";
        const char *dot = rest && rest[0] && rest[0] != '[' ? "." : "";
        PyObject *path = key ? PyUnicode_FromFormat("%U%s%s", key, dot, rest ? rest : "")
                             : PyUnicode_FromFormat("[%zd]%s%s", index, dot, rest ? rest : "");
        if (path) PyObject_SetAttrString(value, "key_path", path);
        Py_XDECREF(path);
        Py_XDECREF(old);
    }
    PyErr_Clear();
    PyErr_Restore(type, value, traceback);
}

/* Puts key → value in dict (as dict_type's item when one is given) and lets go of both; a key whose value could
 * not be built (NULL) is noted as the step to the failure. Either may be NULL after a failure: then -1. */
static int put_dict_item(PyObject *dict, PyObject *key, PyObject *value, const load_options *options) {
    if (key && !value) note_step(key, 0);
    int failed = !value || (options->dict_type ? PyObject_SetItem(dict, key, value) : PyDict_SetItem(dict, key, value));
    Py_XDECREF(key);
    Py_XDECREF(value);
    return failed ? -1 : 0;
}

/* Dictionary keys repeat (every record of a file has the same few), and so do short string values (names of
 * kinds, tags): one str object per distinct string of a decode, looked up by its bytes, instead of a new str
 * decoded for every occurrence, as plistlib shares the one object a binary file holds for them. Values equal
 * to plistlib's: str objects are immutable. Keys and values have a table each, so values do not push keys out. */
#define STRING_CACHE_SIZE 4096
/* Longer string values are seldom repeated: they are decoded without a look-up. */
#define CACHED_VALUE_LENGTH 16
/* Longer keys are decoded without a look-up too. */
#define CACHED_KEY_LENGTH 48
/* A slot holds an ASCII str and the hash of its bytes (0 when empty): 16 bytes, so a table stays in the cache
 * (a slot that kept the bytes beside the str was four times larger, and missing the cache on the table was the
 * largest cost of the look-up in a profile of the 19 MB binary loads, issue 42 row Y1). The bytes are compared
 * with the str's own, which the hit touches anyway to take a reference. */
typedef struct {
    PyObject *string;
    uint64_t hash;
} cached_entry;

struct key_cache {
    cached_entry keys[STRING_CACHE_SIZE];
    cached_entry values[STRING_CACHE_SIZE];
};

static uint64_t load64(const char *bytes) {
    uint64_t word;
    memcpy(&word, bytes, 8);
    return word;
}

static uint64_t load32(const char *bytes) {
    uint32_t word;
    memcpy(&word, bytes, 4);
    return word;
}

/* The hash of a string's bytes, never 0: eight bytes a step mixed by a multiply and a shift; the last bytes are
 * read as one word that overlaps the words before (or, under eight bytes, as two overlapping halves or three
 * single bytes), never byte by byte and never past `length`. */
static uint64_t string_hash(const char *text, size_t length) {
    uint64_t hash = 0x9E3779B97F4A7C15u ^ length;
    size_t index = 0;
    for (; index + 8 <= length; index += 8) {
        hash = (hash ^ load64(text + index)) * 0xFF51AFD7ED558CCDu;
        hash ^= hash >> 32;
    }
    if (index < length) {
        uint64_t word;
        if (length >= 8) word = load64(text + length - 8);
        else if (length >= 4) word = load32(text) | load32(text + length - 4) << 32;
        else word = (uint64_t)(uint8_t)text[0] | (uint64_t)(uint8_t)text[length / 2] << 8 | (uint64_t)(uint8_t)text[length - 1] << 16;
        hash = (hash ^ word) * 0xFF51AFD7ED558CCDu;
        hash ^= hash >> 32;
    }
    return (hash ^ (hash >> 29)) | 1;
}

static PyObject *cached_string(cached_entry *table, const char *text, size_t length) {
    uint64_t hash = string_hash(text, length);
    cached_entry *slot = &table[hash % STRING_CACHE_SIZE];
    PyObject *cached = slot->string;
    if (slot->hash == hash && (size_t)PyUnicode_GET_LENGTH(cached) == length &&
        memcmp(PyUnicode_1BYTE_DATA(cached), text, length) == 0)
        return Py_NewRef(cached);
    PyObject *string = PyUnicode_DecodeUTF8(text, (Py_ssize_t)length, "surrogatepass");
    if (string && PyUnicode_IS_ASCII(string)) {
        Py_XSETREF(slot->string, Py_NewRef(string));
        slot->hash = hash;
    }
    return string;
}

static PyObject *cached_key(key_cache *cache, const char *text, size_t length) {
    if (length > CACHED_KEY_LENGTH) return PyUnicode_DecodeUTF8(text, (Py_ssize_t)length, "surrogatepass");
    return cached_string(cache->keys, text, length);
}

/* Days from 1970-01-01 to a proleptic Gregorian date, and back (H. Hinnant's algorithms, exact for any
 * int64 day count in datetime's years). */
static int64_t days_from_civil(int64_t year, int month, int day) {
    year -= month <= 2;
    int64_t era = (year >= 0 ? year : year - 399) / 400;
    int64_t year_of_era = year - era * 400;
    int64_t day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + day_of_era - 719468;
}

static void civil_from_days(int64_t days, int64_t *year, int *month, int *day) {
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    int64_t day_of_era = days - era * 146097;
    int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
    int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    int64_t shifted_month = (5 * day_of_year + 2) / 153;
    *day = (int)(day_of_year - (153 * shifted_month + 2) / 5 + 1);
    *month = (int)(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
    *year = year_of_era + era * 400 + (*month <= 2);
}

/* 2001-01-01, the property lists' epoch, in days from 1970-01-01. */
#define EPOCH_2001_DAYS 11323

/* A datetime for `seconds` from 2001-01-01 UTC, equal to plistlib's (naive, or in datetime.timezone.utc with
 * `aware`). Whole seconds within datetime's years are made here, with no Python call; a fraction or a year
 * outside 1 to 9999 goes to ictkit.plistlib's _date_from_seconds, which rounds as timedelta does or raises. */
static PyObject *date_object(double seconds, int aware) {
    if (seconds > -4e11 && seconds < 4e11 && seconds == (double)(int64_t)seconds) {
        int64_t whole = (int64_t)seconds;
        int64_t days = whole / 86400 - (whole % 86400 < 0);
        int64_t in_day = whole - days * 86400;
        int64_t year;
        int month, day;
        civil_from_days(days + EPOCH_2001_DAYS, &year, &month, &day);
        if (year >= 1 && year <= 9999) {
            int hour = (int)(in_day / 3600), minute = (int)(in_day / 60 % 60), second = (int)(in_day % 60);
            if (!aware) return PyDateTime_FromDateAndTime((int)year, month, day, hour, minute, second, 0);
            return PyDateTimeAPI->DateTime_FromDateAndTime((int)year, month, day, hour, minute, second, 0,
                                                           PyDateTime_TimeZone_UTC, PyDateTimeAPI->DateTimeType);
        }
    }
    return PyObject_CallFunction(date_from_seconds, "di", seconds, aware);
}

static PyObject *to_python(const ictkit_plist *plist, ictkit_node node, const load_options *options) {
    size_t length = 0;
    switch (ictkit_node_type(plist, node)) {
    case ICTKIT_TYPE_STRING: {
        const char *text = ictkit_node_string(plist, node, &length);
        return PyUnicode_DecodeUTF8(text, (Py_ssize_t)length, "surrogatepass");
    }
    case ICTKIT_TYPE_INTEGER:
        if (ictkit_node_integer_is_unsigned(plist, node))
            return PyLong_FromUnsignedLongLong(ictkit_node_uint64(plist, node));
        return PyLong_FromLongLong(ictkit_node_int64(plist, node));
    case ICTKIT_TYPE_REAL:
        return PyFloat_FromDouble(ictkit_node_real(plist, node));
    case ICTKIT_TYPE_BOOL:
        return PyBool_FromLong(ictkit_node_bool(plist, node));
    case ICTKIT_TYPE_DATE:
        return date_object(ictkit_node_date(plist, node), options->aware);
    case ICTKIT_TYPE_DATA: {
        const uint8_t *bytes = ictkit_node_data(plist, node, &length);
        return PyBytes_FromStringAndSize((const char *)bytes, (Py_ssize_t)length);
    }
    case ICTKIT_TYPE_UID: {
        unsigned long long uid = (unsigned long long)ictkit_node_uid(plist, node);
        if (!options->uid_as_dict) return PyObject_CallFunction(uid_class, "K", uid);
        PyObject *dict = options->dict_type ? PyObject_CallNoArgs(options->dict_type) : PyDict_New();
        PyObject *number = PyLong_FromUnsignedLongLong(uid);
        PyObject *key = PyUnicode_FromString("CF$UID");
        int failed = !dict || !number || !key || PyObject_SetItem(dict, key, number) < 0;
        Py_XDECREF(number);
        Py_XDECREF(key);
        if (failed) Py_CLEAR(dict);
        return dict;
    }
    case ICTKIT_TYPE_ARRAY: {
        size_t count = ictkit_node_count(plist, node);
        PyObject *list = PyList_New((Py_ssize_t)count);
        if (!list) return NULL;
        for (size_t index = 0; index < count; index++) {
            PyObject *item = to_python(plist, ictkit_node_item(plist, node, index), options);
            if (!item) {
                note_step(NULL, (Py_ssize_t)index);
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)index, item);
        }
        return list;
    }
    case ICTKIT_TYPE_DICT: {
        PyObject *dict = options->dict_type ? PyObject_CallNoArgs(options->dict_type) : PyDict_New();
        if (!dict) return NULL;
        size_t count = ictkit_node_count(plist, node);
        for (size_t index = 0; index < count; index++) {
            size_t key_length = 0;
            const char *key_text = ictkit_node_string(plist, ictkit_node_key(plist, node, index), &key_length);
            PyObject *key = cached_key(options->cache, key_text, key_length);
            PyObject *value = key ? to_python(plist, ictkit_node_value(plist, node, index), options) : NULL;
            if (put_dict_item(dict, key, value, options) != 0) {
                Py_DECREF(dict);
                return NULL;
            }
        }
        return dict;
    }
    default:
        PyErr_SetString(PyExc_SystemError, "ictkit: unknown node type");
        return NULL;
    }
}

typedef struct chunk_queue chunk_queue;

/* Where from_flat is in a flat value (ictkit.h: the flat form), where it ends, and up to where its pages have
 * been given back; for a value read in chunks, the queue they come from (else NULL). */
typedef struct {
    const uint8_t *next, *end, *released;
    chunk_queue *queue;
} flat_cursor;

static int next_chunk(flat_cursor *cursor);

/* Every few MiB read, the whole pages of the flat value behind the cursor are given back to the system (it is
 * read once, front to back), so the flat value and the Python objects made from it are not both held whole. */
#define RELEASE_STEP (4u << 20)
static void release_read_pages(flat_cursor *cursor) {
#ifdef __linux__
    if ((size_t)(cursor->next - cursor->released) < RELEASE_STEP) return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)cursor->released + page - 1) / page * page;
    uintptr_t end = (uintptr_t)cursor->next / page * page;
    if (start < end) madvise((void *)start, end - start, MADV_DONTNEED);
    cursor->released = cursor->next;
#else
    (void)cursor;
#endif
}

/* The flat bytes come from libICTKitC, which writes them whole: running out is a bug there, not bad input. */
static PyObject *flat_bug(void) {
    PyErr_SetString(PyExc_SystemError, "ictkit: the flat value from libICTKitC ends early or has an unknown tag");
    return NULL;
}

static int flat_take(flat_cursor *cursor, void *payload, size_t size) {
    /* A chunk ends between two values: at its end, the next chunk. */
    if ((size_t)(cursor->end - cursor->next) < size &&
        (cursor->next != cursor->end || !cursor->queue || next_chunk(cursor) < 0 || (size_t)(cursor->end - cursor->next) < size))
        return -1;
    memcpy(payload, cursor->next, size);
    cursor->next += size;
    return 0;
}

/* A length and the bytes it counts; NULL when they run past the end. */
static const char *flat_bytes(flat_cursor *cursor, uint32_t *length) {
    if (flat_take(cursor, length, sizeof *length) < 0 || (size_t)(cursor->end - cursor->next) < *length) return NULL;
    const char *bytes = (const char *)cursor->next;
    cursor->next += *length;
    return bytes;
}

/* The Python value of the flat value at the cursor, which moves past it. */
static PyObject *from_flat(flat_cursor *cursor, const load_options *options) {
    uint8_t tag;
    if (flat_take(cursor, &tag, 1) < 0) return flat_bug();
    uint32_t length = 0;
    union {
        int64_t int64;
        uint64_t uint64;
        double real;
    } payload = {0};
    switch (tag) {
    case ICTKIT_FLAT_STRING: {
        const char *text = flat_bytes(cursor, &length);
        if (!text) return flat_bug();
        if (length <= CACHED_VALUE_LENGTH) return cached_string(options->cache->values, text, length);
        return PyUnicode_DecodeUTF8(text, length, "surrogatepass");
    }
    case ICTKIT_FLAT_DATA: {
        const char *bytes = flat_bytes(cursor, &length);
        return bytes ? PyBytes_FromStringAndSize(bytes, length) : flat_bug();
    }
    case ICTKIT_FLAT_FALSE:
        Py_RETURN_FALSE;
    case ICTKIT_FLAT_TRUE:
        Py_RETURN_TRUE;
    case ICTKIT_FLAT_ARRAY:
    case ICTKIT_FLAT_DICT:
        if (flat_take(cursor, &length, sizeof length) < 0) return flat_bug();
        break;
    default:
        if (flat_take(cursor, &payload, sizeof payload) < 0) return flat_bug();
        break;
    }
    switch (tag) {
    case ICTKIT_FLAT_INT64:
        return PyLong_FromLongLong(payload.int64);
    case ICTKIT_FLAT_UINT64:
        return PyLong_FromUnsignedLongLong(payload.uint64);
    case ICTKIT_FLAT_REAL:
    case ICTKIT_FLAT_REAL32:
        return PyFloat_FromDouble(payload.real);
    case ICTKIT_FLAT_DATE:
        return date_object(payload.real, options->aware);
    case ICTKIT_FLAT_UID: {
        if (!options->uid_as_dict) return PyObject_CallFunction(uid_class, "K", (unsigned long long)payload.uint64);
        PyObject *dict = options->dict_type ? PyObject_CallNoArgs(options->dict_type) : PyDict_New();
        PyObject *number = PyLong_FromUnsignedLongLong(payload.uint64);
        PyObject *key = PyUnicode_FromString("CF$UID");
        int failed = !dict || !number || !key || PyObject_SetItem(dict, key, number) < 0;
        Py_XDECREF(number);
        Py_XDECREF(key);
        if (failed) Py_CLEAR(dict);
        return dict;
    }
    case ICTKIT_FLAT_ARRAY: {
        PyObject *list = PyList_New(length);
        if (!list) return NULL;
        for (uint32_t index = 0; index < length; index++) {
            release_read_pages(cursor);
            PyObject *item = from_flat(cursor, options);
            if (!item) {
                note_step(NULL, index);
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, index, item);
        }
        return list;
    }
    case ICTKIT_FLAT_DICT: {
        PyObject *dict = options->dict_type ? PyObject_CallNoArgs(options->dict_type) : PyDict_New();
        if (!dict) return NULL;
        for (uint32_t index = 0; index < length; index++) {
            release_read_pages(cursor);
            uint8_t key_tag = 0;
            uint32_t key_length = 0;
            const char *key_text = flat_take(cursor, &key_tag, 1) == 0 && key_tag == ICTKIT_FLAT_STRING
                                       ? flat_bytes(cursor, &key_length)
                                       : NULL;
            PyObject *key = key_text ? cached_key(options->cache, key_text, key_length) : flat_bug();
            PyObject *value = key ? from_flat(cursor, options) : NULL;
            if (put_dict_item(dict, key, value, options) != 0) {
                Py_DECREF(dict);
                return NULL;
            }
        }
        return dict;
    }
    default:
        return flat_bug();
    }
}

/* What builds the Python value: the tree's node (for get) or the flat value (for loads). */
typedef struct {
    const ictkit_plist *plist;
    ictkit_node node;
    flat_cursor *cursor;
} build_source;

static void free_cache(key_cache *cache) {
    for (size_t index = 0; index < STRING_CACHE_SIZE; index++) {
        Py_XDECREF(cache->keys[index].string);
        Py_XDECREF(cache->values[index].string);
    }
    PyMem_Free(cache);
}

/* Huge pages for the objects of a large build (Linux, with the GIL). Python's allocator takes its memory from
 * the system an arena (1 MiB) at a time, and a large loads fills a hundred of them at once: each of their 4 KiB
 * pages, touched for the first time, stops the build for the kernel to map and zero it (a quarter of the 19 MB
 * file's loads in a profile, row Y1 of issue 42). While a large build runs, new arenas are the halves of 2 MiB
 * regions that the kernel is asked to back with huge pages (madvise, as transparent huge pages allow; where they
 * are off, the pages are as before). The arenas are Python's as any other: mapped as its own allocator maps them,
 * and given back with munmap by whichever allocator is set then. Nested builds (another thread's loads, run
 * while this one waits for a chunk) keep the one setting, counted. */
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(Py_GIL_DISABLED)
#define HUGE_ARENAS 1
#define HUGE_REGION ((size_t)2 << 20)
static PyObjectArenaAllocator arenas_before;
static int large_builds;
/* The second half of the last region, not yet handed out. */
static char *spare_arena;

static void *huge_arena(void *context, size_t size) {
    (void)context;
    if (size != HUGE_REGION / 2) return arenas_before.alloc(arenas_before.ctx, size);
    if (spare_arena) {
        void *arena = spare_arena;
        spare_arena = NULL;
        return arena;
    }
    /* Twice the region, so an aligned region lies inside; the rest is given back at once. */
    char *mapped = mmap(NULL, 2 * HUGE_REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return NULL;
    char *region = (char *)(((uintptr_t)mapped + HUGE_REGION - 1) & ~(uintptr_t)(HUGE_REGION - 1));
    if (region > mapped) munmap(mapped, (size_t)(region - mapped));
    if (mapped + 2 * HUGE_REGION > region + HUGE_REGION)
        munmap(region + HUGE_REGION, (size_t)(mapped + 2 * HUGE_REGION - (region + HUGE_REGION)));
    madvise(region, HUGE_REGION, MADV_HUGEPAGE);
    spare_arena = region + HUGE_REGION / 2;
    return region;
}

static void free_arena(void *context, void *arena, size_t size) {
    (void)context;
    munmap(arena, size);
}

static void begin_large_build(void) {
    if (large_builds++ > 0) return;
    PyObject_GetArenaAllocator(&arenas_before);
    PyObjectArenaAllocator huge = {NULL, huge_arena, free_arena};
    PyObject_SetArenaAllocator(&huge);
}

static void end_large_build(void) {
    if (--large_builds > 0) return;
    PyObject_SetArenaAllocator(&arenas_before);
    if (spare_arena) munmap(spare_arena, HUGE_REGION / 2);
    spare_arena = NULL;
}
#endif

/* to_python or from_flat with the cyclic garbage collector paused: the values built are a tree (no cycle to
 * collect), and a collection every few hundred new containers took a third of a large decode's time. */
static PyObject *build(build_source source, load_options *options) {
    key_cache *cache = PyMem_Calloc(1, sizeof(key_cache));
    if (!cache) return PyErr_NoMemory();
    options->cache = cache;
    int was_enabled = PyGC_Disable();
    PyObject *value = source.cursor ? from_flat(source.cursor, options) : to_python(source.plist, source.node, options);
    if (was_enabled) PyGC_Enable();
    free_cache(cache);
    return value;
}

/* Raises `exception_class` with the error's sentence and its place as attributes (code, reason, byte_offset, line,
 * column, key_path); frees the error. Used by the archive half too (_archive.h). */
PyObject *ictkit_py_raise_error(PyObject *exception_class, ictkit_error *error) {
    if (!error) {
        PyErr_SetString(PyExc_SystemError, "ictkit: a call failed without an error");
        return NULL;
    }
    PyObject *exception = PyObject_CallFunction(exception_class, "s", ictkit_error_description(error));
    if (exception) {
        PyObject *attributes = Py_BuildValue(
            "{s:s,s:s,s:L,s:L,s:L,s:s}", "code", ictkit_error_code(error), "reason", ictkit_error_message(error),
            "byte_offset", (long long)ictkit_error_byte_offset(error), "line", (long long)ictkit_error_line(error),
            "column", (long long)ictkit_error_column(error), "key_path", ictkit_error_key_path(error));
        if (attributes) {
            PyObject *key, *value;
            Py_ssize_t position = 0;
            while (PyDict_Next(attributes, &position, &key, &value)) PyObject_SetAttr(exception, key, value);
            Py_DECREF(attributes);
        }
        PyErr_SetObject(exception_class, exception);
        Py_DECREF(exception);
    }
    ictkit_error_free(error);
    return NULL;
}

static PyObject *raise_error(ictkit_error *error) { return ictkit_py_raise_error(error_class, error); }

/* ---- Large binary files ----
 * From 1 MiB on, a binary file is read on a thread of its own (ictkit_plist_read_flat_chunks), in chunks, while
 * this thread builds the objects from the chunks already read: the read (a quarter of a large loads' time, row
 * Y1 of issue 42) is then hidden behind the build, but for its first chunk. When the read gives up (an input the
 * quick read does not take: malformed, a container referenced twice), what was built is dropped and the file is
 * read whole, as a smaller one is, which says where a problem is; an object that could not be built is told
 * only once the read is known to have taken the whole file, so the outcome is the whole read's. */
#define CHUNKED_LOADS_BYTES ((Py_ssize_t)1 << 20)
/* The top-level container's members come in up to this many chunks: the build waits for the first alone. */
#define CHUNK_COUNT 64

struct chunk_queue {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    /* The chunks handed over (the container's start, then its members), in order. */
    struct {
        uint8_t *bytes;
        size_t length;
    } chunks[CHUNK_COUNT + 1];
    size_t count;
    /* The chunks the build has moved to; the one before the last taken is freed. */
    size_t taken;
    /* The read returned; it handed over the whole value. */
    int finished, whole;
    const void *bytes;
    size_t length;
    int format;
};

/* The reader's handler (ictkit_flat_chunk_handler), on the reader's thread. */
static int queue_chunk(void *context, uint8_t *bytes, size_t length) {
    chunk_queue *queue = context;
    pthread_mutex_lock(&queue->lock);
    int full = queue->count == CHUNK_COUNT + 1;
    if (!full) {
        queue->chunks[queue->count].bytes = bytes;
        queue->chunks[queue->count].length = length;
        queue->count++;
        pthread_cond_signal(&queue->changed);
    }
    pthread_mutex_unlock(&queue->lock);
    if (full) ictkit_bytes_free(bytes);
    return full;
}

static void *read_chunks(void *context) {
    chunk_queue *queue = context;
    int status = ictkit_plist_read_flat_chunks(queue->bytes, queue->length, queue->format, CHUNK_COUNT, queue_chunk, queue);
    pthread_mutex_lock(&queue->lock);
    queue->finished = 1;
    queue->whole = status == 0;
    pthread_cond_broadcast(&queue->changed);
    pthread_mutex_unlock(&queue->lock);
    return NULL;
}

/* Waits, with the GIL given up, until `ready` holds for the queue; called and returning with the lock held. */
static void wait_for(chunk_queue *queue, int (*ready)(const chunk_queue *)) {
    if (ready(queue)) return;
    pthread_mutex_unlock(&queue->lock);
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&queue->lock);
    while (!ready(queue)) pthread_cond_wait(&queue->changed, &queue->lock);
    pthread_mutex_unlock(&queue->lock);
    Py_END_ALLOW_THREADS
    pthread_mutex_lock(&queue->lock);
}

static int chunk_or_end(const chunk_queue *queue) { return queue->taken < queue->count || queue->finished; }
static int finished(const chunk_queue *queue) { return queue->finished; }

/* Moves the cursor, at the end of its chunk, to the start of the next, freeing the one it leaves; -1 when the
 * read ended without another. */
static int next_chunk(flat_cursor *cursor) {
    chunk_queue *queue = cursor->queue;
    pthread_mutex_lock(&queue->lock);
    wait_for(queue, chunk_or_end);
    int found = queue->taken < queue->count;
    if (found) {
        if (queue->taken > 0) {
            ictkit_bytes_free(queue->chunks[queue->taken - 1].bytes);
            queue->chunks[queue->taken - 1].bytes = NULL;
        }
        cursor->next = cursor->released = queue->chunks[queue->taken].bytes;
        cursor->end = cursor->next + queue->chunks[queue->taken].length;
        queue->taken++;
    }
    pthread_mutex_unlock(&queue->lock);
    return found ? 0 : -1;
}

/* The value of a large binary file read in chunks, or NULL with an exception; *whole is 0 when the read gave up
 * (nothing is returned or raised then: the caller reads the file whole) or no thread could be started. */
static PyObject *loads_in_chunks(const Py_buffer *buffer, int format, load_options *options, int *whole) {
    *whole = 0;
    chunk_queue *queue = PyMem_Calloc(1, sizeof(chunk_queue));
    if (!queue) return PyErr_NoMemory();
    queue->bytes = buffer->buf;
    queue->length = (size_t)buffer->len;
    queue->format = format;
    pthread_t reader;
    if (pthread_mutex_init(&queue->lock, NULL) != 0) {
        PyMem_Free(queue);
        return NULL;
    }
    if (pthread_cond_init(&queue->changed, NULL) != 0 || pthread_create(&reader, NULL, read_chunks, queue) != 0) {
        pthread_mutex_destroy(&queue->lock);
        PyMem_Free(queue);
        return NULL;
    }
    flat_cursor cursor = {NULL, NULL, NULL, queue};
#ifdef HUGE_ARENAS
    begin_large_build();
#endif
    PyObject *value = build((build_source){NULL, ICTKIT_NO_NODE, &cursor}, options);
#ifdef HUGE_ARENAS
    end_large_build();
#endif
    pthread_mutex_lock(&queue->lock);
    wait_for(queue, finished);
    pthread_mutex_unlock(&queue->lock);
    Py_BEGIN_ALLOW_THREADS
    pthread_join(reader, NULL);
    Py_END_ALLOW_THREADS
    *whole = queue->whole;
    /* The whole value was handed over and built: every chunk was taken and read to its end. */
    if (*whole && value && (cursor.next != cursor.end || queue->taken != queue->count)) {
        Py_CLEAR(value);
        flat_bug();
    }
    if (!*whole) {
        Py_CLEAR(value);
        PyErr_Clear();
    }
    for (size_t index = 0; index < queue->count; index++) ictkit_bytes_free(queue->chunks[index].bytes);
    pthread_cond_destroy(&queue->changed);
    pthread_mutex_destroy(&queue->lock);
    PyMem_Free(queue);
    return value;
}

/* loads(data, format, dict_type, aware) -> value */
static PyObject *py_loads(PyObject *self, PyObject *args) {
    Py_buffer buffer;
    int format, aware;
    PyObject *dict_type;
    if (!PyArg_ParseTuple(args, "y*iOp", &buffer, &format, &dict_type, &aware)) return NULL;
    if (buffer.len >= CHUNKED_LOADS_BYTES && (format == ICTKIT_FORMAT_AUTO || format == ICTKIT_FORMAT_BINARY) &&
        memcmp(buffer.buf, "bplist", 6) == 0) {
        load_options options = {NULL, dict_type == (PyObject *)&PyDict_Type ? NULL : dict_type, aware, 0};
        int whole;
        PyObject *value = loads_in_chunks(&buffer, format, &options, &whole);
        if (whole || PyErr_Occurred()) {
            PyBuffer_Release(&buffer);
            return value;
        }
    }
    ictkit_error *error = NULL;
    int read_format = 0, status;
    uint8_t *flat = NULL;
    size_t flat_length = 0;
    Py_BEGIN_ALLOW_THREADS
    status = ictkit_plist_read_flat(buffer.buf, (size_t)buffer.len, format, &read_format, &flat, &flat_length, &error);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buffer);
    if (status != 0) return raise_error(error);
#if defined(__linux__) && defined(__GLIBC__)
    /* The decoded Swift value was freed on return, into malloc's free lists, where the Python objects (made by
     * Python's own allocator) cannot reuse it: a large one is given back to the system before they are made. */
    if (flat_length >= RELEASE_STEP) malloc_trim(0);
#endif
    load_options options = {NULL, dict_type == (PyObject *)&PyDict_Type ? NULL : dict_type, aware,
                            read_format == ICTKIT_FORMAT_XML};
    flat_cursor cursor = {flat, flat + flat_length, flat, NULL};
    PyObject *value = build((build_source){NULL, ICTKIT_NO_NODE, &cursor}, &options);
    ictkit_bytes_free(flat);
    /* The value alone: a result tuple made here, the first container since the collector was resumed, would
     * start a collection over every container just built, although the caller may drop them all first. */
    return value;
}

/* get(data, format, key_path, dict_type, aware, default) -> the value at key_path, or default */
static PyObject *py_get(PyObject *self, PyObject *args) {
    Py_buffer buffer;
    int format, aware;
    const char *key_path;
    PyObject *dict_type, *fallback;
    if (!PyArg_ParseTuple(args, "y*isOpO", &buffer, &format, &key_path, &dict_type, &aware, &fallback)) return NULL;
    ictkit_error *error = NULL;
    int read_format = 0;
    ictkit_plist *plist;
    Py_BEGIN_ALLOW_THREADS
    plist = ictkit_plist_read(buffer.buf, (size_t)buffer.len, format, &read_format, &error);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buffer);
    if (!plist) return raise_error(error);
    ictkit_node node = ictkit_plist_get(plist, ictkit_plist_root(plist), key_path);
    load_options options = {NULL, dict_type == (PyObject *)&PyDict_Type ? NULL : dict_type, aware,
                            read_format == ICTKIT_FORMAT_XML};
    PyObject *value = node == ICTKIT_NO_NODE ? Py_NewRef(fallback) : build((build_source){plist, node, NULL}, &options);
    ictkit_plist_free(plist);
    return value;
}

/* The options of one dumps call. */
typedef struct {
    int sort_keys, skip_keys, allow_uid, xml;
} dump_options;

/* The flat form (ictkit.h) of the value being dumped, grown as it is written. */
typedef struct {
    uint8_t *bytes;
    size_t length, capacity;
} flat_buffer;

/* Room for `size` more bytes. */
static int flat_reserve(flat_buffer *flat, size_t size) {
    if (flat->capacity - flat->length >= size) return 0;
    size_t capacity = flat->capacity * 2 > flat->length + size ? flat->capacity * 2 : flat->length + size;
    uint8_t *grown = PyMem_Realloc(flat->bytes, capacity);
    if (!grown) {
        PyErr_NoMemory();
        return -1;
    }
    flat->bytes = grown;
    flat->capacity = capacity;
    return 0;
}

static int flat_append(flat_buffer *flat, uint8_t tag, const void *payload, size_t size) {
    if (flat_reserve(flat, size + 1) < 0) return -1;
    flat->bytes[flat->length] = tag;
    if (size) memcpy(flat->bytes + flat->length + 1, payload, size);
    flat->length += size + 1;
    return 0;
}

/* A tag and a count (of members or bytes), which the flat form holds in 32 bits. */
static int flat_count(flat_buffer *flat, uint8_t tag, Py_ssize_t count) {
    if ((size_t)count > UINT32_MAX) {
        PyErr_Format(PyExc_OverflowError, "%zd members or bytes are more than a property list value holds", count);
        return -1;
    }
    uint32_t narrow = (uint32_t)count;
    return flat_append(flat, tag, &narrow, sizeof narrow);
}

/* A string's or data's tag, length and bytes. */
static int flat_run(flat_buffer *flat, uint8_t tag, const char *bytes, Py_ssize_t length) {
    if (flat_count(flat, tag, length) < 0 || flat_reserve(flat, (size_t)length) < 0) return -1;
    if (length) memcpy(flat->bytes + flat->length, bytes, (size_t)length);
    flat->length += (size_t)length;
    return 0;
}

static int flat_from_python(flat_buffer *flat, PyObject *value, const dump_options *options);

/* One entry: a str key and its value (both held while they are written: converting a value may run Python
 * code); a key of another type is skipped with skip_keys, else TypeError, as plistlib does. */
static int entry_to_flat(flat_buffer *flat, PyObject *key, PyObject *value, const dump_options *options, uint32_t *kept) {
    if (!PyUnicode_Check(key)) {
        if (options->skip_keys) return 0;
        PyErr_SetString(PyExc_TypeError, "keys must be strings");
        return -1;
    }
    Py_INCREF(key);
    Py_INCREF(value);
    int status = flat_from_python(flat, key, options) < 0 || flat_from_python(flat, value, options) < 0 ? -1 : 0;
    Py_DECREF(key);
    Py_DECREF(value);
    if (status == 0) (*kept)++;
    return status;
}

/* A dict's entries: a dict itself walked in place, or by its keys sorted (keys that cannot be ordered, a str
 * beside an int, raise TypeError as sorted(items) does in plistlib), with no tuple made per entry; a subclass by
 * its items(), as plistlib calls it. */
static int dict_to_flat(flat_buffer *flat, PyObject *dict, const dump_options *options) {
    int exact = PyDict_CheckExact(dict);
    PyObject *members = NULL;
    if (!exact || options->sort_keys) {
        members = exact ? PyDict_Keys(dict) : PyMapping_Items(dict);
        if (!members) return -1;
        if (options->sort_keys && PyList_Sort(members) < 0) {
            Py_DECREF(members);
            return -1;
        }
    }
    size_t count_at = flat->length + 1;
    int status = flat_count(flat, ICTKIT_FLAT_DICT, members ? PyList_GET_SIZE(members) : PyDict_GET_SIZE(dict));
    uint32_t kept = 0;
    if (!members) {
        PyObject *key, *value;
        Py_ssize_t position = 0;
        while (status == 0 && PyDict_Next(dict, &position, &key, &value)) status = entry_to_flat(flat, key, value, options, &kept);
    } else if (exact) {
        for (Py_ssize_t index = 0; status == 0 && index < PyList_GET_SIZE(members); index++) {
            PyObject *key = PyList_GET_ITEM(members, index);
            PyObject *value = PyDict_GetItemWithError(dict, key);
            if (!value) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "dictionary changed size during iteration");
                status = -1;
            } else {
                status = entry_to_flat(flat, key, value, options, &kept);
            }
        }
    } else {
        for (Py_ssize_t index = 0; status == 0 && index < PyList_GET_SIZE(members); index++) {
            PyObject *item = PyList_GET_ITEM(members, index);
            status = entry_to_flat(flat, PyTuple_GET_ITEM(item, 0), PyTuple_GET_ITEM(item, 1), options, &kept);
        }
    }
    /* The count written first, less the keys skipped. */
    if (status == 0) memcpy(flat->bytes + count_at, &kept, sizeof kept);
    Py_XDECREF(members);
    return status;
}

static int sequence_to_flat(flat_buffer *flat, PyObject *sequence, const dump_options *options) {
    PyObject *fast = PySequence_Fast(sequence, "not a sequence");
    if (!fast) return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    int status = flat_count(flat, ICTKIT_FLAT_ARRAY, count);
    for (Py_ssize_t index = 0; status == 0 && index < count; index++)
        status = flat_from_python(flat, PySequence_Fast_GET_ITEM(fast, index), options);
    Py_DECREF(fast);
    return status;
}

/* Seconds from 2001-01-01 of a datetime, as ictkit.plistlib's _seconds_from_date gives them: a naive datetime
 * whose microseconds from 2001 are exact in a double is done here ((date - epoch).total_seconds() divides that
 * integer by 10**6, correctly rounded, as the double division is); any other goes to the Python function. */
static int date_seconds(PyObject *value, double *seconds) {
    if (PyDateTime_CheckExact(value) && PyDateTime_DATE_GET_TZINFO(value) == Py_None) {
        int64_t days = days_from_civil(PyDateTime_GET_YEAR(value), PyDateTime_GET_MONTH(value), PyDateTime_GET_DAY(value));
        int64_t microseconds = ((days - EPOCH_2001_DAYS) * 86400 + PyDateTime_DATE_GET_HOUR(value) * 3600 +
                                PyDateTime_DATE_GET_MINUTE(value) * 60 + PyDateTime_DATE_GET_SECOND(value)) *
                                   1000000 +
                               PyDateTime_DATE_GET_MICROSECOND(value);
        if (microseconds >= -(INT64_C(1) << 53) && microseconds <= (INT64_C(1) << 53)) {
            *seconds = (double)microseconds / 1e6;
            return 0;
        }
    }
    PyObject *result = PyObject_CallOneArg(seconds_from_date, value);
    if (!result) return -1;
    *seconds = PyFloat_AsDouble(result);
    Py_DECREF(result);
    return *seconds == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static int uid_to_flat(flat_buffer *flat, PyObject *value) {
    PyObject *data = PyObject_GetAttrString(value, "data");
    if (!data) return -1;
    PyObject *zero = PyLong_FromLong(0);
    int negative = zero ? PyObject_RichCompareBool(data, zero, Py_LT) : -1;
    Py_XDECREF(zero);
    if (negative != 0) {
        Py_DECREF(data);
        if (negative > 0) PyErr_SetString(PyExc_ValueError, "UIDs must be positive");
        return -1;
    }
    unsigned long long number = PyLong_AsUnsignedLongLong(data);
    Py_DECREF(data);
    if (number == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    uint64_t uid = number;
    return flat_append(flat, ICTKIT_FLAT_UID, &uid, sizeof uid);
}

static int scalar_to_flat(flat_buffer *flat, PyObject *value, const dump_options *options) {
    if (PyUnicode_Check(value)) {
        Py_ssize_t length;
        const char *text = PyUnicode_AsUTF8AndSize(value, &length);
        if (!text) return -1;
        /* XML 1.0 has no other control characters than tab, line feed and carriage return (plistlib's rule). */
        for (Py_ssize_t index = 0; options->xml && index < length; index++) {
            unsigned char byte = (unsigned char)text[index];
            if (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') {
                PyErr_SetString(PyExc_ValueError, "strings can't contain control characters; use bytes instead");
                return -1;
            }
        }
        return flat_run(flat, ICTKIT_FLAT_STRING, text, length);
    }
    if (PyBool_Check(value)) return flat_append(flat, value == Py_True ? ICTKIT_FLAT_TRUE : ICTKIT_FLAT_FALSE, NULL, 0);
    if (PyLong_Check(value)) {
        int overflow = 0;
        long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (number == -1 && PyErr_Occurred()) return -1;
        if (!overflow) {
            int64_t narrow = number;
            return flat_append(flat, ICTKIT_FLAT_INT64, &narrow, sizeof narrow);
        }
        if (overflow > 0) {
            unsigned long long big = PyLong_AsUnsignedLongLong(value);
            if (!(big == (unsigned long long)-1 && PyErr_Occurred())) {
                uint64_t narrow = big;
                return flat_append(flat, ICTKIT_FLAT_UINT64, &narrow, sizeof narrow);
            }
            PyErr_Clear();
        }
        PyErr_SetString(PyExc_OverflowError, "int out of range for a property list (-2**63 to 2**64 - 1)");
        return -1;
    }
    if (PyFloat_Check(value)) {
        double real = PyFloat_AS_DOUBLE(value);
        return flat_append(flat, ICTKIT_FLAT_REAL, &real, sizeof real);
    }
    if (PyBytes_Check(value)) return flat_run(flat, ICTKIT_FLAT_DATA, PyBytes_AS_STRING(value), PyBytes_GET_SIZE(value));
    if (PyByteArray_Check(value))
        return flat_run(flat, ICTKIT_FLAT_DATA, PyByteArray_AS_STRING(value), PyByteArray_GET_SIZE(value));
    int is_date = PyDateTime_Check(value) ? 1 : PyObject_IsInstance(value, datetime_class);
    if (is_date < 0) return -1;
    if (is_date) {
        double seconds;
        if (date_seconds(value, &seconds) < 0) return -1;
        return flat_append(flat, ICTKIT_FLAT_DATE, &seconds, sizeof seconds);
    }
    int is_uid = PyObject_IsInstance(value, uid_class);
    if (is_uid < 0) return -1;
    if (is_uid && options->allow_uid) return uid_to_flat(flat, value);
    PyErr_Format(PyExc_TypeError, "unsupported type: %R", (PyObject *)Py_TYPE(value));
    return -1;
}

static int flat_from_python(flat_buffer *flat, PyObject *value, const dump_options *options) {
    if (PyDict_Check(value) || PyList_Check(value) || PyTuple_Check(value)) {
        if (Py_EnterRecursiveCall(" while writing a property list")) return -1;
        int status = PyDict_Check(value) ? dict_to_flat(flat, value, options) : sequence_to_flat(flat, value, options);
        Py_LeaveRecursiveCall();
        return status;
    }
    return scalar_to_flat(flat, value, options);
}

/* dumps(value, format, sort_keys, skip_keys) -> bytes */
static PyObject *py_dumps(PyObject *self, PyObject *args) {
    PyObject *value;
    int format;
    dump_options options;
    if (!PyArg_ParseTuple(args, "Oipp", &value, &format, &options.sort_keys, &options.skip_keys)) return NULL;
    options.allow_uid = format == ICTKIT_FORMAT_BINARY;
    options.xml = format == ICTKIT_FORMAT_XML;
    flat_buffer flat = {NULL, 0, 0};
    /* The collector paused, as while loads builds: what is made meanwhile (key lists, sequences' fast copies) is
     * freed as it is finished, and a collection would walk the whole value being written for nothing. */
    int was_enabled = PyGC_Disable();
    int converted = flat_from_python(&flat, value, &options);
    if (was_enabled) PyGC_Enable();
    if (converted < 0) {
        PyMem_Free(flat.bytes);
        return NULL;
    }
    uint8_t *bytes = NULL;
    size_t length = 0;
    ictkit_error *error = NULL;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = ictkit_plist_write_flat(flat.bytes, flat.length, format, &bytes, &length, &error);
    Py_END_ALLOW_THREADS
    PyMem_Free(flat.bytes);
    if (status != 0) return raise_error(error);
    PyObject *result = PyBytes_FromStringAndSize((const char *)bytes, (Py_ssize_t)length);
    ictkit_bytes_free(bytes);
    return result;
}

/* configure(error_class, uid_class, datetime_class, date_from_seconds, seconds_from_date) */
static PyObject *py_configure(PyObject *self, PyObject *args) {
    PyObject *objects[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &objects[0], &objects[1], &objects[2], &objects[3], &objects[4])) return NULL;
    PyObject **slots[5] = {&error_class, &uid_class, &datetime_class, &date_from_seconds, &seconds_from_date};
    for (int index = 0; index < 5; index++) {
        Py_INCREF(objects[index]);
        Py_XSETREF(*slots[index], objects[index]);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"loads", py_loads, METH_VARARGS, "loads(data, format, dict_type, aware) -> value: decode a property list."},
    {"get", py_get, METH_VARARGS, "get(data, format, key_path, dict_type, aware, default): the value at a key path."},
    {"dumps", py_dumps, METH_VARARGS, "dumps(value, format, sort_keys, skip_keys) -> bytes: encode a property list."},
    {"configure", py_configure, METH_VARARGS, "configure(error, UID, datetime, date_from_seconds, seconds_from_date)."},
    ICTKIT_ARCHIVE_METHODS
    ICTKIT_COREDATA_METHODS
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ictkit", "ICTKit's C interface for Python.", -1, methods};

PyMODINIT_FUNC PyInit__ictkit(void) {
    PyDateTime_IMPORT;
    if (!PyDateTimeAPI) return NULL;
    return PyModule_Create(&module);
}
