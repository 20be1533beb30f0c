/*
 * _coredata.h: the Core Data half of the _ictkit extension (stores read object by object), in _coredata.c;
 * _ictkit.c lists these methods in its table.
 */
#ifndef ICTKIT_PY_COREDATA_H
#define ICTKIT_PY_COREDATA_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *ictkit_py_store_open(PyObject *self, PyObject *args);
PyObject *ictkit_py_store_cursor(PyObject *self, PyObject *args);
PyObject *ictkit_py_store_next(PyObject *self, PyObject *args);
PyObject *ictkit_py_coredata_configure(PyObject *self, PyObject *args);

#define ICTKIT_COREDATA_METHODS                                                                                    \
    {"store_open", ictkit_py_store_open, METH_VARARGS, "store_open(path) -> (store, description_json)."},          \
    {"store_cursor", ictkit_py_store_cursor, METH_VARARGS, "store_cursor(store, uri_prefixes, entity_names)."},   \
    {"store_next", ictkit_py_store_next, METH_VARARGS, "store_next(cursor, count) -> list of objects."},           \
    {"coredata_configure", ictkit_py_coredata_configure, METH_VARARGS,                                           \
     "coredata_configure(error, Decimal, UUID, ExternalData)."},

#endif
