/*
 * _ictkit: the C extension behind ictkit.plistlib. It turns the property-list trees of libICTKitC (ictkit.h)
 * into Python objects and back, in C, because building the objects is most of a decode's time: a ctypes call per
 * value would cost more than plistlib's whole pure-Python parse. The decode itself runs with the GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ictkit.h"
#include "_archive.h"

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

/* Dictionary keys repeat (every record of a file has the same few): one str object per distinct key of a
 * decode, looked up by its bytes, instead of a new str decoded for every occurrence. Values equal to plistlib's:
 * str objects are immutable, and plistlib's own keys are equal strings too. */
#define KEY_CACHE_SIZE 4096
struct key_cache {
    PyObject *keys[KEY_CACHE_SIZE];
};

static PyObject *cached_key(key_cache *cache, const char *text, size_t length) {
    if (length > 64) return PyUnicode_DecodeUTF8(text, (Py_ssize_t)length, "surrogatepass");
    uint32_t hash = 2166136261u;
    for (size_t index = 0; index < length; index++) hash = (hash ^ (unsigned char)text[index]) * 16777619u;
    PyObject **slot = &cache->keys[hash % KEY_CACHE_SIZE];
    if (*slot) {
        Py_ssize_t cached_length;
        const char *cached = PyUnicode_AsUTF8AndSize(*slot, &cached_length);
        if (cached && (size_t)cached_length == length && memcmp(cached, text, length) == 0) return Py_NewRef(*slot);
        PyErr_Clear();
    }
    PyObject *key = PyUnicode_DecodeUTF8(text, (Py_ssize_t)length, "surrogatepass");
    if (key) Py_XSETREF(*slot, Py_NewRef(key));
    return key;
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
        return PyObject_CallFunction(date_from_seconds, "di", ictkit_node_date(plist, node), options->aware);
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
            if (key && !value) note_step(key, 0);
            int failed = !value || (options->dict_type ? PyObject_SetItem(dict, key, value) : PyDict_SetItem(dict, key, value));
            Py_XDECREF(key);
            Py_XDECREF(value);
            if (failed) {
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

/* to_python with the cyclic garbage collector paused: the values built are a tree (no cycle to collect), and a
 * collection every few hundred new containers took a third of a large decode's time. */
static PyObject *build(const ictkit_plist *plist, ictkit_node node, load_options *options) {
    key_cache *cache = PyMem_Calloc(1, sizeof(key_cache));
    if (!cache) return PyErr_NoMemory();
    options->cache = cache;
    int was_enabled = PyGC_Disable();
    PyObject *value = to_python(plist, node, options);
    if (was_enabled) PyGC_Enable();
    for (size_t index = 0; index < KEY_CACHE_SIZE; index++) Py_XDECREF(cache->keys[index]);
    PyMem_Free(cache);
    return value;
}

/* Raises error_class with the error's sentence and its place as attributes; frees the error. */
static PyObject *raise_error(ictkit_error *error) {
    PyObject *exception = PyObject_CallFunction(error_class, "s", ictkit_error_description(error));
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
        PyErr_SetObject(error_class, exception);
        Py_DECREF(exception);
    }
    ictkit_error_free(error);
    return NULL;
}

/* loads(data, format, dict_type, aware) -> (value, format read) */
static PyObject *py_loads(PyObject *self, PyObject *args) {
    Py_buffer buffer;
    int format, aware;
    PyObject *dict_type;
    if (!PyArg_ParseTuple(args, "y*iOp", &buffer, &format, &dict_type, &aware)) return NULL;
    ictkit_error *error = NULL;
    int read_format = 0;
    ictkit_plist *plist;
    Py_BEGIN_ALLOW_THREADS
    plist = ictkit_plist_read(buffer.buf, (size_t)buffer.len, format, &read_format, &error);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buffer);
    if (!plist) return raise_error(error);
    load_options options = {NULL, dict_type == (PyObject *)&PyDict_Type ? NULL : dict_type, aware,
                            read_format == ICTKIT_FORMAT_XML};
    PyObject *value = build(plist, ictkit_plist_root(plist), &options);
    ictkit_plist_free(plist);
    if (!value) return NULL;
    return Py_BuildValue("(Ni)", value, read_format);
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
    PyObject *value = node == ICTKIT_NO_NODE ? Py_NewRef(fallback) : build(plist, node, &options);
    ictkit_plist_free(plist);
    return value;
}

