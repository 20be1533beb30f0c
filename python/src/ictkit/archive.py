"""Apple's archives read by ICTKit: keyed archives, typed streams and compiled NIB archives.

Keyed archives (``NSKeyedArchiver``, binary or XML) come back as PyPI's ``nska_deserialize`` gives them:
``deserialize_plist`` and ``deserialize_plist_from_string`` take the same arguments and return the same values
(Foundation's classes converted by name: NSDictionary to dict, NSArray and NSSet to list, NSString to str, NSDate to
a naive ``datetime``, NSUUID to its upper-case string, ``$null`` to ``""``, any other object to a dict of its
fields). ``object_graph`` gives the archive's raw object graph instead. ``typedstream_document`` and
``typedstream_value`` read ``NSArchiver`` typed streams (iMessage's ``attributedBody``); ``attributed_body_text``
gives such a body's text. ``nib_archive`` reads a compiled nib's tables as PyPI's ``nibarchive`` does.

Each call decodes the whole input in ICTKit's C library with the GIL released, then builds the Python objects in one
pass. Bad input raises ``ArchiveError`` (a ``ValueError``) saying where: ``byte_offset``, ``line`` and ``column``,
``key_path``; input is never trusted, and limits (nesting 512 deep, values written out) stop hostile files.
Differences from the peers are listed, each with its reason, in python/tests/archive_differences.txt.
"""

import datetime as _datetime
import os as _os

from . import _ictkit
from .plistlib import UID as _UID

__all__ = [
    "ArchiveError",
    "deserialize_plist",
    "deserialize_plist_from_string",
    "object_graph",
    "typedstream_document",
    "typedstream_value",
    "attributed_body_text",
    "nib_archive",
]

_KEYED_ARCHIVE, _TYPEDSTREAM, _NIB_ARCHIVE = 0, 1, 2
_REFERENCE_DATE = _datetime.datetime(2001, 1, 1)


class ArchiveError(ValueError):
    """An archive that cannot be read, and where.

    Attributes: ``code`` (a stable name: ``"danglingReference"``, ``"propertyList(truncated)"``,
    ``"limitExceeded(values)"``, ...), ``reason`` (the sentence without its place), ``byte_offset`` (or -1),
    ``line`` and ``column`` (of an XML archive's problem, or -1), ``key_path`` (into the archive, or ``""``).
    """

    code = ""
    reason = ""
    byte_offset = -1
    line = -1
    column = -1
    key_path = ""


def _date(seconds):
    # nska_deserialize: datetime(2001, 1, 1) + timedelta(seconds=...), None (then "") when out of datetime's range.
    try:
        return _REFERENCE_DATE + _datetime.timedelta(seconds=seconds)
    except (OverflowError, ValueError):
        return ""


_ictkit.archive_configure(ArchiveError, _UID, _date)


def _bytes_of(path_or_file):
    if isinstance(path_or_file, (str, bytes, _os.PathLike)):
        with open(path_or_file, "rb") as file:
            return file.read()
    return path_or_file.read()


def _decode_keyed(data, form, maximum_values=None):
    bound = maximum_values or 0
    try:
        return _ictkit.archive_decode(_KEYED_ARCHIVE, data, form, bound)
    except ArchiveError as error:
        # nska_deserialize also reads an archive held as the data of a property list's root.
        if error.code != "notAnArchive":
            raise
        from . import plistlib

        try:
            inner = plistlib.loads(data)
        except plistlib.InvalidFileException:
            raise error from None
        if not isinstance(inner, (bytes, bytearray)):
            raise
        return _ictkit.archive_decode(_KEYED_ARCHIVE, inner, form, bound)


def _top_level(top, format):
    # nska_deserialize's _deserialize_nska: one $top key gives its object; several a dict (format=dict) or a list.
    names = list(top)
    result = {} if format is dict else []
    for name in names:
        root = top[name]
        if isinstance(root, (dict, list)):
            plist = root if name.lower() == "root" or format is dict else {name: root}
        else:
            plist = root if format is dict else {name: root}
        if len(names) == 1:
            return plist
        if format is dict:
            result[name] = plist
        else:
            result.append(plist)
    return result


def _recurse_deserialize(value):
    # nska_deserialize's full_recurse_convert_nska: every bytes value that is a property list is read as an archive.
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (bytes, dict, list)):
                value[key] = _recurse_deserialize(item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (bytes, dict, list)):
                value[index] = _recurse_deserialize(item)
    elif isinstance(value, bytes):
        if value[0:6] == b"bplist" or (value.find(b"<?xml") >= 0 and value.find(b"<plist version") >= 0):
            value = deserialize_plist_from_string(value, True)
    return value


