#!/usr/bin/env python3
"""Write typed-JSON trees as property lists with CPython's plistlib.

Usage:
    plistlib_roundtrip.py TREES.json OUTDIR

TREES.json holds {"binary": [TREE, ...], "xml": [TREE, ...]} in the typed JSON
of plist_to_json.py. Tree i of "binary" is written as OUTDIR/binary-i.bplist
(FMT_BINARY), tree i of "xml" as OUTDIR/xml-i.plist (FMT_XML), both with
sort_keys=False so dictionaries keep the trees' key order. Any tree plistlib
cannot write stops the run with a message on stderr and exit status 1.
"""
import json
import os
import plistlib
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plist_to_json import from_typed  # noqa: E402


def main(trees_path, output_folder):
    with open(trees_path, encoding="utf-8") as handle:
        batches = json.load(handle)
    formats = {
        "binary": (plistlib.FMT_BINARY, "bplist"),
        "xml": (plistlib.FMT_XML, "plist"),
    }
    for name, (fmt, extension) in formats.items():
        for index, tree in enumerate(batches.get(name, [])):
            path = os.path.join(output_folder, "%s-%d.%s" % (name, index, extension))
            try:
                data = plistlib.dumps(from_typed(tree), fmt=fmt, sort_keys=False)
            except Exception as error:
                sys.stderr.write("%s tree %d: %s: %s\n" % (name, index, type(error).__name__, error))
                sys.exit(1)
            with open(path, "wb") as handle:
                handle.write(data)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
