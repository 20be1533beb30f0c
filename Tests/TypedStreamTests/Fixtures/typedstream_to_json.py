#!/usr/bin/env python3
"""Prints a typed stream's lossless JSON form (TypedStreamDocument.jsonForm's shape) as read by
pytypedstream (PyPI, pinned in scripts/install-deps.sh): the independent reader TypedStreamTests
compares ICTKit's against. Uses only pytypedstream's event stream, none of ICTKit's code.
Usage: typedstream_to_json.py FILE"""
import base64
import json
import math
import sys

from typedstream import stream


def split_struct(encoding):
    body = encoding[1:-1]
    brace = body.find(b"{")
    equals = body.find(b"=", 0, brace if brace >= 0 else len(body))
    if equals >= 0:
        return body[:equals], body[equals + 1:]
    return None, body


def text_or_bytes(value):
    try:
        return {"string": value.decode("utf-8")}
    except UnicodeDecodeError:
        return {"bytes": {"$data": base64.b64encode(value).decode()}}


def real(value):
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return float(value)


class Converter:
    def __init__(self, reader):
        self.events = iter(reader)
        self.reader = reader
        self.shared = []
        self.classes = []
        self.objects = []

    def lookup(self, reference, kind):
        entry_kind, value = self.shared[reference.number]
        assert entry_kind == kind, (entry_kind, kind)
        return value

    def read_class(self, first):
        names = []
        event = first
        while isinstance(event, stream.SingleClass):
            names.append(event)
            event = next(self.events)
        superclass = None if event is None else self.lookup(event, "class")
        if not names:
            return superclass
        base = len(self.classes)
        for offset, single in enumerate(names):
            entry = {"name": single.name.decode("utf-8"), "version": single.version}
            following = superclass if offset == len(names) - 1 else base + offset + 1
            if following is not None:
                entry["superclass"] = following
            self.classes.append(entry)
            self.shared.append(("class", base + offset))
        return base

    def value(self, encoding, with_type):
        entry = {"type": encoding.decode("utf-8")} if with_type else {}
        code = encoding[:1]
        event = next(self.events)
        if code in b"cCsSiIlLqQ" and len(encoding) == 1:
            entry["integer"] = event
        elif code in b"fd":
            entry["real"] = real(event)
        elif code == b"B":
            entry["bool"] = event
        elif code == b"*":
            if event is None:
                entry["nil"] = True
            elif isinstance(event, stream.CString):
                self.shared.append(("cstring", event.contents))
                entry.update(text_or_bytes(event.contents))
            else:
                entry.update(text_or_bytes(self.lookup(event, "cstring")))
        elif code in b"%:+":
            contents = event.contents if isinstance(event, stream.Atom) else event.name if isinstance(event, stream.Selector) else event
            if contents is None:
                entry["nil"] = True
            else:
                entry.update(text_or_bytes(contents))
        elif code == b"#":
            index = self.read_class(event)
            if index is None:
                entry["nil"] = True
            else:
                entry["class"] = index
        elif code == b"@":
            if event is None:
                entry["nil"] = True
            elif isinstance(event, stream.ObjectReference):
                entry["object"] = self.lookup(event, "object")
            else:
                assert isinstance(event, stream.BeginObject)
                index = len(self.objects)
                self.objects.append(None)
                self.shared.append(("object", index))
                class_index = self.read_class(next(self.events))
                groups = []
                while True:
                    event = next(self.events)
                    if isinstance(event, stream.EndObject):
                        break
                    groups.append(self.group(event))
                self.objects[index] = {"class": class_index, "groups": groups}
                entry["object"] = index
        elif code == b"!":
            pass
        elif code == b"[":
            if isinstance(event, stream.ByteArray):
                entry["bytes"] = {"$data": base64.b64encode(event.data).decode()}
            else:
                assert isinstance(event, stream.BeginArray)
                entry["elements"] = [self.value(event.element_encoding, False) for _ in range(event.length)]
                assert isinstance(next(self.events), stream.EndArray)
        elif code == b"{":
            assert isinstance(event, stream.BeginStruct)
            if event.name is not None:
                entry["name"] = event.name.decode("utf-8")
            entry["fields"] = [self.value(field, False) for field in event.field_encodings]
            assert isinstance(next(self.events), stream.EndStruct)
        else:
            raise ValueError(f"unexpected encoding {encoding!r}")
        return entry

    def group(self, begin):
        assert isinstance(begin, stream.BeginTypedValues), begin
        values = [self.value(encoding, True) for encoding in begin.encodings]
        assert isinstance(next(self.events), stream.EndTypedValues)
        return values

    def convert(self):
        root = []
        for event in self.events:
            root.append(self.group(event))
        return {
            "format": "typedstream",
            "byteOrder": self.reader.byte_order,
            "streamerVersion": self.reader.streamer_version,
            "systemVersion": self.reader.system_version,
            "classes": self.classes,
            "objects": self.objects,
            "root": root,
        }


with open(sys.argv[1], "rb") as file:
    reader = stream.TypedStreamReader.from_data(file.read())
json.dump(Converter(reader).convert(), sys.stdout, indent=1)
