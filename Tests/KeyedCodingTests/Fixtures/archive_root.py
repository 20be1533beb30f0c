"""Prints, as JSON, the root object of a keyed archive as python3's plistlib
reads it: its $classes chain and its fields, each reference followed once
(to a plain value, or to the $classes chain of an instance).

usage: archive_root.py ARCHIVE [TOP_KEY]
Output: {"classes": [...], "fields": {key: value}} with data as
{"base64": ...}, an instance as {"classes": [...]}, arrays element by element.
UIDs are read in both forms: binary UIDs and XML {"CF$UID": n} dictionaries.
"""
import base64
import json
import plistlib
import sys


def uid(value):
    if isinstance(value, plistlib.UID):
        return value.data
    if isinstance(value, dict) and list(value) == ["CF$UID"]:
        return value["CF$UID"]
    return None


def main():
    with open(sys.argv[1], "rb") as handle:
        archive = plistlib.load(handle)
    top_key = sys.argv[2] if len(sys.argv) > 2 else "root"
    objects = archive["$objects"]

    def classes(instance):
        return objects[uid(instance["$class"])]["$classes"]

    def follow(value):
        index = uid(value)
        if index is not None:
            value = objects[index]
            if isinstance(value, dict) and "$class" in value:
                return {"classes": classes(value)}
        if isinstance(value, list):
            return [follow(element) for element in value]
        if isinstance(value, bytes):
            return {"base64": base64.b64encode(value).decode("ascii")}
        return value

    root = objects[uid(archive["$top"][top_key])]
    fields = {key: follow(value) for key, value in root.items() if key != "$class"}
    json.dump({"classes": classes(root), "fields": fields}, sys.stdout)


main()
