"""Makes the 1,000,000-object Core Data store that bench_coredata.py reads (row Y8).

Provenance: the store is a copy of Tests/CoreDataFilesTests/Fixtures/Apple/CallHistory.sqlite, WhatsApp's call
history as Core Data wrote it on iOS 15.3.1 (Josh Hickman's public test image, from iLEAPP's test data at commit
423798fa; see that folder's PROVENANCE.md), byte for byte: its Z_METADATA, Z_MODELCACHE, Z_PRIMARYKEY, entity
tables and indexes are Apple's (its -wal is empty, so the file alone is the whole store). Then, with Python's sqlite3
and nothing else, its 12 objects are replaced by 1,000,000 made from them: 100,000 WAAggregateCallEvent, 800,000
WACDCallEvent (8 per aggregate event, in its ordered to-many `callEvents`: Z1CALLEVENTS and Z_FOK_1CALLEVENTS as
Core Data writes them) and 100,000 WACDCallEventParticipant (one in every 8th call event's `participants`), each a
copy of one of the store's own rows of its entity with its primary key, dates (spread over a year) and relationship
keys changed; Z_PRIMARYKEY's Z_MAX is set to the largest key of each. Nothing else of the store is touched.

Usage: make_coredata_bench_store.py OUTPUT  (about 20 s; the file is about 150 MB)
"""

import os
import shutil
import sqlite3
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "Tests" / "CoreDataFilesTests" / "Fixtures" / "Apple" / "CallHistory.sqlite"
AGGREGATES, EVENTS_PER_AGGREGATE = 100_000, 8


def make(output):
    """Writes the store at `output` (replacing one there) and returns its path."""
    output = os.fspath(output)
    for suffix in ("", "-wal", "-shm", ".partial", ".partial-wal", ".partial-shm"):
        if os.path.exists(output + suffix):
            os.remove(output + suffix)
    partial = output + ".partial"
    shutil.copyfile(SOURCE, partial)
    db = sqlite3.connect(partial)
    db.execute("PRAGMA synchronous = OFF")

    def templates(table):
        cursor = db.execute(f'SELECT * FROM "{table}" ORDER BY Z_PK')
        return [description[0] for description in cursor.description], cursor.fetchall()

    tables = {}
    for table in ("ZWAAGGREGATECALLEVENT", "ZWACDCALLEVENT", "ZWACDCALLEVENTPARTICIPANT"):
        tables[table] = templates(table)
        db.execute(f'DELETE FROM "{table}"')

    def insert(table, count, change):
        names, rows = tables[table]
        sql = f'INSERT INTO "{table}" ({", ".join(names)}) VALUES ({", ".join("?" * len(names))})'

        def generated():
            for index in range(count):
                row = dict(zip(names, rows[index % len(rows)]))
                row["Z_PK"] = index + 1
                change(row, index)
                yield tuple(row[name] for name in names)

        db.executemany(sql, generated())

    start = 704736730.0  # the first call event's ZDATE in the store (2023-05-02)

    def aggregate(row, index):
        row["ZFIRSTDATE"] = start + index * 315.36

    def event(row, index):
        row["ZDATE"] = start + index * 39.42 + 0.0672107
        row["Z1CALLEVENTS"] = index // EVENTS_PER_AGGREGATE + 1
        row["Z_FOK_1CALLEVENTS"] = (index % EVENTS_PER_AGGREGATE + 1) * 2048

    def participant(row, index):
        row["Z1PARTICIPANTS"] = index + 1
        row["Z_FOK_1PARTICIPANTS"] = 2048

    events = AGGREGATES * EVENTS_PER_AGGREGATE
    insert("ZWAAGGREGATECALLEVENT", AGGREGATES, aggregate)
    insert("ZWACDCALLEVENT", events, event)
    insert("ZWACDCALLEVENTPARTICIPANT", AGGREGATES, participant)
    for name, largest in (("WAAggregateCallEvent", AGGREGATES), ("WACDCallEvent", events),
                          ("WACDCallEventParticipant", AGGREGATES)):
        db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = ?", (largest, name))
    db.commit()
    db.close()  # the last connection: SQLite checkpoints the -wal into the file and removes it
    os.replace(partial, output)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(partial + suffix):
            os.remove(partial + suffix)
    return output


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[-1])
    print(make(sys.argv[1]))
