#!/usr/bin/env python3
"""Decode property lists with CPython's plistlib and print them as typed JSON.

The interop tests use plistlib as an independent oracle. Every value is an
object {"t": TYPE, "v": VALUE} so nothing is lost in JSON:

    {"t": "str",   "v": "text"}
    {"t": "int",   "v": "-123"}                 decimal, any size
    {"t": "real",  "v": "0x1.8p+1"}             float.hex(); "inf", "-inf", "nan"
    {"t": "bool",  "v": true}
    {"t": "date",  "v": "2004-10-26T10:33:33.000000Z"}   UTC, microseconds
    {"t": "data",  "v": "base64"}
    {"t": "uid",   "v": "7"}
    {"t": "array", "v": [value, ...]}
    {"t": "dict",  "v": [["key", value], ...]}  in plistlib's (file) order

Usage:
    plist_to_json.py FILE...          print a JSON array, one entry per FILE
    plist_to_json.py --list LISTFILE  the same for the paths in LISTFILE (one a line)

Each entry is {"value": TREE} or {"error": "ExceptionName: message"}.
plistlib_roundtrip.py imports the conversions below.
"""
import base64
import datetime
import json
import plistlib
import sys

def to_typed(value):
    """A plistlib value as a typed JSON tree."""
    if isinstance(value, bool):  # before int: bool is an int subclass
        return {"t": "bool", "v": value}
    if isinstance(value, int):
        return {"t": "int", "v": str(value)}
    if isinstance(value, float):
        return {"t": "real", "v": float.hex(value)}
    if isinstance(value, str):
        return {"t": "str", "v": value}
    if isinstance(value, (bytes, bytearray)):
        return {"t": "data", "v": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return {"t": "date", "v": "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ" % (
            value.year, value.month, value.day,
            value.hour, value.minute, value.second, value.microsecond)}
    if isinstance(value, plistlib.UID):
        return {"t": "uid", "v": str(value.data)}
    if isinstance(value, list):
        return {"t": "array", "v": [to_typed(item) for item in value]}
    if isinstance(value, dict):
        return {"t": "dict", "v": [[key, to_typed(item)] for key, item in value.items()]}
    raise TypeError("no typed JSON for %r" % type(value))


def from_typed(tree):
    """A typed JSON tree as the value plistlib writes."""
    kind, value = tree["t"], tree["v"]
    if kind == "str":
        return value
    if kind == "int":
        return int(value)
    if kind == "real":
        return float.fromhex(value)
    if kind == "bool":
        return bool(value)
    if kind == "date":
        day, time = value.rstrip("Z").split("T")
        year, month, mday = (int(part) for part in day.split("-"))
        hour, minute, second = time.split(":")
        whole, _, fraction = second.partition(".")
        return datetime.datetime(year, month, mday, int(hour), int(minute), int(whole),
                                 int((fraction + "000000")[:6]))
    if kind == "data":
        return base64.b64decode(value)
    if kind == "uid":
        return plistlib.UID(int(value))
    if kind == "array":
        return [from_typed(item) for item in value]
    if kind == "dict":
        return {key: from_typed(item) for key, item in value}
    raise ValueError("unknown typed JSON kind %r" % kind)


def decode_file(path):
    try:
        with open(path, "rb") as handle:
            return {"value": to_typed(plistlib.load(handle))}
    except Exception as error:  # reported to the test, not raised
        return {"error": "%s: %s" % (type(error).__name__, error)}


def main(arguments):
    if arguments[:1] == ["--list"]:
        with open(arguments[1], encoding="utf-8") as handle:
            paths = [line.rstrip("\n") for line in handle if line.strip()]
    else:
        paths = arguments
    results = [decode_file(path) for path in paths]
    sys.stdout.buffer.write(json.dumps(results, ensure_ascii=False).encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv[1:])
