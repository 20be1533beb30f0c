/*
 * _archive.c: keyed archives, typed streams and NIB archives for ictkit.archive. One call into libICTKitC decodes
 * the whole input with the GIL released and returns a value stream (ictkit.h, "Archives"); this file turns that
 * stream into Python objects in one pass, without calling back into the library per value.
 */
#include "_archive.h"

#include <string.h>

#include "_stream.h"
#include "ictkit.h"

/* What ictkit.archive hands over once: its exception class, plistlib's UID, and the date conversion. */
static PyObject *archive_error_class, *archive_uid_class, *archive_date;

typedef struct {
    ictkit_py_stream stream;
    /* The shared objects made so far ('D'), each holding a reference, NULL while its value is being made. */
    PyObject **slots;
    size_t slot_count, slot_capacity;
    /* Short mapping keys made so far, by a hash of their bytes: the same few keys ("class", "fields", ...) name
     * every object's members, and one str each is made once rather than per mapping. */
    PyObject *keys[128];
} reader;

static double as_double(uint64_t bits) {
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static PyObject *value_from(reader *input);

/* A shared object ('D', then its value): it takes the next slot, so each later 'R' of that slot gives it again. */
static PyObject *shared_from(reader *input) {
    if (input->slot_count == input->slot_capacity) {
        size_t capacity = input->slot_capacity ? input->slot_capacity * 2 : 64;
        PyObject **slots = PyMem_Realloc(input->slots, capacity * sizeof *slots);
        if (!slots) return PyErr_NoMemory();
        input->slots = slots;
        input->slot_capacity = capacity;
    }
    size_t slot = input->slot_count++;
    input->slots[slot] = NULL;
    PyObject *value = value_from(input);
    if (!value) return NULL;
    Py_INCREF(value);
    input->slots[slot] = value;
    return value;
}

/* A later naming of a shared object ('R', then its slot). */
static PyObject *reference_from(reader *input) {
    uint32_t slot;
    if (ictkit_py_take_u32(&input->stream, &slot) < 0) return NULL;
    if (slot >= input->slot_count || !input->slots[slot]) {
        PyErr_Format(PyExc_SystemError, "ictkit: a value stream names shared object %u before it is made", (unsigned)slot);
        return NULL;
    }
    return Py_NewRef(input->slots[slot]);
}

static void release_slots(reader *input) {
    for (size_t slot = 0; slot < input->slot_count; slot++) Py_XDECREF(input->slots[slot]);
    PyMem_Free(input->slots);
    for (size_t index = 0; index < sizeof input->keys / sizeof *input->keys; index++) Py_XDECREF(input->keys[index]);
}

/* A mapping's key: a short string is taken from the keys made so far when it was made before. */
static PyObject *key_from(reader *input) {
    const uint8_t *at = input->stream.bytes + input->stream.position;
    size_t left = input->stream.length - input->stream.position;
    if (left < 5 || at[0] != 's') return value_from(input);
    uint32_t length = (uint32_t)at[1] | (uint32_t)at[2] << 8 | (uint32_t)at[3] << 16 | (uint32_t)at[4] << 24;
    if (length > 32 || length > left - 5) return value_from(input);
    const uint8_t *bytes = at + 5;
    uint32_t hash = 2166136261u;
    for (uint32_t index = 0; index < length; index++) hash = (hash ^ bytes[index]) * 16777619u;
    PyObject **cached = &input->keys[hash % (sizeof input->keys / sizeof *input->keys)];
    if (*cached) {
        Py_ssize_t cached_length;
        const char *text = PyUnicode_AsUTF8AndSize(*cached, &cached_length);
        if (text && (size_t)cached_length == length && memcmp(text, bytes, length) == 0) {
            input->stream.position += 5 + length;
            return Py_NewRef(*cached);
        }
        PyErr_Clear();
    }
    PyObject *key = value_from(input);
    if (key && PyUnicode_CheckExact(key)) Py_XSETREF(*cached, Py_NewRef(key));
    return key;
}

/* A mapping's entry: a key that is not a string becomes its str() and one that cannot be hashed (a list or a
 * mapping, which an NSDictionary may hold) is dropped, and a key met again keeps its first value (nska's rules). */
static int add_entry(PyObject *dict, reader *input) {
    PyObject *key = key_from(input);
    if (!key) return -1;
    PyObject *value = value_from(input);
    if (!value) {
        Py_DECREF(key);
        return -1;
    }
    int result = 0;
    if (PyList_Check(key) || PyDict_Check(key)) goto done;
    if (!PyUnicode_Check(key)) {
        PyObject *text = PyObject_Str(key);
        if (!text) {
            result = -1;
            goto done;
        }
        Py_SETREF(key, text);
    }
    result = PyDict_SetDefault(dict, key, value) ? 0 : -1;
done:
    Py_DECREF(key);
    Py_DECREF(value);
    return result;
}

static PyObject *container_from(uint8_t tag, reader *input) {
    uint32_t count;
    if (ictkit_py_take_u32(&input->stream, &count) < 0) return NULL;
    /* Each value takes at least one byte: a count above what is left is not believed. */
    if (count > input->stream.length - input->stream.position) {
        PyErr_SetString(PyExc_SystemError, "ictkit: a value stream's count exceeds its bytes");
        return NULL;
    }
    if (tag == 'l') {
        PyObject *list = PyList_New((Py_ssize_t)count);
        if (!list) return NULL;
        for (uint32_t index = 0; index < count; index++) {
            PyObject *item = value_from(input);
            if (!item) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)index, item);
        }
        return list;
    }
    PyObject *dict = PyDict_New();
    if (!dict) return NULL;
    for (uint32_t index = 0; index < count; index++) {
        if (add_entry(dict, input) < 0) {
            Py_DECREF(dict);
            return NULL;
        }
    }
    return dict;
}

