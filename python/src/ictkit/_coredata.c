/*
 * _coredata.c: Core Data stores for ictkit.coredata. A store is opened with the GIL released; a cursor reads a
 * batch of objects per call into libICTKitC's object stream (ictkit.h, "Core Data stores") with the GIL released,
 * and this file turns the batch into a list of dicts in one pass, without calling back into the library per value.
 */
#include "_coredata.h"

#include <datetime.h>
#include <math.h>
#include <string.h>

#include "_stream.h"
#include "ictkit.h"

/* What ictkit.coredata hands over once: its exception class and the classes of decimals, UUIDs and external data. */
static PyObject *store_error_class, *decimal_class, *uuid_class, *external_class;
static PyObject *object_id_key, *entity_key;

static const char STORE_CAPSULE[] = "ictkit.store", CURSOR_CAPSULE[] = "ictkit.store_cursor";

/* Raises StoreError with the error's sentence and its place as attributes (code, reason, table, row, column,
 * byte_offset, key_path); frees the error. */
static PyObject *raise_store_error(ictkit_error *error) {
    if (!error) {
        PyErr_SetString(PyExc_SystemError, "ictkit: a store call failed without an error");
        return NULL;
    }
    PyObject *exception = PyObject_CallFunction(store_error_class, "s", ictkit_error_description(error));
    if (exception) {
        PyObject *attributes = Py_BuildValue(
            "{s:s,s:s,s:s,s:L,s:s,s:L,s:s}", "code", ictkit_error_code(error), "reason", ictkit_error_message(error),
            "table", ictkit_error_table(error), "row", (long long)ictkit_error_row(error), "column",
            ictkit_error_table_column(error), "byte_offset", (long long)ictkit_error_byte_offset(error), "key_path",
            ictkit_error_key_path(error));
        if (attributes) {
            PyObject *key, *value;
            Py_ssize_t position = 0;
            while (PyDict_Next(attributes, &position, &key, &value)) PyObject_SetAttr(exception, key, value);
            Py_DECREF(attributes);
        }
        PyErr_SetObject(store_error_class, exception);
        Py_DECREF(exception);
    }
    ictkit_error_free(error);
    return NULL;
}

/* Raises StoreError for a value this file cannot make a Python object of (a date beyond datetime's years). */
static PyObject *raise_value_error(PyObject *table, long long row, PyObject *column, const char *reason) {
    PyObject *exception = PyObject_CallFunction(store_error_class, "s", reason);
    if (exception) {
        PyObject *attributes = Py_BuildValue("{s:s,s:s,s:O,s:L,s:O}", "code", "store", "reason", reason, "table", table, "row", row,
                                             "column", column);
        if (attributes) {
            PyObject *key, *value;
            Py_ssize_t position = 0;
            while (PyDict_Next(attributes, &position, &key, &value)) PyObject_SetAttr(exception, key, value);
            Py_DECREF(attributes);
        }
        PyErr_SetObject(store_error_class, exception);
        Py_DECREF(exception);
    }
    return NULL;
}

static void store_destructor(PyObject *capsule) { ictkit_store_free(PyCapsule_GetPointer(capsule, STORE_CAPSULE)); }

/* store_open(path) -> (store, description_json) */
PyObject *ictkit_py_store_open(PyObject *self, PyObject *args) {
    PyObject *path;
    if (!store_error_class) {
        PyErr_SetString(PyExc_RuntimeError, "ictkit: coredata_configure was not called");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path)) return NULL;
    if (memchr(PyBytes_AS_STRING(path), 0, (size_t)PyBytes_GET_SIZE(path))) {
        Py_DECREF(path);
        PyErr_SetString(PyExc_ValueError, "embedded null byte in the path");
        return NULL;
    }
    ictkit_error *error = NULL;
    ictkit_store *store;
    Py_BEGIN_ALLOW_THREADS
    store = ictkit_store_open(PyBytes_AS_STRING(path), &error);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (!store) return raise_store_error(error);
    size_t length = 0;
    const char *description = ictkit_store_description(store, &length);
    PyObject *capsule = PyCapsule_New(store, STORE_CAPSULE, store_destructor);
    if (!capsule) {
        ictkit_store_free(store);
        return NULL;
    }
    PyObject *text = PyUnicode_DecodeUTF8(description, (Py_ssize_t)length, "replace");
    if (!text) {
        Py_DECREF(capsule);
        return NULL;
    }
    return Py_BuildValue("(NN)", capsule, text);
}

