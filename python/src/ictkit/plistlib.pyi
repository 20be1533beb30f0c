import datetime
import enum
import plistlib as _stdlib
from collections.abc import Mapping, MutableMapping
from typing import IO, Any, Callable, Final

__all__ = [
    "InvalidFileException", "FMT_XML", "FMT_BINARY", "FMT_OPENSTEP", "FMT_JSON", "load", "dump", "loads", "dumps",
    "UID", "get",
]

class PlistFormat(enum.Enum):
    FMT_XML = 1
    FMT_BINARY = 2
    FMT_OPENSTEP = 3
    FMT_JSON = 4

FMT_XML: Final = PlistFormat.FMT_XML
FMT_BINARY: Final = PlistFormat.FMT_BINARY
FMT_OPENSTEP: Final = PlistFormat.FMT_OPENSTEP
FMT_JSON: Final = PlistFormat.FMT_JSON

UID = _stdlib.UID

_Format = PlistFormat | _stdlib.PlistFormat
_Value = Any  # dict | list | tuple | str | bytes | bytearray | int | float | bool | datetime.datetime | UID

class InvalidFileException(_stdlib.InvalidFileException):
    """The input is not a property list of the format asked for; the message says where."""

    code: str
    reason: str
    byte_offset: int
    line: int
    column: int
    key_path: str
    def __init__(self, message: str = "Invalid file") -> None: ...

def loads(
    value: bytes | bytearray | memoryview,
    *,
    fmt: _Format | None = None,
    dict_type: Callable[[], MutableMapping[str, Any]] = dict,
    aware_datetime: bool = False,
) -> Any:
    """Decode a property list; raises InvalidFileException saying where it is wrong."""

def load(
    fp: IO[bytes],
    *,
    fmt: _Format | None = None,
    dict_type: Callable[[], MutableMapping[str, Any]] = dict,
    aware_datetime: bool = False,
) -> Any:
    """Decode the property list in a binary file, read to its end."""

def dumps(
    value: _Value, *, fmt: _Format = ..., skipkeys: bool = False, sort_keys: bool = True, aware_datetime: bool = False
) -> bytes:
    """Encode a value as XML, binary or JSON; TypeError, OverflowError or ValueError when it cannot be."""

def dump(
    value: _Value,
    fp: IO[bytes],
    *,
    fmt: _Format = ...,
    sort_keys: bool = True,
    skipkeys: bool = False,
    aware_datetime: bool = False,
) -> None:
    """Encode a value and write it to a binary file."""

def get(
    data: bytes | bytearray | memoryview,
    key_path: str,
    *,
    fmt: _Format | None = None,
    dict_type: Callable[[], MutableMapping[str, Any]] = dict,
    aware_datetime: bool = False,
    default: Any = None,
) -> Any:
    """The value at a key path such as "a.b[2].c", or default when nothing is there."""
