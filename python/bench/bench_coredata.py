"""Row Y8 of `make bench`: ictkit.coredata iterating a 1,000,000-object Core Data store against Python's sqlite3
fetching the same store's raw rows.

The store is made by make_coredata_bench_store.py (beside this file; its docstring gives its provenance: Apple's
schema, model cache and indexes from WhatsApp's CallHistory.sqlite, with 1,000,000 objects added by Python's sqlite3)
in the data directory, once. Both sides are whole Python calls, each in this interpreter, medians over `runs` after a
warm-up:
  - ictkit: `for item in ictkit.coredata.open(path): pass`: every object built as a dict, values typed by the model
    (dates as datetime, relationships as object-ID URIs: the to-many `callEvents` and `participants` of every
    object looked up by their indexes);
  - sqlite3: `sqlite3.connect(path)`, then `cursor.execute("SELECT * FROM T").fetchall()` for every entity table of
    Z_PRIMARYKEY: the raw rows as tuples, nothing decoded, no relationship followed.
ratio = sqlite3's seconds / ictkit's; the target is 1.0 (ictkit no slower).

Usage: bench_coredata.py [DATA_DIRECTORY] [RUNS]  (defaults: .build-bench-python, 5)
"""

import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_coredata_bench_store  # noqa: E402

from ictkit import coredata  # noqa: E402

ROW = "Y8. ictkit.coredata iterates a 1,000,000-object store"
PEER = "sqlite3 fetchall (raw rows)"
TARGET = 1.0
STORE_NAME = "coredata-1m.sqlite"


def store_path(data_directory):
    """The bench store in `data_directory`, made when it is not there."""
    path = os.path.join(data_directory, STORE_NAME)
    if not os.path.exists(path):
        os.makedirs(data_directory, exist_ok=True)
        make_coredata_bench_store.make(path)
    return path


def ictkit_iterate(path):
    count = 0
    for _ in coredata.open(path):
        count += 1
    return count


def sqlite3_fetch(path):
    connection = sqlite3.connect(path)
    try:
        cursor = connection.cursor()
        rows = cursor.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").fetchall()
        by_number = {number: (name, parent) for number, name, parent in rows}
        tables = []
        for number, _, _ in rows:
            root = number
            while by_number[root][1] != 0:
                root = by_number[root][1]
            table = "Z" + by_number[root][0].upper()
            if table not in tables:
                tables.append(table)
        count = 0
        for table in tables:
            count += len(cursor.execute(f'SELECT * FROM "{table}"').fetchall())
        return count
    finally:
        connection.close()


def median_seconds(call, runs):
    call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rows(data_directory, runs):
    """[(row_name, ictkit_seconds, peer_name, peer_seconds, target, note)]: ratio = peer_seconds / ictkit_seconds,
    passing when at least `target`."""
    path = store_path(data_directory)
    objects, raw_rows = ictkit_iterate(path), sqlite3_fetch(path)
    if objects != raw_rows:
        raise AssertionError(f"ictkit read {objects} objects, sqlite3 {raw_rows} rows")
    ours = median_seconds(lambda: ictkit_iterate(path), runs)
    theirs = median_seconds(lambda: sqlite3_fetch(path), runs)
    note = (f"{objects:,} objects (WhatsApp's CallHistory schema, make_coredata_bench_store.py); ictkit: every object "
            f"as a dict, typed, relationships as URIs; sqlite3: SELECT * fetchall() per entity table; median of {runs} "
            "after a warm-up")
    return [(ROW, ours, PEER, theirs, TARGET, note)]


if __name__ == "__main__":
    directory = sys.argv[1] if len(sys.argv) > 1 else ".build-bench-python"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    for name, ours, peer, theirs, target, note in rows(directory, runs):
        ratio = theirs / ours
        verdict = "PASS" if ratio >= target else "FAIL"
        print(f"{name}: ictkit {ours:.2f} s, {peer} {theirs:.2f} s: ratio {ratio:.2f} (target >= {target}) {verdict}")
        print(f"  {note}")