static PyObject *value_from(reader *input) {
    const uint8_t *tag, *bytes;
    uint32_t length;
    uint64_t word;
    if (ictkit_py_take(&input->stream, 1, &tag) < 0) return NULL;
    switch (*tag) {
    case 'n': Py_RETURN_NONE;
    case 't': Py_RETURN_TRUE;
    case 'f': Py_RETURN_FALSE;
    case 'i': return ictkit_py_take_u64(&input->stream, &word) < 0 ? NULL : PyLong_FromLongLong((long long)(int64_t)word);
    case 'u': return ictkit_py_take_u64(&input->stream, &word) < 0 ? NULL : PyLong_FromUnsignedLongLong((unsigned long long)word);
    case 'r': return ictkit_py_take_u64(&input->stream, &word) < 0 ? NULL : PyFloat_FromDouble(as_double(word));
    case 'd': return ictkit_py_take_u64(&input->stream, &word) < 0 ? NULL : PyObject_CallFunction(archive_date, "d", as_double(word));
    case 'U': return ictkit_py_take_u64(&input->stream, &word) < 0 ? NULL : PyObject_CallFunction(archive_uid_class, "K", (unsigned long long)word);
    case 's':
        if (ictkit_py_take_u32(&input->stream, &length) < 0 || ictkit_py_take(&input->stream, length, &bytes) < 0) return NULL;
        return PyUnicode_DecodeUTF8((const char *)bytes, (Py_ssize_t)length, "surrogatepass");
    case 'b':
        if (ictkit_py_take_u32(&input->stream, &length) < 0 || ictkit_py_take(&input->stream, length, &bytes) < 0) return NULL;
        return PyBytes_FromStringAndSize((const char *)bytes, (Py_ssize_t)length);
    case 'R': return reference_from(input);
    case 'l':
    case 'm':
    case 'D': {
        if (Py_EnterRecursiveCall(" while building an archive's values")) return NULL;
        PyObject *result = *tag == 'D' ? shared_from(input) : container_from(*tag, input);
        Py_LeaveRecursiveCall();
        return result;
    }
    default:
        PyErr_Format(PyExc_SystemError, "ictkit: unknown value-stream tag %d", (int)*tag);
        return NULL;
    }
}

/* Raises archive_error_class with the error's sentence and its place as attributes; frees the error. */
static PyObject *raise_archive_error(ictkit_error *error) { return ictkit_py_raise_error(archive_error_class, error); }

/* archive_decode(kind, data, form[, maximum_values]): kind 0 keyed archive, 1 typed stream, 2 NIB archive. */
PyObject *ictkit_py_archive_decode(PyObject *self, PyObject *args) {
    int kind, form;
    Py_ssize_t maximum_values = 0;
    Py_buffer buffer;
    if (!PyArg_ParseTuple(args, "iy*i|n", &kind, &buffer, &form, &maximum_values)) return NULL;
    if (maximum_values < 0) {
        PyBuffer_Release(&buffer);
        PyErr_SetString(PyExc_ValueError, "maximum_values must be positive (or 0 for the default)");
        return NULL;
    }
    if (!archive_error_class || !archive_uid_class || !archive_date) {
        PyBuffer_Release(&buffer);
        PyErr_SetString(PyExc_RuntimeError, "ictkit: archive_configure was not called");
        return NULL;
    }
    ictkit_error *error = NULL;
    ictkit_values *values = NULL;
    Py_BEGIN_ALLOW_THREADS
    switch (kind) {
    case 0: values = ictkit_keyed_archive_decode(buffer.buf, (size_t)buffer.len, form, (size_t)maximum_values, &error); break;
    case 1: values = ictkit_typedstream_decode(buffer.buf, (size_t)buffer.len, form, &error); break;
    case 2: values = ictkit_nib_archive_decode(buffer.buf, (size_t)buffer.len, form, &error); break;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buffer);
    if (kind < 0 || kind > 2) {
        PyErr_Format(PyExc_ValueError, "archive kind %d is not 0, 1 or 2", kind);
        return NULL;
    }
    if (!values) return raise_archive_error(error);
    reader input = {0};
    input.stream.bytes = ictkit_values_bytes(values, &input.stream.length);
    /* The values built have no cycle to collect (a shared object is shared, never inside itself): the collector
     * paused, as plistlib's loads does. */
    int was_enabled = PyGC_Disable();
    PyObject *result = value_from(&input);
    if (was_enabled) PyGC_Enable();
    release_slots(&input);
    ictkit_values_free(values);
    return result;
}

/* archive_configure(error_class, uid_class, date_from_seconds) */
PyObject *ictkit_py_archive_configure(PyObject *self, PyObject *args) {
    PyObject *objects[3];
    if (!PyArg_ParseTuple(args, "OOO", &objects[0], &objects[1], &objects[2])) return NULL;
    PyObject **slots[3] = {&archive_error_class, &archive_uid_class, &archive_date};
    for (int index = 0; index < 3; index++) {
        Py_INCREF(objects[index]);
        Py_XSETREF(*slots[index], objects[index]);
    }
    Py_RETURN_NONE;
}
