/*
 * _archive.h: the archive half of the _ictkit extension (keyed archives, typed streams, NIB archives), in
 * _archive.c; _ictkit.c lists these methods in its table.
 */
#ifndef ICTKIT_PY_ARCHIVE_H
#define ICTKIT_PY_ARCHIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ictkit.h"

/* Raises `exception_class` with `error`'s sentence and place as attributes and frees it; returns NULL (_ictkit.c). */
PyObject *ictkit_py_raise_error(PyObject *exception_class, ictkit_error *error);

PyObject *ictkit_py_archive_decode(PyObject *self, PyObject *args);
PyObject *ictkit_py_archive_configure(PyObject *self, PyObject *args);

#define ICTKIT_ARCHIVE_METHODS                                                                                      \
    {"archive_decode", ictkit_py_archive_decode, METH_VARARGS,                                                    \
     "archive_decode(kind, data, form[, maximum_values]): decode a keyed archive (0), typed stream (1) or NIB archive (2)."},       \
    {"archive_configure", ictkit_py_archive_configure, METH_VARARGS, "archive_configure(error, UID, date)."},

#endif
