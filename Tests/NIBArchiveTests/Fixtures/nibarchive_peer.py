"""The peer for NIBArchiveTests: PyPI's nibarchive (pinned in scripts/install-deps.sh)
reads a compiled nib, and this prints it as JSON in the layout of NIBArchiveFile.jsonForm,
with ICTKit's lossless tags ({"$data": base64}, {"$real32": x}), and the connections
found among its objects.

Usage: python3 nibarchive_peer.py FILE.nib
"""
import base64
import json
import sys

from nibarchive import NIBArchiveParser, NIBValueType


class RawDataParser(NIBArchiveParser):
    """nibarchive's parser, keeping each data value's bytes as written
    (nibarchive itself decodes nested archives and 0x07-prefixed doubles)."""

    def _parse_data(self, fp, value, offset):
        from nibarchive.parse import varint
        length, count = varint(fp)
        value.data = fp.read(length)
        return offset + count + length


def value_form(archive, value):
    entry = {"key": value.key_index, "keyName": archive.keys[value.key_index].name}
    kind = value.type
    names = {
        NIBValueType.INT8: "int8", NIBValueType.INT16: "int16", NIBValueType.INT32: "int32",
        NIBValueType.INT64: "int64", NIBValueType.BOOL_TRUE: "true", NIBValueType.BOOL_FALSE: "false",
        NIBValueType.FLOAT: "float", NIBValueType.DOUBLE: "double", NIBValueType.DATA: "data",
        NIBValueType.NIL: "nil", NIBValueType.OBJECT_REF: "object",
    }
    entry["type"] = names[kind]
    if kind == NIBValueType.INT8:
        # nibarchive reads the byte unsigned; ICTKit reads it signed, as UIKit's decoder does.
        entry["value"] = value.data - 256 if value.data > 127 else value.data
    elif kind in (NIBValueType.INT16, NIBValueType.INT32, NIBValueType.INT64, NIBValueType.OBJECT_REF):
        entry["value"] = value.data
    elif kind == NIBValueType.FLOAT:
        entry["value"] = {"$real32": value.data}
    elif kind == NIBValueType.DOUBLE:
        entry["value"] = value.data
    elif kind == NIBValueType.DATA:
        entry["value"] = {"$data": base64.b64encode(value.data).decode()}
    return entry


def main(path):
    with open(path, "rb") as fp:
        archive = RawDataParser(verify=True).parse(fp)
    header = archive.header
    form = {
        "format": "NIBArchive",
        "formatVersion": header.unknown_1,
        "coderVersion": header.unknown_2,
        "objects": [
            {"class": o.class_name_index, "className": archive.class_names[o.class_name_index].name,
             "firstValue": o.values_index, "valueCount": o.value_count}
            for o in archive.objects
        ],
        "keys": [k.name for k in archive.keys],
        "values": [value_form(archive, v) for v in archive.values],
        "classNames": [{"name": c.name, "extras": list(c.extras)} for c in archive.class_names],
    }
    kinds = {"UIRuntimeOutletConnection": "outlet", "UIRuntimeOutletCollectionConnection": "outletCollection",
             "UIRuntimeEventConnection": "action"}
    connections = []
    for index, obj in enumerate(archive.objects):
        kind = kinds.get(archive.class_names[obj.class_name_index].name)
        if kind is None:
            continue
        items = {archive.keys[v.key_index].name: v for v in archive.get_object_values(obj)}
        label_object = archive.objects[items["UILabel"].data]
        label = {archive.keys[v.key_index].name: v for v in archive.get_object_values(label_object)}["NS.bytes"].data
        connections.append({"kind": kind, "object": index, "source": items["UISource"].data,
                            "destination": items["UIDestination"].data, "label": label.decode()})
    root = {archive.keys[v.key_index].name: v for v in archive.get_object_values(archive.objects[0])}
    top_list = archive.objects[root["UINibTopLevelObjectsKey"].data]
    top_level = [v.data for v in archive.get_object_values(top_list)
                 if archive.keys[v.key_index].name == "UINibEncoderEmptyKey"]
    json.dump({"file": form, "connections": connections, "topLevelObjects": top_level}, sys.stdout)


main(sys.argv[1])
