"""A drop-in for the standard library's ``plistlib`` over ICTKit's readers and writers.

``load``, ``loads``, ``dump``, ``dumps``, ``FMT_XML``, ``FMT_BINARY``, ``UID`` and ``InvalidFileException`` take
the same arguments and give the same Python types as ``plistlib`` (``UID`` *is* ``plistlib.UID``, and
``InvalidFileException`` a subclass of ``plistlib.InvalidFileException``, so code catching either keeps working).
Beyond ``plistlib``: the formats ``FMT_OPENSTEP`` (read only) and ``FMT_JSON`` (ICTKit's lossless JSON), and
``get(data, "a.b[2]")``, the key-path access of ``ict get``.

Errors say where: an ``InvalidFileException`` carries ``code``, ``byte_offset`` (binary input), ``line`` and
``column`` (text input), ``key_path`` and ``reason``; the ones absent are -1 or "". The bytes are decoded with the
GIL released, so threads decode in parallel; building the Python objects holds it.
"""

import datetime as _datetime
import enum as _enum
import plistlib as _stdlib

from . import _ictkit

__all__ = [
    "InvalidFileException", "FMT_XML", "FMT_BINARY", "FMT_OPENSTEP", "FMT_JSON", "load", "dump", "loads", "dumps",
    "UID", "get",
]

PlistFormat = _enum.Enum("PlistFormat", "FMT_XML FMT_BINARY FMT_OPENSTEP FMT_JSON", module=__name__)
FMT_XML = PlistFormat.FMT_XML
FMT_BINARY = PlistFormat.FMT_BINARY
FMT_OPENSTEP = PlistFormat.FMT_OPENSTEP
FMT_JSON = PlistFormat.FMT_JSON

#: A keyed-archive object reference: the standard library's class itself.
UID = _stdlib.UID

# ICTKIT_FORMAT_ numbers of ictkit.h.
_NUMBERS = {FMT_BINARY: 1, FMT_XML: 2, FMT_OPENSTEP: 3, FMT_JSON: 4}


class InvalidFileException(_stdlib.InvalidFileException):
    """The input is not a property list of the format asked for; the message says where.

    Attributes: ``code`` (ICTKit's stable code name, such as ``"truncated"``), ``reason`` (the sentence without
    its place), ``byte_offset``, ``line``, ``column`` (-1 when not known) and ``key_path`` ("" when not known).
    """

    code = ""
    reason = ""
    byte_offset = -1
    line = -1
    column = -1
    key_path = ""

    def __init__(self, message="Invalid file"):
        ValueError.__init__(self, message)


_EPOCH = _datetime.datetime(2001, 1, 1)
_AWARE_EPOCH = _datetime.datetime(2001, 1, 1, tzinfo=_datetime.timezone.utc)


def _date_from_seconds(seconds, aware):
    try:
        return (_AWARE_EPOCH if aware else _EPOCH) + _datetime.timedelta(seconds=seconds)
    except (OverflowError, ValueError):
        error = InvalidFileException(
            f"a date {seconds!r} s from 2001-01-01 lies outside the years 1 to 9999 that datetime holds")
        error.code, error.reason = "invalidValue", error.args[0]
        raise error from None


def _add_key_path(error):
    """Ends the message of a refusal found while building the Python objects with the key path the C
    extension noted on the way out ("(at a.b[2])"), as ICTKit's own messages end."""
    if error.key_path and error.byte_offset < 0 and error.line < 0 and "(at " not in str(error):
        error.args = (f"{error.args[0]} (at {error.key_path})",)


def _seconds_from_date(date):
    if date.tzinfo is not None:
        return (date - _AWARE_EPOCH).total_seconds()
    return (date - _EPOCH).total_seconds()


_ictkit.configure(InvalidFileException, UID, _datetime.datetime, _date_from_seconds, _seconds_from_date)


