#!/usr/bin/env python3
"""The tests' independent reading of a store: Python's sqlite3 and plistlib, values decoded by hand from the
fixture's model as written out below (not from ICTKit), printed as JSON lines in the form `ict convert --jsonl`
documents: {"id": "x-coredata://UUID/Entity/pN", "entity": ..., "values": {...}}, dates {"$date": ISO 8601},
data {"$data": base64}, a keyed archive in its JSON form ({"archiver", "version", "top", "objects"}, UIDs
{"$uid": n}). Run it on a copy: it does not care what sqlite3 writes beside the file.

read_store.py STORE notebook|books|columns
"""
import base64
import datetime
import json
import plistlib
import sqlite3
import sys
import uuid

REFERENCE = datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)

# attribute name -> type, in the model's order (Xcode writes them sorted), then relationships.
NOTE_ATTRIBUTES = [("body", "external"), ("count", "int"), ("created", "date"), ("extra", "transformable"),
                   ("identifier", "uuid"), ("link", "string"), ("pinned", "bool"), ("price", "decimal"),
                   ("score", "real"), ("title", "string")]
MODELS = {
    "notebook": {
        "Folder": ([("name", "string")], [("notes", "ordered-inverse", "Note", "FOLDER")]),
        "Label": ([("title", "string")], [("favourite", "to-one-typed", "Note", None),
                                         ("notes", "join", "Note", ("Z_2NOTES", "Z_2LABELS", "Z_3NOTES"))]),
        "Note": (NOTE_ATTRIBUTES, [("folder", "to-one", "Folder", None),
                                   ("labels", "join", "Label", ("Z_2NOTES", "Z_3NOTES", "Z_2LABELS"))]),
        "Checklist": (NOTE_ATTRIBUTES + [("items", "int")], [("folder", "to-one", "Folder", None),
                                                               ("labels", "join", "Label", ("Z_2NOTES", "Z_3NOTES", "Z_2LABELS"))]),
    },
    "books": {"Book": ([("author", "string"), ("copyright", "date"), ("title", "string")], [])},
}


def date_form(seconds):
    moment = REFERENCE + datetime.timedelta(seconds=seconds)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = repr(float(seconds)).split(".")[1] if "." in repr(float(seconds)) and "e" not in repr(float(seconds)) else "0"
    if fraction != "0":
        text += "." + fraction
    return {"$date": text + "Z"}


def plist_json(value):
    """A plistlib value in JSONPropertyListWriter's form."""
    if isinstance(value, plistlib.UID):
        return {"$uid": value.data}
    if isinstance(value, bytes):
        return {"$data": base64.b64encode(value).decode()}
    if isinstance(value, dict):
        return {k: plist_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plist_json(v) for v in value]
    return value


def decode(kind, value):
    if value is None:
        return None
    if kind == "string":
        return value
    if kind == "int":
        return value
    if kind == "bool":
        return value != 0
    if kind == "real":
        return float(value)
    if kind == "date":
        return date_form(value)
    if kind == "decimal":
        return str(value) if not isinstance(value, float) or value != int(value) else str(value)
    if kind == "uuid":
        return str(uuid.UUID(bytes=value)).upper()
    if kind == "external":
        if value[0] == 1:
            return {"$data": base64.b64encode(value[1:]).decode()}
        return {"externalDataFile": value[1:].split(b"\0")[0].decode()}
    if kind == "transformable":
        archive = plistlib.loads(value)
        return {"archiver": archive["$archiver"], "version": archive["$version"],
                "top": plist_json(archive["$top"]), "objects": plist_json(archive["$objects"])}
    raise ValueError(kind)


def main():
    path, model_name = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(path)
    store_uuid = db.execute("SELECT Z_UUID FROM Z_METADATA").fetchone()[0]
    entities = {ent: (name, sup) for ent, name, sup in db.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY")}
    by_name = {name: ent for ent, (name, _) in entities.items()}

    def root(ent):
        while entities[ent][1]:
            ent = entities[ent][1]
        return entities[ent][0]

    def oid(entity, pk):
        return "x-coredata://%s/%s/p%d" % (store_uuid, entity, pk)

    tables = []
    for ent in sorted(entities):
        table = "Z" + root(ent).upper()
        if table not in tables:
            tables.append(table)
    for table in tables:
        cursor = db.execute("SELECT * FROM %s ORDER BY Z_PK" % table)
        names = [d[0] for d in cursor.description]
        for row in cursor.fetchall():
            row = dict(zip(names, row))
            entity = entities[row["Z_ENT"]][0]
            values = {}
            if model_name == "columns":
                for column in names:
                    if column in ("Z_PK", "Z_ENT", "Z_OPT") or row[column] is None:
                        continue
                    value = row[column]
                    values[column] = {"$data": base64.b64encode(value).decode()} if isinstance(value, bytes) else value
            else:
                attributes, relationships = MODELS[model_name][entity]
                for name, kind in attributes:
                    value = decode(kind, row["Z" + name.upper()])
                    if value is not None:
                        values[name] = value
                for name, kind, destination, how in relationships:
                    if kind == "to-one" and row["Z" + name.upper()] is not None:
                        values[name] = oid(destination, row["Z" + name.upper()])
                    elif kind == "to-one-typed" and row["Z" + name.upper()] is not None:
                        values[name] = oid(entities[row["Z3" + name.upper()]][0], row["Z" + name.upper()])
                    elif kind == "ordered-inverse":
                        found = db.execute("SELECT Z_PK, Z_ENT FROM Z%s WHERE Z%s = ? ORDER BY Z_FOK_%s"
                                           % (root(by_name[destination]).upper(), how, how), (row["Z_PK"],)).fetchall()
                        values[name] = [oid(entities[e][0], pk) for pk, e in found]
                    elif kind == "join":
                        join, mine, theirs = how
                        found = db.execute("SELECT J.%s, D.Z_ENT FROM %s J JOIN Z%s D ON D.Z_PK = J.%s WHERE J.%s = ? ORDER BY J.%s"
                                           % (theirs, join, root(by_name[destination]).upper(), theirs, mine, theirs),
                                           (row["Z_PK"],)).fetchall()
                        values[name] = [oid(entities[e][0], pk) for pk, e in found]
            print(json.dumps({"id": oid(entity, row["Z_PK"]), "entity": entity, "values": values}, ensure_ascii=False))


main()
