"""Core Data stores read by ICTKit, without Core Data and without writing to them.

``open(path)`` opens a store (an SQLite file Core Data wrote) read-only: neither it nor its ``-wal`` or ``-shm``
is ever written, and what is committed in its ``-wal`` is read. The ``Store`` gives its UUID, its entities, the
model the store caches (``Z_MODELCACHE``) and its objects: iterating it (or ``store.objects()``) yields one dict
per object, table by table and by primary key::

    {"objectID": "x-coredata://STORE-UUID/Note/p12", "entity": "Note", "title": "...", "folder": "x-coredata://..."}

Values are typed by the model: ``int``, ``float``, ``bool``, ``str`` (strings and URIs), naive UTC ``datetime``
(``datetime(2001, 1, 1) + timedelta(seconds=stored)``), ``bytes`` (binary data, and a transformable's stored bytes,
undecoded: ``ictkit.archive.deserialize_plist_from_string`` reads a keyed archive), ``decimal.Decimal``,
``uuid.UUID``, ``ExternalData`` (the file name of binary data kept outside the store), ``None``. A to-one
relationship is its destination's object ID (its URI, a ``str``), a to-many one a list of them (in order for an
ordered one). A store without a readable model cache gives each column of its tables as SQLite stores it.

The objects are read in batches (``batch_size``, 1024 by default) in ICTKit's C library with the GIL released, one
SQLite row at a time: memory stays constant whatever the store's size. A store that cannot be read raises
``StoreError`` (a ``ValueError``) saying where: ``table``, ``row`` (the primary key) and ``column``, or
``byte_offset`` (a file that is not SQLite), or ``key_path`` (an entity and property of the model). Several threads
may iterate one store at once (each batch takes the store's lock); distinct stores are read in parallel.
"""

import decimal as _decimal
import json as _json
import os as _os
import uuid as _uuid

from . import _ictkit

__all__ = ["StoreError", "ExternalData", "Store", "open"]


class StoreError(ValueError):
    """A store that cannot be read, and where.

    Attributes: ``code`` (``"store"`` for a problem in a table, ``"notSQLite"``, ``"model"``, ``"file"``),
    ``reason`` (the sentence without its place), ``table``, ``row`` (the primary key, ``Z_PK``; or -1) and
    ``column`` (the table's column; for a date beyond the years ``datetime`` holds, the property's name; ``""`` when
    not known), ``byte_offset`` (0 for a file that is not SQLite, else -1), ``key_path`` (``"Entity.property"`` for a
    model problem, else ``""``).
    """

    code = ""
    reason = ""
    table = ""
    row = -1
    column = ""
    byte_offset = -1
    key_path = ""


class ExternalData(str):
    """Binary data Core Data keeps outside the store: the file's name in ``.STORE_SUPPORT/_EXTERNAL_DATA/``
    beside the store (``.Notes_SUPPORT`` for ``Notes.sqlite``); ``Store.external_data_path`` gives its path."""

    __slots__ = ()

    def __repr__(self):
        return f"ExternalData({str.__repr__(self)})"


_ictkit.coredata_configure(StoreError, _decimal.Decimal, _uuid.UUID, ExternalData)


class Store:
    """A Core Data store opened read-only by ``open``.

    Attributes: ``path`` (as given), ``store_identifier`` (``Z_METADATA``'s UUID), ``store_type``,
    ``model_source`` (``"modelCache"``, or ``"none"`` when values are read by their columns),
    ``model_cache_problem`` (why the model cache could not be read, or ``""``), ``entities`` (one dict per
    ``Z_PRIMARYKEY`` row: ``name``, ``number``, ``superentityNumber``, ``maximumPrimaryKey``, ``table``), ``model``
    (the model as a dict: ``{"entities": [{"name", "attributes", "relationships", ...}], ...}``; ``{}`` when none).
    """

    def __init__(self, path):
        """Opens the store at ``path`` (a str, bytes or path-like) read-only. Use ``open``.

        Raises ``StoreError`` when it is not a regular file, not SQLite, not a Core Data store (no ``Z_METADATA``
        or ``Z_PRIMARYKEY``), or has a ``-wal`` without its ``-shm``. Reads the store's metadata, entities and
        model cache (at most 64 MB inflated); no object.
        """
        self.path = path
        self._handle, text = _ictkit.store_open(_os.fspath(path))
        description = _json.loads(text)
        self.store_identifier = description["storeIdentifier"]
        self.store_type = description["storeType"]
        self.model_source = description["modelSource"]
        self.model_cache_problem = description["modelCacheProblem"]
        self.entities = description["entities"]
        self.model = description["model"]

    def objects(self, batch_size=1024):
        """An iterator of the store's objects as dicts (see the module's documentation), table by table and by
        primary key.

        Each ``batch_size`` objects are read in one call into the C library with the GIL released. Raises
        ``StoreError`` with the table, row and column of a value that does not match the model, of a missing
        table or column, or of a corrupt page, after the objects before it. Memory: one batch.
        """
        if self._handle is None:
            raise ValueError("the store is closed")
        names = [entity["name"] for entity in self.entities]
        tables = [entity["table"] for entity in self.entities]
        cursor = _ictkit.store_cursor(self._handle, f"x-coredata://{self.store_identifier}/", names, tables)
        return _objects(cursor, max(1, int(batch_size)))

    def __iter__(self):
        return self.objects()

    def external_data_path(self, name):
        """The path of the external binary data ``name`` (an ``ExternalData``): ``.STEM_SUPPORT/_EXTERNAL_DATA/``
        beside the store."""
        folder, file = _os.path.split(_os.fspath(self.path))
        stem = file.rsplit(".", 1)[0] if "." in file else file
        return _os.path.join(folder, f".{stem}_SUPPORT", "_EXTERNAL_DATA", name)

    def close(self):
        """Lets the store go (iterators already made keep it open until they are done)."""
        self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()
        return False

    def __repr__(self):
        return f"<ictkit.coredata.Store {self.path!r} {len(self.entities)} entities>"


def _objects(cursor, batch_size):
    while True:
        batch = _ictkit.store_next(cursor, batch_size)
        if not batch:
            return
        yield from batch


def open(path):
    """Opens the Core Data store at ``path`` read-only: a ``Store`` (also a context manager).

    Raises ``StoreError`` as ``Store`` does.
    """
    return Store(path)