def deserialize_plist_from_string(bytes_to_deserialize, full_recurse_convert_nska=False, format=list, *,
                                  maximum_values=None):
    """Decodes the keyed archive in ``bytes_to_deserialize`` as ``nska_deserialize`` does.

    Returns the object under ``$top``'s only key; with several keys, a dict of them (``format=dict``) or a list
    (``{name: value}`` for a key other than ``root``). With ``full_recurse_convert_nska``, archives held as data
    inside are decoded too. Raises ``ArchiveError`` with the place of the problem. The decode runs with the GIL
    released; its cost is one pass over the input and one over the values written: a shared object is written out
    wherever it is named, as the peer does, up to ``maximum_values`` values (by default 128 per input byte, at least
    2**20, at most 2**26), past which ``ArchiveError`` with code ``limitExceeded(values)`` is raised.
    """
    if full_recurse_convert_nska:
        try:
            top = _decode_keyed(bytes_to_deserialize, 0, maximum_values)
        except ArchiveError as error:
            if error.code not in ("notAnArchive", "wrongArchiver"):
                raise
            from . import plistlib

            return _recurse_deserialize(plistlib.loads(bytes_to_deserialize))
        return _recurse_deserialize(_top_level(top, format))
    return _top_level(_decode_keyed(bytes_to_deserialize, 0, maximum_values), format)


def deserialize_plist(path_or_file, full_recurse_convert_nska=False, format=list, *, maximum_values=None):
    """Decodes the keyed archive in a file (a path, or a binary file object read to its end) as
    ``nska_deserialize.deserialize_plist`` does; see ``deserialize_plist_from_string``.
    Raises ``ArchiveError`` (and ``OSError`` when the file cannot be read)."""
    return deserialize_plist_from_string(_bytes_of(path_or_file), full_recurse_convert_nska, format,
                                         maximum_values=maximum_values)


def object_graph(data):
    """The keyed archive in ``data`` as its raw object graph: ``{"$top": {key: UID}, "$objects": [...]}``, each
    instance a dict whose ``"$class"`` is its class name (a str) and whose references are ``plistlib.UID``s.
    Raises ``ArchiveError`` with the place of a problem. Cost: one pass over the input and one over the graph."""
    return _ictkit.archive_decode(_KEYED_ARCHIVE, data, 1)


def typedstream_document(data):
    """The typed stream (``NSArchiver``; the "streamtyped" header) in ``data``, losslessly: a dict of ``format``,
    ``byteOrder``, ``streamerVersion``, ``systemVersion``, ``classes`` (name, version, superclass index),
    ``objects`` (class index, byte offset, groups of typed values) and ``root`` (groups). A value is a dict such as
    ``{"type": "i", "integer": 1}``, ``{"type": "@", "object": 3}`` or ``{"type": "+", "string": "text"}``
    (``"bytes"`` when not UTF-8): the events ``pytypedstream`` reads, numbered. Raises ``ArchiveError`` with the
    byte offset of a problem. Cost: one pass over the input."""
    return _ictkit.archive_decode(_TYPEDSTREAM, data, 0)


def typedstream_value(data):
    """The root object of the typed stream in ``data`` decoded as Foundation's classes: a str for NSString, a
    dict ``{"class": "NSAttributedString", "string": ..., "runs": [...]}`` for an attributed string, numbers as
    numbers, other objects as ``{"class", "superclasses", "version", "fields"}``. Raises ``ArchiveError``."""
    return _ictkit.archive_decode(_TYPEDSTREAM, data, 1)


def attributed_body_text(data):
    """The text of an iMessage ``attributedBody`` (a typed stream holding an NSAttributedString or NSString), or
    None when its root is neither. Raises ``ArchiveError`` when ``data`` is not a readable typed stream."""
    value = typedstream_value(data)
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and value.get("class") == "NSAttributedString":
        return value.get("string")
    return None


def nib_archive(data):
    """The compiled nib (``NIBArchive`` magic) in ``data``: its tables as ``nibarchive`` reads them, as a dict of
    ``format``, ``formatVersion``, ``coderVersion``, ``objects`` (``class``, ``className``, ``firstValue``,
    ``valueCount``), ``keys``, ``values`` (``key``, ``keyName``, ``type`` and, but for true, false and nil,
    ``value``: int, float or bytes) and ``classNames`` (``name``, ``extras``). Raises ``ArchiveError`` with the byte
    offset of a problem. Cost: one pass over the input."""
    return _ictkit.archive_decode(_NIB_ARCHIVE, data, 0)
