"""Writes a small binary NSKeyedArchiver archive made by hand with python3's
plistlib, for inputs the tests need broken in one named way.

usage: make_archive.py OUTPUT CASE
Each CASE is an archive broken as its name says: a CTData-shaped one
($top.DATA), or bpylist2's crap.Foo ($top.root) nested too deep.
"""
import plistlib
import sys
from plistlib import UID

CTDATA = {"$classname": "CTData", "$classes": ["CTData", "NSObject"]}


def archive(root_fields, extra_objects, classes=CTDATA):
    # objects: $null, the root, the extra objects, the root's class
    objects = ["$null", None] + extra_objects + [classes]
    root = dict(root_fields)
    root["$class"] = UID(len(objects) - 1)
    objects[1] = root
    return {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"DATA": UID(1)}, "$objects": objects}


def nested_foos(depth):
    # object 1 is the outermost Foo; each refers to the next through "recursive"
    foo_class = depth + 1
    objects = ["$null"]
    for level in range(depth):
        following = UID(level + 2) if level + 1 < depth else UID(0)
        objects.append({"recursive": following, "$class": UID(foo_class)})
    objects.append({"$classname": "crap.Foo", "$classes": ["crap.Foo", "NSObject"]})
    return {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": UID(1)}, "$objects": objects}


CASES = {
    # 100,000 Foos each holding the next: deeper than any limit, a stack overflow if unchecked
    "foos-nested-100000": lambda: nested_foos(100000),
    # FIRST_NAME refers to data, not a string
    "first-name-is-data": lambda: archive({"VERSION": 1, "FIRST_NAME": UID(2)}, [b"\x00\x01"]),
    # no FIRST_NAME key at all; LAST_NAME present
    "first-name-missing": lambda: archive({"VERSION": 1, "LAST_NAME": UID(2)}, ["Lovelace"]),
    # VERSION is a string
    "version-is-string": lambda: archive({"VERSION": "1"}, []),
    # PHOTO refers to an instance of a class nobody allowed
    "photo-is-evil": lambda: archive(
        {"VERSION": 1, "PHOTO": UID(2)},
        [{"$class": UID(3)}, {"$classname": "EvilPayload", "$classes": ["EvilPayload", "NSObject"]}],
    ),
}

with open(sys.argv[1], "wb") as handle:
    plistlib.dump(CASES[sys.argv[2]](), handle, fmt=plistlib.FMT_BINARY)