/* A cursor and what turning its batches into dicts needs, per entity of the store (by its index). */
typedef struct {
    ictkit_store_cursor *cursor;
    Py_ssize_t entity_count;
    PyObject *store_prefix; /* "x-coredata://UUID/" as UTF-8 bytes */
    PyObject **names;       /* entity names (str) */
    PyObject **tables;      /* entity tables (str), for errors */
    PyObject **prefixes;    /* "x-coredata://UUID/Entity/p" as UTF-8 bytes */
    PyObject **keys;        /* the names of an entity's values: a tuple of str, NULL until its 'e' record */
    PyObject **templates;   /* an entity's dict with every key and None: copied for each object */
    char *scratch;          /* room for the longest URI */
    size_t scratch_size;
} cursor_state;

static void cursor_destructor(PyObject *capsule) {
    cursor_state *state = PyCapsule_GetPointer(capsule, CURSOR_CAPSULE);
    if (!state) return;
    ictkit_store_cursor_free(state->cursor);
    for (Py_ssize_t index = 0; index < state->entity_count; index++) {
        Py_XDECREF(state->names[index]);
        Py_XDECREF(state->tables[index]);
        Py_XDECREF(state->prefixes[index]);
        Py_XDECREF(state->keys[index]);
        Py_XDECREF(state->templates[index]);
    }
    Py_XDECREF(state->store_prefix);
    PyMem_Free(state->names);
    PyMem_Free(state->scratch);
    PyMem_Free(state);
}

/* store_cursor(store, store_prefix, entity_names, entity_tables) -> cursor */
PyObject *ictkit_py_store_cursor(PyObject *self, PyObject *args) {
    PyObject *store_capsule, *store_prefix, *names, *tables;
    if (!PyArg_ParseTuple(args, "OUO!O!", &store_capsule, &store_prefix, &PyList_Type, &names, &PyList_Type, &tables)) return NULL;
    ictkit_store *store = PyCapsule_GetPointer(store_capsule, STORE_CAPSULE);
    if (!store) return NULL;
    Py_ssize_t count = PyList_GET_SIZE(names);
    if (PyList_GET_SIZE(tables) != count) {
        PyErr_SetString(PyExc_ValueError, "as many tables as entities");
        return NULL;
    }
    cursor_state *state = PyMem_Calloc(1, sizeof *state);
    if (!state) return PyErr_NoMemory();
    state->names = PyMem_Calloc((size_t)(count > 0 ? count : 1) * 5, sizeof(PyObject *));
    if (!state->names) {
        PyMem_Free(state);
        return PyErr_NoMemory();
    }
    state->tables = state->names + count;
    state->prefixes = state->tables + count;
    state->keys = state->prefixes + count;
    state->templates = state->keys + count;
    state->entity_count = count;
    PyObject *capsule = PyCapsule_New(state, CURSOR_CAPSULE, cursor_destructor);
    if (!capsule) {
        PyMem_Free(state->names);
        PyMem_Free(state);
        return NULL;
    }
    state->store_prefix = PyUnicode_AsUTF8String(store_prefix);
    if (!state->store_prefix) goto fail;
    size_t longest = 0;
    for (Py_ssize_t index = 0; index < count; index++) {
        PyObject *name = PyList_GET_ITEM(names, index), *table = PyList_GET_ITEM(tables, index);
        if (!PyUnicode_Check(name) || !PyUnicode_Check(table)) {
            PyErr_SetString(PyExc_TypeError, "entity names and tables are str");
            goto fail;
        }
        Py_INCREF(name);
        state->names[index] = name;
        Py_INCREF(table);
        state->tables[index] = table;
        state->prefixes[index] = PyBytes_FromFormat("%s%s/p", PyBytes_AS_STRING(state->store_prefix), PyUnicode_AsUTF8(name));
        if (!state->prefixes[index]) goto fail;
        if ((size_t)PyBytes_GET_SIZE(state->prefixes[index]) > longest) longest = (size_t)PyBytes_GET_SIZE(state->prefixes[index]);
    }
    state->scratch_size = longest + 32;
    state->scratch = PyMem_Malloc(state->scratch_size);
    if (!state->scratch) {
        PyErr_NoMemory();
        goto fail;
    }
    state->cursor = ictkit_store_cursor_open(store);
    return capsule;
fail:
    Py_DECREF(capsule);
    return NULL;
}

typedef ictkit_py_stream reader;

static int take_text(reader *input, const char **text, uint32_t *length) {
    const uint8_t *bytes;
    if (ictkit_py_take_u32(input, length) < 0 || ictkit_py_take(input, *length, &bytes) < 0) return -1;
    *text = (const char *)bytes;
    return 0;
}

