"""Type stubs of ictkit.coredata: Core Data stores read object by object by ICTKit."""

import os
from collections.abc import Iterator
from typing import Any, Literal

__all__ = ["StoreError", "ExternalData", "Store", "open"]

class StoreError(ValueError):
    """A store that cannot be read, and where (table, row and column; byte offset; entity.property)."""

    code: str
    reason: str
    table: str
    row: int
    column: str
    byte_offset: int
    key_path: str

class ExternalData(str):
    """Binary data kept outside the store: the file's name in .STORE_SUPPORT/_EXTERNAL_DATA/."""

class Store:
    """A Core Data store opened read-only."""

    path: str | bytes | os.PathLike[str] | os.PathLike[bytes]
    store_identifier: str
    store_type: str
    model_source: Literal["modelCache", "none"]
    model_cache_problem: str
    entities: list[dict[str, Any]]
    model: dict[str, Any]
    def __init__(self, path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> None:
        """Opens the store read-only; raises StoreError."""
    def objects(self, batch_size: int = 1024) -> Iterator[dict[str, Any]]:
        """The objects as dicts ("objectID", "entity", then the values by name), table by table; raises StoreError."""
    def __iter__(self) -> Iterator[dict[str, Any]]: ...
    def external_data_path(self, name: str) -> str:
        """The path of external binary data named `name`."""
    def close(self) -> None:
        """Lets the store go."""
    def __enter__(self) -> Store: ...
    def __exit__(self, *exception: object) -> Literal[False]: ...

def open(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> Store:
    """Opens the Core Data store at `path` read-only; raises StoreError."""
