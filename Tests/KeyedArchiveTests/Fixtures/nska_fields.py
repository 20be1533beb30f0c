"""The independent reading of keyed archives for ArchivedFoundationClassesTests: PyPI's nska-deserialize 1.5.1.

Usage: nska_fields.py FILE [KEY]: the archive in FILE (or, with KEY, the archive held as <data> under KEY of the
property list in FILE, as Terminal.app's profiles hold colours and fonts), deserialized by nska-deserialize and printed
as JSON; bytes as {"$bytes": "<hex>"}. With KEY "#N", the object $objects[N] of the archive in FILE instead of its root
(the archive given to nska-deserialize with $top holding only root = N: one colour of a whole nib, say).
"""
import json
import plistlib
import sys

import nska_deserialize


def plain(value):
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": bytes(value).hex()}
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


path = sys.argv[1]
if len(sys.argv) > 2 and sys.argv[2].startswith("#"):
    with open(path, "rb") as handle:
        archive = plistlib.load(handle)
    archive["$top"] = {"root": plistlib.UID(int(sys.argv[2][1:]))}
    result = nska_deserialize.deserialize_plist_from_string(plistlib.dumps(archive, fmt=plistlib.FMT_BINARY))
elif len(sys.argv) > 2:
    with open(path, "rb") as handle:
        result = nska_deserialize.deserialize_plist_from_string(plistlib.load(handle)[sys.argv[2]])
else:
    result = nska_deserialize.deserialize_plist(path)
print(json.dumps(plain(result)))