static int take_entity(cursor_state *state, reader *input, uint32_t *entity) {
    if (ictkit_py_take_u32(input, entity) < 0) return -1;
    if ((Py_ssize_t)*entity >= state->entity_count) {
        PyErr_SetString(PyExc_SystemError, "ictkit: an object stream names an entity the store does not list");
        return -1;
    }
    return 0;
}

/* The URI x-coredata://UUID/Entity/pKEY from its prefix (up to "/p") and key. */
static PyObject *uri(cursor_state *state, const char *prefix, size_t prefix_length, int64_t key) {
    /* The key's decimal digits, written from the end (snprintf costs more than the rest of the object ID). */
    char buffer[24];
    char *end = buffer + sizeof buffer, *digits = end;
    uint64_t magnitude = key < 0 ? (uint64_t)0 - (uint64_t)key : (uint64_t)key;
    do {
        *--digits = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (key < 0) *--digits = '-';
    int count = (int)(end - digits);
    if (prefix_length + (size_t)count > state->scratch_size) {
        char *larger = PyMem_Realloc(state->scratch, prefix_length + (size_t)count);
        if (!larger) return PyErr_NoMemory();
        state->scratch = larger;
        state->scratch_size = prefix_length + (size_t)count;
    }
    memcpy(state->scratch, prefix, prefix_length);
    memcpy(state->scratch + prefix_length, digits, (size_t)count);
    return PyUnicode_DecodeUTF8(state->scratch, (Py_ssize_t)(prefix_length + (size_t)count), "replace");
}

static PyObject *object_id(cursor_state *state, reader *input) {
    const uint8_t *tag;
    if (ictkit_py_take(input, 1, &tag) < 0) return NULL;
    uint64_t key;
    if (*tag == 'I') {
        uint32_t entity;
        if (take_entity(state, input, &entity) < 0 || ictkit_py_take_u64(input, &key) < 0) return NULL;
        PyObject *prefix = state->prefixes[entity];
        return uri(state, PyBytes_AS_STRING(prefix), (size_t)PyBytes_GET_SIZE(prefix), (int64_t)key);
    }
    if (*tag == 'J') {
        const char *name;
        uint32_t length;
        if (take_text(input, &name, &length) < 0 || ictkit_py_take_u64(input, &key) < 0) return NULL;
        PyObject *prefix = PyBytes_FromFormat("%s%.*s/p", PyBytes_AS_STRING(state->store_prefix), (int)length, name);
        if (!prefix) return NULL;
        PyObject *result = uri(state, PyBytes_AS_STRING(prefix), (size_t)PyBytes_GET_SIZE(prefix), (int64_t)key);
        Py_DECREF(prefix);
        return result;
    }
    PyErr_Format(PyExc_SystemError, "ictkit: object ID tag %d in an object stream", *tag);
    return NULL;
}

/* Seconds since 2001-01-01 as datetime(2001, 1, 1) + timedelta(seconds=seconds) makes them: the whole seconds and
 * whole microseconds of the fraction exactly, what is left rounded half to even (CPython's delta_new), so the
 * datetime is the one Python's own arithmetic gives. Returns 0 and sets the parts, or -1 when out of datetime's
 * years 1 to 9999. */
static int civil_time(double seconds, int *year, int *month, int *day, int *hour, int *minute, int *second, int *microsecond) {
    if (!isfinite(seconds) || fabs(seconds) > 4.0e11) return -1;
    double whole, micro_whole;
    double fraction = modf(seconds, &whole);
    int64_t microseconds = (int64_t)whole * 1000000;
    double leftover = modf(fraction * 1e6, &micro_whole);
    microseconds += (int64_t)micro_whole;
    if (leftover != 0) {
        double rounded = round(leftover);
        if (fabs(rounded - leftover) == 0.5) {
            int odd = (int)(microseconds & 1);
            rounded = 2.0 * round((leftover + odd) * 0.5) - odd;
        }
        microseconds += (int64_t)rounded;
    }
    const int64_t per_day = 86400000000LL;
    int64_t days = microseconds / per_day, rest = microseconds % per_day;
    if (rest < 0) {
        rest += per_day;
        days -= 1;
    }
    /* Days since 1970-01-01 (2001-01-01 is day 11323), to a proleptic Gregorian date (H. Hinnant's civil_from_days). */
    int64_t z = days + 11323 + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) y += 1;
    if (y < 1 || y > 9999) return -1;
    *year = (int)y;
    *month = (int)m;
    *day = (int)d;
    *hour = (int)(rest / 3600000000LL);
    *minute = (int)(rest / 60000000LL % 60);
    *second = (int)(rest / 1000000 % 60);
    *microsecond = (int)(rest % 1000000);
    return 0;
}