/* The options of one dumps call. */
typedef struct {
    int sort_keys, skip_keys, allow_uid, xml;
} dump_options;


static ictkit_node from_python(ictkit_plist *plist, PyObject *value, const dump_options *options);

static ictkit_node dict_from_python(ictkit_plist *plist, PyObject *dict, const dump_options *options) {
    PyObject *items = PyMapping_Items(dict);
    if (!items) return ICTKIT_NO_NODE;
    if (options->sort_keys && PyList_Sort(items) < 0) {
        /* Keys that cannot be ordered (a str beside an int): TypeError, as sorted(items) raises in plistlib. */
        Py_DECREF(items);
        return ICTKIT_NO_NODE;
    }
    Py_ssize_t count = PyList_GET_SIZE(items);
    ictkit_node *keys = PyMem_Malloc(sizeof(ictkit_node) * (size_t)(count + 1));
    ictkit_node *values = PyMem_Malloc(sizeof(ictkit_node) * (size_t)(count + 1));
    Py_ssize_t kept = 0;
    ictkit_node result = ICTKIT_NO_NODE;
    if (!keys || !values) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t index = 0; index < count; index++) {
        PyObject *item = PyList_GET_ITEM(items, index);
        PyObject *key = PyTuple_GET_ITEM(item, 0);
        if (!PyUnicode_Check(key)) {
            if (options->skip_keys) continue;
            PyErr_SetString(PyExc_TypeError, "keys must be strings");
            goto done;
        }
        keys[kept] = from_python(plist, key, options);
        if (keys[kept] == ICTKIT_NO_NODE) goto done;
        values[kept] = from_python(plist, PyTuple_GET_ITEM(item, 1), options);
        if (values[kept] == ICTKIT_NO_NODE) goto done;
        kept++;
    }
    result = ictkit_plist_add_dict(plist, keys, values, (size_t)kept);
done:
    PyMem_Free(keys);
    PyMem_Free(values);
    Py_DECREF(items);
    return result;
}

static ictkit_node sequence_from_python(ictkit_plist *plist, PyObject *sequence, const dump_options *options) {
    PyObject *fast = PySequence_Fast(sequence, "not a sequence");
    if (!fast) return ICTKIT_NO_NODE;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    ictkit_node *items = PyMem_Malloc(sizeof(ictkit_node) * (size_t)(count + 1));
    ictkit_node result = ICTKIT_NO_NODE;
    if (!items) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t index = 0; index < count; index++) {
        items[index] = from_python(plist, PySequence_Fast_GET_ITEM(fast, index), options);
        if (items[index] == ICTKIT_NO_NODE) goto done;
    }
    result = ictkit_plist_add_array(plist, items, (size_t)count);
done:
    PyMem_Free(items);
    Py_DECREF(fast);
    return result;
}

