"""Type stubs of ictkit.archive: keyed archives, typed streams and NIB archives read by ICTKit."""

import os
from typing import IO, Any


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

class ArchiveError(ValueError):
    """An archive that cannot be read, and where (byte offset, line and column, key path)."""

    code: str
    reason: str
    byte_offset: int
    line: int
    column: int
    key_path: str

_Buffer = bytes | bytearray | memoryview
_Format = type[list[Any]] | type[dict[Any, Any]]

def deserialize_plist_from_string(
    bytes_to_deserialize: _Buffer,
    full_recurse_convert_nska: bool = False,
    format: _Format = ...,
    *,
    maximum_values: int | None = None,
) -> Any:
    """Decodes a keyed archive as nska_deserialize does. Raises ArchiveError."""

def deserialize_plist(
    path_or_file: str | bytes | os.PathLike[str] | IO[bytes],
    full_recurse_convert_nska: bool = False,
    format: _Format = ...,
    *,
    maximum_values: int | None = None,
) -> Any:
    """Decodes the keyed archive in a file as nska_deserialize does. Raises ArchiveError or OSError."""

def object_graph(data: _Buffer) -> dict[str, Any]:
    """The raw object graph: {"$top": {key: UID}, "$objects": [...]}, instances' "$class" as class names."""

def typedstream_document(data: _Buffer) -> dict[str, Any]:
    """A typed stream's document, losslessly (header, classes, objects, root groups). Raises ArchiveError."""

def typedstream_value(data: _Buffer) -> Any:
    """A typed stream's root object decoded as Foundation's classes. Raises ArchiveError."""

def attributed_body_text(data: _Buffer) -> str | None:
    """The text of an iMessage attributedBody, or None when its root is not a string. Raises ArchiveError."""

def nib_archive(data: _Buffer) -> dict[str, Any]:
    """A compiled nib's tables (objects, keys, values, class names). Raises ArchiveError."""