static PyObject *call_with_text(PyObject *class, reader *input) {
    const char *text;
    uint32_t length;
    if (take_text(input, &text, &length) < 0) return NULL;
    PyObject *string = PyUnicode_DecodeUTF8(text, length, "replace");
    if (!string) return NULL;
    PyObject *result = PyObject_CallOneArg(class, string);
    Py_DECREF(string);
    return result;
}

/* One value of an object of `entity`, the value of `key`. */
static PyObject *value_from(cursor_state *state, reader *input, uint32_t entity, int64_t row, PyObject *key) {
    const uint8_t *tag, *bytes;
    uint64_t word;
    uint32_t length;
    const char *text;
    double number;
    if (ictkit_py_take(input, 1, &tag) < 0) return NULL;
    switch (*tag) {
    case 'n': Py_RETURN_NONE;
    case 't': Py_RETURN_TRUE;
    case 'f': Py_RETURN_FALSE;
    case 'i':
        if (ictkit_py_take_u64(input, &word) < 0) return NULL;
        return PyLong_FromLongLong((long long)(int64_t)word);
    case 'r':
    case 'd': {
        if (ictkit_py_take_u64(input, &word) < 0) return NULL;
        memcpy(&number, &word, sizeof number);
        if (*tag == 'r') return PyFloat_FromDouble(number);
        int year, month, day, hour, minute, second, microsecond;
        if (civil_time(number, &year, &month, &day, &hour, &minute, &second, &microsecond) < 0)
            return raise_value_error(state->tables[entity], row, key, "a date beyond the years 1 to 9999 that datetime holds");
        return PyDateTime_FromDateAndTime(year, month, day, hour, minute, second, microsecond);
    }
    case 's':
        if (take_text(input, &text, &length) < 0) return NULL;
        return PyUnicode_DecodeUTF8(text, length, "replace");
    case 'b':
        if (ictkit_py_take_u32(input, &length) < 0 || ictkit_py_take(input, length, &bytes) < 0) return NULL;
        return PyBytes_FromStringAndSize((const char *)bytes, length);
    case 'D': return call_with_text(decimal_class, input);
    case 'V': return call_with_text(uuid_class, input);
    case 'X': return call_with_text(external_class, input);
    case 'I':
    case 'J':
        input->position -= 1;
        return object_id(state, input);
    case 'l': {
        if (ictkit_py_take_u32(input, &length) < 0) return NULL;
        /* Each object ID is at least 13 bytes: a count the stream cannot hold is refused before the list is made. */
        if (length > (input->length - input->position) / 13) {
            PyErr_SetString(PyExc_SystemError, "ictkit: an object stream ended early");
            return NULL;
        }
        PyObject *list = PyList_New(length);
        if (!list) return NULL;
        for (uint32_t index = 0; index < length; index++) {
            PyObject *item = object_id(state, input);
            if (!item) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, index, item);
        }
        return list;
    }
    }
    PyErr_Format(PyExc_SystemError, "ictkit: value tag %d in an object stream", *tag);
    return NULL;
}

/* An 'e' record: the names of an entity's values, kept as a tuple and as a template dict. */
static int announce(cursor_state *state, reader *input) {
    uint32_t entity, count;
    if (take_entity(state, input, &entity) < 0 || ictkit_py_take_u32(input, &count) < 0) return -1;
    if (count > (input->length - input->position) / 4) {
        PyErr_SetString(PyExc_SystemError, "ictkit: an object stream ended early");
        return -1;
    }
    PyObject *keys = PyTuple_New(count);
    PyObject *template = PyDict_New();
    if (!keys || !template) goto fail;
    if (PyDict_SetItem(template, object_id_key, Py_None) < 0 || PyDict_SetItem(template, entity_key, Py_None) < 0) goto fail;
    for (uint32_t index = 0; index < count; index++) {
        const char *text;
        uint32_t length;
        if (take_text(input, &text, &length) < 0) goto fail;
        PyObject *name = PyUnicode_DecodeUTF8(text, length, "replace");
        if (!name) goto fail;
        PyUnicode_InternInPlace(&name);
        PyTuple_SET_ITEM(keys, index, name);
        if (PyDict_SetItem(template, name, Py_None) < 0) goto fail;
    }
    Py_XSETREF(state->keys[entity], keys);
    Py_XSETREF(state->templates[entity], template);
    return 0;
fail:
    Py_XDECREF(keys);
    Py_XDECREF(template);
    return -1;
}

