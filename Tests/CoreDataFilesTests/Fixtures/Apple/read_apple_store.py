#!/usr/bin/env python3
"""The independent reading of a store written by Apple's Core Data, for StoreReaderAppleTests.

Usage: read_apple_store.py STORE < SAMPLES_JSON

STORE is a copy of the store (its -wal and -shm beside it, if any). Prints one
JSON document: the store's UUID (Z_METADATA), each entity of Z_PRIMARYKEY with
its number and how many rows of its table have its Z_ENT, and for each sample
({"entity", "pk", "column", "kind"}) the column's value in the entity's table,
decoded by hand for its kind:

- "date": the REAL seconds since 2001-01-01 00:00:00 UTC, as stored;
- "string", "integer", "real": as sqlite3 gives them;
- "decimal": the stored number as text (str of what sqlite3 gives);
- "uuid": 16 bytes as upper-case 8-4-4-4-12 text;
- "boolean": 0 or 1 as false or true;
- "object": the x-coredata:// URI of the object of the row's entity named by
  the integer key (the entity from the Z<N><NAME> column beside it when the
  caller gives "entityColumn", else the sample's "destination");
- "gzip-text-contains": the blob gunzipped, then whether it contains the
  sample's "text" in UTF-8 (the note text of Apple Notes' ZDATA, a gzip of a
  protocol buffer).

Tables follow Core Data's layout: Z + the root entity's name in upper case; for
the persistent-history entities (Z_ENT from 16001) A + the name. Only Python's
sqlite3, json, gzip and uuid are used.
"""
import gzip
import json
import sqlite3
import sys
import uuid

store = sys.argv[1]
samples = json.load(sys.stdin)
db = sqlite3.connect(store)
db.row_factory = None
tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
store_uuid = db.execute("SELECT Z_UUID FROM Z_METADATA").fetchone()[0]
rows = db.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").fetchall()
by_number = {number: (name, parent) for number, name, parent in rows}
by_name = {name: number for number, name, _ in rows}


def table_of(number):
    name, parent = by_number[number]
    root = number
    while by_number[root][1] != 0:
        root = by_number[root][1]
    table = 'Z' + by_number[root][0].upper()
    if number >= 16001 and parent == 0 and table not in tables and ('A' + name.upper()) in tables:
        table = 'A' + name.upper()
    return table


entities = []
for number, name, _ in rows:
    count = db.execute(f'SELECT count(*) FROM "{table_of(number)}" WHERE Z_ENT = ?', (number,)).fetchone()[0]
    entities.append({'name': name, 'number': number, 'count': count})

values = []
for sample in samples:
    table = table_of(by_name[sample['entity']])
    value = db.execute(f'SELECT "{sample["column"]}" FROM "{table}" WHERE Z_PK = ?', (sample['pk'],)).fetchone()[0]
    kind = sample['kind']
    if value is None:
        values.append(None)
    elif kind in ('date', 'real'):
        values.append(float(value))
    elif kind in ('string', 'integer'):
        values.append(value)
    elif kind == 'decimal':
        values.append(str(value))
    elif kind == 'boolean':
        values.append(bool(value))
    elif kind == 'uuid':
        values.append(str(uuid.UUID(bytes=bytes(value))).upper())
    elif kind == 'object':
        destination = sample.get('destination')
        if 'entityColumn' in sample:
            number = db.execute(f'SELECT "{sample["entityColumn"]}" FROM "{table}" WHERE Z_PK = ?', (sample['pk'],)).fetchone()[0]
            destination = by_number[number][0]
        values.append(f'x-coredata://{store_uuid}/{destination}/p{value}')
    elif kind == 'gzip-text-contains':
        values.append(sample['text'].encode('utf-8') in gzip.decompress(bytes(value)))
    else:
        sys.exit(f'unknown kind {kind}')

print(json.dumps({'uuid': store_uuid, 'entities': entities, 'values': values}))
