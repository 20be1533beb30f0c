#!/usr/bin/env python3
"""Builds Core Data SQLite stores by hand with Python's sqlite3, following the layout Core Data writes
(Z_PRIMARYKEY, Z_METADATA, one table per root entity, Z_FOK_ order columns, Z_<N><NAME> join tables, dates as
seconds since 2001, external binary data as 0x01/0x02-prefixed blobs). Hand-built: no public store has every
feature (external data, a to-one to an entity with subentities, a many-to-many join table) in one small file.

make_store.py notebook PATH [--variant NAME]   the Notebook store (model: Notebook.xcdatamodel); a variant breaks
    it one way: wal-only (the objects committed in the -wal only, -wal and -shm left as a live app leaves them),
    zmax-low, missing-column (ZNOTE without ZSCORE), date-text, transformable-not-archive, dangling (a to-one
    naming a missing row), hashes (NSStoreModelVersionHashes with Note's hash 32 bytes of 0x11)
make_store.py rows PATH COUNT                  a store of COUNT Item objects (the bench's stores)
make_store.py cache PATH MOM                   adds Z_MODELCACHE to the store at PATH: Z_CONTENT is the compiled model
    MOM compressed as raw DEFLATE, as NSData's .zlib algorithm writes it (as public readers of the cache
    decompress it: NSData.decompressed(using: .zlib), then NSKeyedUnarchiver)
"""
import os
import plistlib
import sqlite3
import sys
import uuid

STORE_UUID = "0C5A4F0E-8E0B-4C38-9E6B-6A1F2D3C4B5A"


def metadata(store_uuid=STORE_UUID, hashes=None):
    return plistlib.dumps(({"NSStoreModelVersionHashes": hashes} if hashes else {}) | {
        "NSPersistenceFrameworkVersion": 1,
        "NSStoreModelVersionIdentifiers": [""],
        "NSStoreType": "SQLite",
        "NSStoreUUID": store_uuid,
        "_NSAutoVacuumLevel": "2",
    }, fmt=plistlib.FMT_BINARY)