/* An 'o' record: one object as a dict {"objectID", "entity", then its values by name}. */
static PyObject *object_from(cursor_state *state, reader *input) {
    uint32_t entity;
    uint64_t key;
    if (take_entity(state, input, &entity) < 0 || ictkit_py_take_u64(input, &key) < 0) return NULL;
    if (!state->templates[entity]) {
        PyErr_SetString(PyExc_SystemError, "ictkit: an object before its entity's names in an object stream");
        return NULL;
    }
    PyObject *object = PyDict_Copy(state->templates[entity]);
    if (!object) return NULL;
    PyObject *keys = state->keys[entity];
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(keys); index++) {
        PyObject *name = PyTuple_GET_ITEM(keys, index);
        PyObject *value = value_from(state, input, entity, (int64_t)key, name);
        if (!value || PyDict_SetItem(object, name, value) < 0) {
            Py_XDECREF(value);
            Py_DECREF(object);
            return NULL;
        }
        Py_DECREF(value);
    }
    /* Set last: a property of either name (which Core Data forbids, as NSManagedObject's own) gives way. */
    PyObject *prefix = state->prefixes[entity];
    PyObject *id = uri(state, PyBytes_AS_STRING(prefix), (size_t)PyBytes_GET_SIZE(prefix), (int64_t)key);
    if (!id || PyDict_SetItem(object, object_id_key, id) < 0 || PyDict_SetItem(object, entity_key, state->names[entity]) < 0) {
        Py_XDECREF(id);
        Py_DECREF(object);
        return NULL;
    }
    Py_DECREF(id);
    return object;
}

/* store_next(cursor, count) -> [object, ...]: the next `count` objects at most; [] at the end. */
PyObject *ictkit_py_store_next(PyObject *self, PyObject *args) {
    PyObject *capsule;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "On", &capsule, &count)) return NULL;
    cursor_state *state = PyCapsule_GetPointer(capsule, CURSOR_CAPSULE);
    if (!state) return NULL;
    const uint8_t *bytes = NULL;
    size_t length = 0;
    ictkit_error *error = NULL;
    int64_t read;
    Py_BEGIN_ALLOW_THREADS
    read = ictkit_store_cursor_next(state->cursor, count > 0 ? (size_t)count : 1, &bytes, &length, &error);
    Py_END_ALLOW_THREADS
    if (read < 0) return raise_store_error(error);
    PyObject *list = PyList_New(read);
    if (!list) return NULL;
    reader input = {bytes, length, 0};
    Py_ssize_t made = 0;
    /* The dicts built hold no cycle: the collector paused while they are made, as plistlib's loads does. */
    int was_enabled = PyGC_Disable();
    while (input.position < input.length) {
        const uint8_t *tag;
        if (ictkit_py_take(&input, 1, &tag) < 0) goto fail;
        if (*tag == 'e') {
            if (announce(state, &input) < 0) goto fail;
        } else if (*tag == 'o' && made < read) {
            PyObject *object = object_from(state, &input);
            if (!object) goto fail;
            PyList_SET_ITEM(list, made++, object);
        } else {
            PyErr_Format(PyExc_SystemError, "ictkit: record tag %d in an object stream", *tag);
            goto fail;
        }
    }
    if (was_enabled) PyGC_Enable();
    if (made != read) {
        Py_DECREF(list);
        PyErr_SetString(PyExc_SystemError, "ictkit: an object stream holds fewer objects than it says");
        return NULL;
    }
    return list;
fail:
    if (was_enabled) PyGC_Enable();
    Py_DECREF(list);
    return NULL;
}

/* coredata_configure(error_class, Decimal, UUID, ExternalData) */
PyObject *ictkit_py_coredata_configure(PyObject *self, PyObject *args) {
    PyObject *objects[4];
    if (!PyArg_ParseTuple(args, "OOOO", &objects[0], &objects[1], &objects[2], &objects[3])) return NULL;
    PyDateTime_IMPORT;
    if (!PyDateTimeAPI) return NULL;
    if (!object_id_key) object_id_key = PyUnicode_InternFromString("objectID");
    if (!entity_key) entity_key = PyUnicode_InternFromString("entity");
    if (!object_id_key || !entity_key) return NULL;
    PyObject **slots[4] = {&store_error_class, &decimal_class, &uuid_class, &external_class};
    for (int index = 0; index < 4; index++) {
        Py_INCREF(objects[index]);
        Py_XSETREF(*slots[index], objects[index]);
    }
    Py_RETURN_NONE;
}
