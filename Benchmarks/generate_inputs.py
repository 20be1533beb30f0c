#!/usr/bin/env python3
"""Writes the benchmark inputs: a binary property list of about 20 MB and an
XML property list of about 30 MB, both built by the same deterministic
function (fixed seed), written with Python's plistlib so that neither side of
any comparison reads a file its own writer made.

Usage: generate_inputs.py OUTPUT_DIRECTORY

Writes OUTPUT_DIRECTORY/large.binary.plist and OUTPUT_DIRECTORY/large.xml.plist
(each through a temporary file and a rename, so an interrupted run leaves no
half-written input), OUTPUT_DIRECTORY/large.keypath.txt: the key path of a
value deep inside the last top-level entry of the binary file, and
OUTPUT_DIRECTORY/dataheavy.binary.plist: issue 24's data-heavy dictionary.
"""

import datetime
import os
import plistlib
import random
import sys

SEED = 20251122
BINARY_TARGET_BYTES = 20 * 1000 * 1000
XML_TARGET_BYTES = 30 * 1000 * 1000

WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima "
    "mike november oscar papa quebec romeo sierra tango uniform victor whiskey "
    "xray yankee zulu document layer canvas stroke fill shadow gradient"
).split()
NON_ASCII_WORDS = (
    "café naïve über Straße façade résumé jalapeño smörgåsbord "
    "日本語 東京 文書 図形 Ελληνικά Привет мир 한국어 שלום 🙂 🎨"
).split()
EPOCH = datetime.datetime(2001, 1, 1)


def sentence(rng, words, count):
    return " ".join(rng.choice(words) for _ in range(count))


def record(rng, index):
    """One top-level entry: every property-list kind, nested three deep."""
    return {
        "name": f"record {index}: " + sentence(rng, WORDS, rng.randint(2, 8)),
        "title": sentence(rng, NON_ASCII_WORDS, rng.randint(1, 5)),
        "identifier": rng.randint(-(2**63), 2**63 - 1),
        "count": rng.randint(0, 1000),
        "score": rng.uniform(-1e6, 1e6),
        "ratio": rng.random(),
        "created": EPOCH + datetime.timedelta(seconds=rng.randint(0, 800_000_000)),
        "thumbnail": rng.randbytes(rng.randint(16, 192)),
        "visible": rng.random() < 0.5,
        "tags": [rng.choice(WORDS) for _ in range(rng.randint(0, 6))],
        "layers": [
            {
                "kind": rng.choice(("shape", "text", "image", "group")),
                "frame": [rng.uniform(0, 2048) for _ in range(4)],
                "opacity": rng.random(),
                "label": sentence(rng, WORDS + NON_ASCII_WORDS, rng.randint(1, 4)),
            }
            for _ in range(rng.randint(1, 3))
        ],
        "metadata": {
            "author": {
                "display": sentence(rng, NON_ASCII_WORDS, 2),
                "history": {
                    "revisions": [rng.randint(0, 2**31) for _ in range(rng.randint(4, 8))],
                    "modified": EPOCH + datetime.timedelta(seconds=rng.randint(0, 800_000_000)),
                    "note": sentence(rng, WORDS, 3),
                },
            },
        },
    }


def build(record_count):
    rng = random.Random(SEED)
    return {f"record-{index:06d}": record(rng, index) for index in range(record_count)}


def scaled(fmt, target_bytes):
    """The encoding of `build(n)`, with n scaled so the file is about target_bytes."""
    probe_count = 2000
    probe_size = len(plistlib.dumps(build(probe_count), fmt=fmt))
    count = max(1, round(probe_count * target_bytes / probe_size))
    return count, plistlib.dumps(build(count), fmt=fmt)


DATA_HEAVY_ENTRIES = 120_000


def data_heavy(entry_count):
    """Issue 24's data-heavy dictionary (row b2): one large dictionary whose
    values are, a fifth each, short strings, integers, data of 100-200 bytes,
    small arrays of reals and small dictionaries of dates."""
    rng = random.Random(SEED + 24)
    value = {}
    for index in range(entry_count):
        kind = index % 5
        if kind == 0:
            item = sentence(rng, WORDS, rng.randint(1, 3))
        elif kind == 1:
            item = rng.randint(-(2**40), 2**40)
        elif kind == 2:
            item = rng.randbytes(rng.randint(100, 200))
        elif kind == 3:
            item = [rng.uniform(-1e4, 1e4) for _ in range(rng.randint(2, 5))]
        else:
            item = {
                name: EPOCH + datetime.timedelta(seconds=rng.randint(0, 800_000_000))
                for name in rng.sample(("created", "modified", "opened", "printed"), rng.randint(1, 3))
            }
        value[f"entry-{index:06d}"] = item
    return value


SMALL_BYTES = 575


def small_binary():
    """An Info.plist-like binary property list of exactly SMALL_BYTES bytes
    (the size issue 12 measures start-up with), padded by a comment string."""
    value = {
        "CFBundleIdentifier": "com.example.friend",
        "CFBundleName": "Friend",
        "CFBundleShortVersionString": "1.4.2",
        "CFBundleVersion": "142",
        "LSMinimumSystemVersion": "13.0",
        "NSHighResolutionCapable": True,
        "Items": [1, 2, 3, "four", 5.5],
        "Nested": {"created": datetime.datetime(2026, 11, 23, 12, 0, 0), "key": b"\x00\x01\x02\x03"},
    }
    for padding in range(0, SMALL_BYTES):
        value["Comment"] = "x" * padding
        encoded = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
        if len(encoded) == SMALL_BYTES:
            return encoded
    raise SystemExit(f"no padding makes the small file {SMALL_BYTES} bytes")


def write_atomically(path, contents):
    temporary = path + ".partial"
    with open(temporary, "wb") as file:
        file.write(contents)
    os.replace(temporary, path)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    binary_count, binary = scaled(plistlib.FMT_BINARY, BINARY_TARGET_BYTES)
    xml_count, xml = scaled(plistlib.FMT_XML, XML_TARGET_BYTES)
    keypath = f"record-{binary_count - 1:06d}.metadata.author.history.revisions[3]"
    write_atomically(os.path.join(directory, "large.binary.plist"), binary)
    write_atomically(os.path.join(directory, "large.xml.plist"), xml)
    write_atomically(os.path.join(directory, "large.keypath.txt"), keypath.encode() + b"\n")
    write_atomically(os.path.join(directory, "small.binary.plist"), small_binary())
    heavy = plistlib.dumps(data_heavy(DATA_HEAVY_ENTRIES), fmt=plistlib.FMT_BINARY)
    write_atomically(os.path.join(directory, "dataheavy.binary.plist"), heavy)
    print(f"binary: {binary_count} records, {len(binary)} bytes; "
          f"xml: {xml_count} records, {len(xml)} bytes; key path {keypath}; "
          f"data-heavy: {DATA_HEAVY_ENTRIES} entries, {len(heavy)} bytes")


if __name__ == "__main__":
    main()