def layout(db, entities, store_uuid=STORE_UUID, hashes=None):
    db.execute("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
    db.executemany("INSERT INTO Z_PRIMARYKEY VALUES (?, ?, ?, ?)", entities)
    db.execute("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
    db.execute("INSERT INTO Z_METADATA VALUES (1, ?, ?)", (store_uuid, metadata(store_uuid, hashes)))


def archive_of_strings(strings):
    """An NSKeyedArchiver archive of an NSArray of strings, built with plistlib."""
    objects = ["$null", {"NS.objects": [plistlib.UID(2 + i) for i in range(len(strings))], "$class": plistlib.UID(2 + len(strings))}]
    objects += strings
    objects.append({"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]})
    return plistlib.dumps({"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": plistlib.UID(1)},
                           "$objects": objects}, fmt=plistlib.FMT_BINARY)


EXTERNAL_NAME = "9B1D2C3E-4F50-4617-8A9B-0C1D2E3F4A5B"


def notebook(path, variant):
    wal_only = variant == "wal-only"
    db = sqlite3.connect(path, isolation_level=None)
    if wal_only:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
    z_max_note = 1 if variant == "zmax-low" else 3
    hashes = {"Note": bytes([0x11] * 32)} if variant == "hashes" else None
    layout(db, [(1, "Folder", 0, 2), (2, "Label", 0, 2), (3, "Note", 0, z_max_note), (4, "Checklist", 3, 0)], hashes=hashes)
    db.execute("CREATE TABLE ZFOLDER (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR)")
    db.execute("CREATE TABLE ZLABEL (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFAVOURITE INTEGER, "
               "Z3FAVOURITE INTEGER, ZTITLE VARCHAR)")
    score = "" if variant == "missing-column" else "ZSCORE FLOAT, "
    db.execute("CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOUNT INTEGER, ZITEMS INTEGER, "
               "ZPINNED INTEGER, ZFOLDER INTEGER, Z_FOK_FOLDER INTEGER, ZCREATED TIMESTAMP, " + score +
               "ZPRICE DECIMAL, ZTITLE VARCHAR, ZLINK VARCHAR, ZBODY BLOB, ZEXTRA BLOB, ZIDENTIFIER BLOB)")
    db.execute("CREATE TABLE Z_2NOTES (Z_2LABELS INTEGER, Z_3NOTES INTEGER, PRIMARY KEY (Z_2LABELS, Z_3NOTES))")
    if wal_only:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # The layout in the main file, the objects in the -wal only.
    db.execute("BEGIN")
    db.executemany("INSERT INTO ZFOLDER VALUES (?, 1, 1, ?)", [(1, "Inbox"), (2, "Archive")])
    db.executemany("INSERT INTO ZLABEL VALUES (?, 2, 1, ?, ?, ?)", [(1, None, None, "red"), (2, 3, 4, "blue")])
    created = "yesterday" if variant == "date-text" else 600000000.5
    extra2 = b"not an archive" if variant == "transformable-not-archive" else None
    folder2 = 9 if variant == "dangling" else 2
    columns = ("Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZITEMS, ZPINNED, ZFOLDER, Z_FOK_FOLDER, ZCREATED, "
               + ("" if variant == "missing-column" else "ZSCORE, ")
               + "ZPRICE, ZTITLE, ZLINK, ZBODY, ZEXTRA, ZIDENTIFIER")
    rows = [
        (1, 3, 2, 42, None, 1, 1, 2048, created, 2.5, "12.75", "Shopping", "https://example.com/a?b=c",
         b"\x01" + bytes(range(8)), archive_of_strings(["milk", "bread"]),
         uuid.UUID("6F9619FF-8B86-D011-B42D-00C04FC964FF").bytes),
        (2, 3, 1, -7, None, 0, folder2, 1024, None, None, None, "Lecture notes \u00e9\u6f22", None,
         b"\x02" + EXTERNAL_NAME.encode() + b"\x00", extra2, None),
        (3, 4, 1, None, 5, 0, 1, 1024, -31622400.0, 1e300, "3", "Packing", None, None, None, None),
    ]
    if variant == "missing-column":
        rows = [row[:9] + row[10:] for row in rows]
    db.executemany("INSERT INTO ZNOTE (" + columns + ") VALUES (" + ", ".join("?" * len(rows[0])) + ")", rows)
    db.executemany("INSERT INTO Z_2NOTES VALUES (?, ?)", [(1, 1), (2, 1), (1, 3)])
    db.execute("COMMIT")
    if wal_only:
        # Leave the -wal and -shm as a live Core Data app leaves them: copy them while the connection is open.
        import shutil
        for suffix in ("", "-wal", "-shm"):
            shutil.copyfile(path + suffix, path + ".keep" + suffix)
        db.close()
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
            os.rename(path + ".keep" + suffix, path + suffix)
    else:
        db.close()
    support = os.path.join(os.path.dirname(path), "." + os.path.splitext(os.path.basename(path))[0] + "_SUPPORT", "_EXTERNAL_DATA")
    os.makedirs(support, exist_ok=True)
    with open(os.path.join(support, EXTERNAL_NAME), "wb") as f:
        f.write(b"external bytes")


def rows(path, count):
    """COUNT Item objects: title, created (a date), count, score — the bench's stores."""
    db = sqlite3.connect(path, isolation_level=None)
    layout(db, [(1, "Item", 0, count)])
    db.execute("CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOUNT INTEGER, "
               "ZCREATED TIMESTAMP, ZSCORE FLOAT, ZTITLE VARCHAR)")
    db.execute("BEGIN")
    db.executemany("INSERT INTO ZITEM VALUES (?, 1, 1, ?, ?, ?, ?)",
                   ((i, i * 7 % 1000, 700000000.0 + i, i / 8, "item %d" % i) for i in range(1, count + 1)))
    db.execute("COMMIT")
    db.close()


if __name__ == "__main__":
    kind, target = sys.argv[1], sys.argv[2]
    if kind == "notebook":
        notebook(target, sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--variant" else "")
    elif kind == "rows":
        rows(target, int(sys.argv[3]))
    elif kind == "cache":
        import zlib
        with open(sys.argv[3], "rb") as f:
            compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
            content = compressor.compress(f.read()) + compressor.flush()
        db = sqlite3.connect(target, isolation_level=None)
        db.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        db.execute("INSERT INTO Z_MODELCACHE VALUES (?)", (content,))
        db.close()
    else:
        sys.exit("unknown store kind " + kind)