def _format_number(fmt):
    """The ictkit.h number of ``fmt``: one of ours, or the standard library's FMT_XML and FMT_BINARY."""
    if isinstance(fmt, _stdlib.PlistFormat):
        fmt = PlistFormat[fmt.name]
    try:
        return _NUMBERS[fmt]
    except (KeyError, TypeError):
        raise ValueError("Unsupported format: %r" % (fmt,)) from None


def _detect(header):
    """plistlib's own detection (binary, or XML in UTF-8 or UTF-16 with a byte-order mark), so ``fmt=None``
    accepts and refuses what plistlib does; OpenStep and JSON are read when asked for by name."""
    if header[:8] == b"bplist00":
        return FMT_BINARY
    if _stdlib._is_fmt_xml(header):
        return FMT_XML
    error = InvalidFileException(
        "byte 0: not a binary or XML property list (give fmt=FMT_OPENSTEP or FMT_JSON to read those forms)")
    error.code, error.byte_offset = "unrecognizedFormat", 0
    error.reason = "not a binary or XML property list"
    raise error


def loads(value, *, fmt=None, dict_type=dict, aware_datetime=False):
    """Decode the property list in the bytes-like ``value``.

    ``fmt`` is ``FMT_XML``, ``FMT_BINARY``, ``FMT_OPENSTEP``, ``FMT_JSON`` or None (binary or XML, detected as
    plistlib does). Dictionaries are made with ``dict_type``; dates are naive UTC datetimes, or aware ones with
    ``aware_datetime``. Raises ``InvalidFileException`` saying where the input is wrong.
    Cost: the whole input is decoded (GIL released) and every value built as a Python object.
    """
    data = memoryview(value)
    number = _format_number(_detect(data[:32].tobytes()) if fmt is None else fmt)
    try:
        result = _ictkit.loads(data, number, dict_type, bool(aware_datetime))
    except InvalidFileException as error:
        _add_key_path(error)
        raise
    return result


def load(fp, *, fmt=None, dict_type=dict, aware_datetime=False):
    """Decode the property list in the readable binary file ``fp`` (read to its end), as ``loads`` does."""
    return loads(fp.read(), fmt=fmt, dict_type=dict_type, aware_datetime=aware_datetime)


def dumps(value, *, fmt=FMT_XML, skipkeys=False, sort_keys=True, aware_datetime=False):
    """Encode ``value`` (dict, list, tuple, str, bytes, bytearray, int, float, bool, datetime, UID) as
    ``FMT_XML``, ``FMT_BINARY`` or ``FMT_JSON``.

    Dictionary keys must be strings (others are skipped with ``skipkeys``, else TypeError); with ``sort_keys``
    they are written in sorted order. Raises TypeError for other types, OverflowError for integers outside
    -2**63 ... 2**64 - 1, ValueError for an unknown or read-only format.
    """
    number = _format_number(fmt)
    if number == _NUMBERS[FMT_OPENSTEP]:
        raise ValueError("Unsupported format: %r (the OpenStep form is read only)" % (fmt,))
    return _ictkit.dumps(value, number, bool(sort_keys), bool(skipkeys))


def dump(value, fp, *, fmt=FMT_XML, sort_keys=True, skipkeys=False, aware_datetime=False):
    """Encode ``value`` as ``dumps`` does and write it to the writable binary file ``fp``."""
    fp.write(dumps(value, fmt=fmt, skipkeys=skipkeys, sort_keys=sort_keys, aware_datetime=aware_datetime))


def get(data, key_path, *, fmt=None, dict_type=dict, aware_datetime=False, default=None):
    """The value at ``key_path`` (``"a.b[2].c"``, as ``ict get`` takes it) of the property list in ``data``
    (bytes; any format ICTKit reads is detected when ``fmt`` is None), or ``default`` when nothing is there.
    Raises ``InvalidFileException`` when ``data`` is not a property list.
    Cost: the whole input is decoded; only the value found is built as Python objects.
    """
    number = 0 if fmt is None else _format_number(fmt)
    try:
        return _ictkit.get(memoryview(data), number, key_path, dict_type, bool(aware_datetime), default)
    except InvalidFileException as error:
        _add_key_path(error)
        raise
