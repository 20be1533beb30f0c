"""Prints, as JSON, the fields of .ict documents as python3's plistlib reads
their keyed archives: an independent reader of the expected values.

usage: ict_fields.py DOCUMENT.ict...
Output: {path: {"data": {key: value}, "metadata": {key: value},
                "classes": {entry: [$classes of the DATA object]}}}
with strings and numbers as they are, data as {"base64": ...}, $null as null.
"""
import base64
import json
import plistlib
import sys


def plain(value):
    if isinstance(value, bytes):
        return {"base64": base64.b64encode(value).decode("ascii")}
    if value == "$null":
        return None
    return value


def fields(path):
    with open(path, "rb") as handle:
        archive = plistlib.load(handle)
    objects = archive["$objects"]
    root = objects[archive["$top"]["DATA"].data]
    result = {}
    for key, value in root.items():
        if key == "$class":
            continue
        if isinstance(value, plistlib.UID):
            value = objects[value.data]
        result[key] = plain(value)
    classes = objects[root["$class"].data]["$classes"]
    return result, classes


documents = {}
for document in sys.argv[1:]:
    data, data_classes = fields(document + "/ctdocument.data")
    metadata, metadata_classes = fields(document + "/ctdocument.metadata")
    documents[document] = {
        "data": data,
        "metadata": metadata,
        "classes": {"ctdocument.data": data_classes, "ctdocument.metadata": metadata_classes},
    }
json.dump(documents, sys.stdout)
