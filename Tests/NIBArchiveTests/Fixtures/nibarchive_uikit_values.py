"""The peer for NibObjectGraphFoundationValuesTests: PyPI's nibarchive (pinned in scripts/install-deps.sh)
reads a compiled nib, and this prints each UIColor and UIFont object's fields as nibarchive reads them,
as JSON: [{"index", "class", "fields": {key: value}, "attributes"?: [[key, value], ...]}, ...].

A value is a number or boolean as written, nil {"nil": true} (as NibObjectGraph.jsonForm writes it); a reference to a string object is its text, to an
NSNumber its number, to another object {"object": index, "class": name}; data is {"bytes": count}.
A UIFont's "attributes" are its UIFontDescriptor's UIFontDescriptorAttributes dictionary, in the
file's order (a compiled nib writes a dictionary as UINibEncoderEmptyKey keys and values in turn).
Nothing here says what the fields mean: that is the test's hand annotation.

Usage: python3 nibarchive_uikit_values.py FILE.nib
"""
import json
import sys

from nibarchive import NIBArchiveParser, NIBValueType


class RawDataParser(NIBArchiveParser):
    """nibarchive's parser, keeping each data value's bytes as written (as nibarchive_peer.py does)."""

    def _parse_data(self, fp, value, offset):
        from nibarchive.parse import varint
        length, count = varint(fp)
        value.data = fp.read(length)
        return offset + count + length


def main(path):
    with open(path, "rb") as fp:
        archive = RawDataParser(verify=True).parse(fp)

    def class_name(index):
        return archive.class_names[archive.objects[index].class_name_index].name

    def values(index):
        return [(archive.keys[v.key_index].name, v) for v in archive.get_object_values(archive.objects[index])]

    def plain(value):
        kind = value.type
        if kind == NIBValueType.NIL:
            return {"nil": True}
        if kind in (NIBValueType.BOOL_TRUE, NIBValueType.BOOL_FALSE):
            return kind == NIBValueType.BOOL_TRUE
        if kind == NIBValueType.OBJECT_REF:
            name = class_name(value.data)
            if name.endswith("String"):
                return dict(values(value.data))["NS.bytes"].data.decode()
            if name == "NSNumber":
                return plain(values(value.data)[0][1])
            return {"object": value.data, "class": name}
        if kind == NIBValueType.DATA:
            return {"bytes": len(value.data)}
        return value.data

    found = []
    for index in range(len(archive.objects)):
        if class_name(index) not in ("UIColor", "UIFont"):
            continue
        entry = {"index": index, "class": class_name(index), "fields": {key: plain(v) for key, v in values(index)}}
        if class_name(index) == "UIFont":
            descriptor = dict(values(index))["UIFontDescriptor"].data
            dictionary = dict(values(descriptor))["UIFontDescriptorAttributes"].data
            pairs = [v for key, v in values(dictionary) if key == "UINibEncoderEmptyKey"]
            entry["attributes"] = [[plain(pairs[n]), plain(pairs[n + 1])] for n in range(0, len(pairs), 2)]
        found.append(entry)
    json.dump(found, sys.stdout)


main(sys.argv[1])