static ictkit_node scalar_from_python(ictkit_plist *plist, PyObject *value, const dump_options *options) {
    if (PyUnicode_Check(value)) {
        Py_ssize_t length;
        const char *text = PyUnicode_AsUTF8AndSize(value, &length);
        if (!text) return ICTKIT_NO_NODE;
        /* XML 1.0 has no other control characters than tab, line feed and carriage return (plistlib's rule). */
        for (Py_ssize_t index = 0; options->xml && index < length; index++) {
            unsigned char byte = (unsigned char)text[index];
            if (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') {
                PyErr_SetString(PyExc_ValueError, "strings can't contain control characters; use bytes instead");
                return ICTKIT_NO_NODE;
            }
        }
        return ictkit_plist_add_string(plist, text, (size_t)length);
    }
    if (PyBool_Check(value)) return ictkit_plist_add_bool(plist, value == Py_True);
    if (PyLong_Check(value)) {
        int overflow = 0;
        long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (number == -1 && PyErr_Occurred()) return ICTKIT_NO_NODE;
        if (!overflow) return ictkit_plist_add_int64(plist, number);
        if (overflow > 0) {
            unsigned long long big = PyLong_AsUnsignedLongLong(value);
            if (!(big == (unsigned long long)-1 && PyErr_Occurred())) return ictkit_plist_add_uint64(plist, big);
            PyErr_Clear();
        }
        PyErr_SetString(PyExc_OverflowError, "int out of range for a property list (-2**63 to 2**64 - 1)");
        return ICTKIT_NO_NODE;
    }
    if (PyFloat_Check(value)) return ictkit_plist_add_real(plist, PyFloat_AS_DOUBLE(value));
    if (PyBytes_Check(value)) return ictkit_plist_add_data(plist, PyBytes_AS_STRING(value), (size_t)PyBytes_GET_SIZE(value));
    if (PyByteArray_Check(value))
        return ictkit_plist_add_data(plist, PyByteArray_AS_STRING(value), (size_t)PyByteArray_GET_SIZE(value));
    int is_uid = PyObject_IsInstance(value, uid_class);
    if (is_uid < 0) return ICTKIT_NO_NODE;
    if (is_uid && options->allow_uid) {
        PyObject *data = PyObject_GetAttrString(value, "data");
        if (!data) return ICTKIT_NO_NODE;
        PyObject *zero = PyLong_FromLong(0);
        int negative = zero ? PyObject_RichCompareBool(data, zero, Py_LT) : -1;
        Py_XDECREF(zero);
        if (negative != 0) {
            Py_DECREF(data);
            if (negative > 0) PyErr_SetString(PyExc_ValueError, "UIDs must be positive");
            return ICTKIT_NO_NODE;
        }
        unsigned long long number = PyLong_AsUnsignedLongLong(data);
        Py_DECREF(data);
        if (number == (unsigned long long)-1 && PyErr_Occurred()) return ICTKIT_NO_NODE;
        return ictkit_plist_add_uid(plist, number);
    }
    int is_date = is_uid ? 0 : PyObject_IsInstance(value, datetime_class);
    if (is_date < 0) return ICTKIT_NO_NODE;
    if (is_date) {
        PyObject *seconds = PyObject_CallOneArg(seconds_from_date, value);
        if (!seconds) return ICTKIT_NO_NODE;
        double number = PyFloat_AsDouble(seconds);
        Py_DECREF(seconds);
        if (number == -1.0 && PyErr_Occurred()) return ICTKIT_NO_NODE;
        return ictkit_plist_add_date(plist, number);
    }
    PyErr_Format(PyExc_TypeError, "unsupported type: %R", (PyObject *)Py_TYPE(value));
    return ICTKIT_NO_NODE;
}

static ictkit_node from_python(ictkit_plist *plist, PyObject *value, const dump_options *options) {
    if (PyDict_Check(value) || PyList_Check(value) || PyTuple_Check(value)) {
        if (Py_EnterRecursiveCall(" while writing a property list")) return ICTKIT_NO_NODE;
        ictkit_node node =
            PyDict_Check(value) ? dict_from_python(plist, value, options) : sequence_from_python(plist, value, options);
        Py_LeaveRecursiveCall();
        return node;
    }
    return scalar_from_python(plist, value, options);
}

/* dumps(value, format, sort_keys, skip_keys) -> bytes */
static PyObject *py_dumps(PyObject *self, PyObject *args) {
    PyObject *value;
    int format;
    dump_options options;
    if (!PyArg_ParseTuple(args, "Oipp", &value, &format, &options.sort_keys, &options.skip_keys)) return NULL;
    options.allow_uid = format == ICTKIT_FORMAT_BINARY;
    options.xml = format == ICTKIT_FORMAT_XML;
    ictkit_plist *plist = ictkit_plist_create();
    ictkit_node root = from_python(plist, value, &options);
    if (root == ICTKIT_NO_NODE) {
        ictkit_plist_free(plist);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "ictkit: the value cannot be written");
        return NULL;
    }
    uint8_t *bytes = NULL;
    size_t length = 0;
    ictkit_error *error = NULL;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = ictkit_plist_write(plist, root, format, &bytes, &length, &error);
    Py_END_ALLOW_THREADS
    ictkit_plist_free(plist);
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
    {"loads", py_loads, METH_VARARGS, "loads(data, format, dict_type, aware) -> (value, format): decode a property list."},
    {"get", py_get, METH_VARARGS, "get(data, format, key_path, dict_type, aware, default): the value at a key path."},
    {"dumps", py_dumps, METH_VARARGS, "dumps(value, format, sort_keys, skip_keys) -> bytes: encode a property list."},
    {"configure", py_configure, METH_VARARGS, "configure(error, UID, datetime, date_from_seconds, seconds_from_date)."},
    ICTKIT_ARCHIVE_METHODS
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ictkit", "ICTKit's C interface for Python.", -1, methods};

PyMODINIT_FUNC PyInit__ictkit(void) { return PyModule_Create(&module); }
