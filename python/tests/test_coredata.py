"""ictkit.coredata's tests, run on the installed package (make python-test): every store Core Data wrote among the
repository's fixtures (Tests/CoreDataFilesTests/Fixtures/Apple/PROVENANCE.md and stores/SOURCES.md) read object by
object and compared with its rows as Python's sqlite3 gives them, the values decoded here; hostile stores refused with
their places; threads."""

import concurrent.futures
import datetime
import decimal
import os
import shutil
import sqlite3
import tempfile
import unittest
import uuid

from test_ictkit import REPOSITORY, corpus_files

from ictkit import coredata

FIXTURES = REPOSITORY / "Tests" / "CoreDataFilesTests" / "Fixtures"
# Every store of the fixtures that Core Data wrote (the hand-built ones of stores/make_store.py are left out: they
# would prove only our reading of the format).
STORES = [FIXTURES / "stores" / "CoreDataBooks.sqlite"] + sorted(
    path for path in (FIXTURES / "Apple").glob("*.sqlite"))
REFERENCE_DATE = datetime.datetime(2001, 1, 1)


def copy_store(source, folder):
    """A copy of the store with its -wal and -shm, so nothing opens a fixture itself."""
    target = os.path.join(folder, source.name)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(str(source) + suffix):
            shutil.copyfile(str(source) + suffix, target + suffix)
    return target


def checksums(path):
    found = {}
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            with open(path + suffix, "rb") as file:
                found[suffix] = file.read()
    return found


class SQLiteReading:
    """A store read with Python's sqlite3 and decoded here: Core Data's layout as its stores show it (tables Z + the
    root entity's name, A + the name for persistent history from Z_ENT 16001; columns Z + the property's name in
    upper case, numbered entity by entity in Z_ENT order where a table's entities declare one name twice), values
    typed by the model the store caches (as ictkit.coredata gives it: the model is the input here, the rows are
    what is compared)."""

    def __init__(self, path, model):
        self.db = sqlite3.connect(path)
        self.tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.store_uuid = self.db.execute("SELECT Z_UUID FROM Z_METADATA").fetchone()[0]
        self.rows = self.db.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").fetchall()
        self.by_number = {number: (name, parent) for number, name, parent in self.rows}
        self.model = {entity["name"]: entity for entity in model.get("entities", [])}
        self.columns = {}
        used = {}
        for number, name, _ in self.rows:
            entity = self.model.get(name)
            if entity is None:
                continue
            taken = used.setdefault(self.table_of(number), {"Z_PK", "Z_ENT", "Z_OPT"})
            inherited = {prop["name"] for parent in self.superentities(name)
                         for prop in parent["attributes"] + parent["relationships"]}
            own = [a["name"] for a in entity["attributes"] if not a["transient"]]
            own += [r["name"] for r in entity["relationships"] if not r["transient"] and not r["toMany"]]
            mapping = {}
            for prop in sorted(own):
                if prop in inherited:
                    continue
                column, suffix = "Z" + prop.upper(), 1
                while column in taken:
                    column, suffix = "Z" + prop.upper() + str(suffix), suffix + 1
                taken.add(column)
                mapping[prop] = column
            self.columns[name] = mapping

    def superentities(self, name):
        found, seen = [], {name}
        parent = self.model[name].get("superentity")
        while parent and parent not in seen and parent in self.model:
            seen.add(parent)
            found.append(self.model[parent])
            parent = self.model[parent].get("superentity")
        return found

    def column_of(self, entity, prop):
        for name in [entity] + [parent["name"] for parent in self.superentities(entity)]:
            if prop in self.columns.get(name, {}):
                return self.columns[name][prop]
        return "Z" + prop.upper()

    def table_of(self, number):
        name, parent = self.by_number[number]
        root = number
        while self.by_number[root][1] != 0:
            root = self.by_number[root][1]
        table = "Z" + self.by_number[root][0].upper()
        if number >= 16001 and parent == 0 and table not in self.tables and "A" + name.upper() in self.tables:
            table = "A" + name.upper()
        return table

    def uri(self, entity, key):
        return f"x-coredata://{self.store_uuid}/{entity}/p{key}"

    def attribute(self, attribute, value, table, key, column):
        kind = attribute["type"]
        if value is None:
            return None
        if kind == "Boolean":
            return bool(value)
        if kind in ("Double", "Float"):
            return float(value)
        if kind == "Date":
            return REFERENCE_DATE + datetime.timedelta(seconds=value)
        if kind == "Decimal":
            text = self.db.execute(f'SELECT CAST("{column}" AS TEXT) FROM "{table}" WHERE Z_PK = ?', (key,)).fetchone()[0]
            return decimal.Decimal(text)
        if kind == "UUID":
            return uuid.UUID(bytes=bytes(value)) if isinstance(value, bytes) else uuid.UUID(value)
        if kind == "Binary" and attribute["allowsExternalBinaryDataStorage"]:
            if value[0] == 1:
                return bytes(value[1:])
            return coredata.ExternalData(bytes(value[1:]).split(b"\0")[0].decode())
        if kind in ("Binary", "Transformable"):
            return bytes(value)
        return value

    def to_many(self, entity, relationship, key):
        """The destinations' IDs: the destination's rows naming this object (by an inverse to-one, in Z_FOK_ order
        when ordered, or by Core Data's hidden Z<N><NAME> column for a to-many without an inverse), or a join
        table's rows for a many-to-many; None when none of these is found."""
        destination = relationship["destination"]
        numbers = [number for number, (name, _) in self.by_number.items() if name == destination]
        if not numbers or destination not in self.model:
            return None
        table = self.table_of(numbers[0])
        columns = [row[1] for row in self.db.execute(f'PRAGMA table_info("{table}")')]
        inverse = next((r for r in self.model[destination]["relationships"] + [r for p in self.superentities(destination)
                                                                               for r in p["relationships"]]
                        if r["name"] == relationship.get("inverse")), None)
        upper = relationship["name"].upper()
        if inverse is None:
            hidden = [c for c in columns if c.startswith("Z") and c.endswith(upper) and c[1:-len(upper)].isdigit()]
            if not hidden:
                return None
            column, order = hidden[0], "Z_PK"
        elif inverse["toMany"]:
            # Many-to-many: a join table Z_<N><NAME> (or named after the inverse) with a column Z_<N><NAME> per side.
            def joined(name, suffix):
                return name.startswith("Z_") and name.endswith(suffix) and name[2:-len(suffix)].isdigit()

            inverse_upper = inverse["name"].upper()
            join = next((t for t in sorted(self.tables) if joined(t, upper)), None) or next(
                (t for t in sorted(self.tables) if joined(t, inverse_upper)), None)
            if join is None:
                return None
            join_columns = [row[1] for row in self.db.execute(f'PRAGMA table_info("{join}")')]
            mine = next((c for c in join_columns if joined(c, inverse_upper)), None)
            theirs = next((c for c in join_columns if joined(c, upper) and c != mine), None)
            if mine is None or theirs is None:
                return None
            rows = self.db.execute(f'SELECT J."{theirs}", D.Z_ENT FROM "{join}" J LEFT JOIN "{table}" D ON D.Z_PK = J."{theirs}" '
                                   f'WHERE J."{mine}" = ? ORDER BY J."{theirs}"', (key,))
            return [self.uri(self.by_number[number][0] if number in self.by_number else destination, pk)
                    for pk, number in rows]
        else:
            column = self.column_of(destination, inverse["name"])
            order = "Z_FOK_" + inverse["name"].upper()
            order = order if order in columns else "Z_PK"
        rows = self.db.execute(f'SELECT Z_PK, Z_ENT FROM "{table}" WHERE "{column}" = ? ORDER BY "{order}"', (key,))
        return [self.uri(self.by_number[number][0] if number in self.by_number else destination, pk) for pk, number in rows]

    def objects(self, model_source):
        """Every object, table by table in Z_PRIMARYKEY's order, by Z_PK; a to-many this reading cannot follow as
        None."""
        done = set()
        for number, _, _ in self.rows:
            table = self.table_of(number)
            if table in done:
                continue
            done.add(table)
            cursor = self.db.execute(f'SELECT * FROM "{table}" ORDER BY Z_PK')
            names = [description[0] for description in cursor.description]
            for values in cursor:
                row = dict(zip(names, values))
                entity_name = self.by_number[row["Z_ENT"]][0]
                entity = self.model.get(entity_name) if model_source != "none" else None
                result = {"objectID": self.uri(entity_name, row["Z_PK"]), "entity": entity_name}
                if entity is None:
                    result.update((name, value) for name, value in row.items() if name not in ("Z_PK", "Z_ENT", "Z_OPT"))
                    yield result
                    continue
                for attribute in [a for p in reversed(self.superentities(entity_name)) for a in p["attributes"]] + entity["attributes"]:
                    if attribute["transient"]:
                        continue
                    column = self.column_of(entity_name, attribute["name"])
                    result[attribute["name"]] = self.attribute(attribute, row[column], table, row["Z_PK"], column)
                relationships = [r for p in reversed(self.superentities(entity_name)) for r in p["relationships"]]
                for relationship in relationships + entity["relationships"]:
                    if relationship["transient"]:
                        continue
                    if relationship["toMany"]:
                        result[relationship["name"]] = self.to_many(entity_name, relationship, row["Z_PK"])
                        continue
                    column = self.column_of(entity_name, relationship["name"])
                    key = row[column]
                    upper = relationship["name"].upper()
                    entity_column = next((c for c in names if c.startswith("Z") and c.endswith(upper)
                                          and c[1:-len(upper)].isdigit()), None)
                    destination = relationship["destination"]
                    if entity_column and isinstance(row[entity_column], int):
                        destination = self.by_number[row[entity_column]][0]
                    result[relationship["name"]] = None if key is None else self.uri(destination, key)
                yield result


class StoreTests(unittest.TestCase):
    def test_every_fixture_store_equals_sqlite3_rows_decoded_here(self):
        self.assertGreaterEqual(len(STORES), 12)
        for source in STORES:
            with self.subTest(store=source.name), tempfile.TemporaryDirectory() as folder:
                os.mkdir(os.path.join(folder, "ictkit"))
                os.mkdir(os.path.join(folder, "sqlite3"))
                path = copy_store(source, os.path.join(folder, "ictkit"))
                before = checksums(path)
                with coredata.open(path) as store:
                    objects = list(store)
                    model_source, model = store.model_source, store.model
                    by_id = {}
                self.assertEqual(checksums(path), before, "the store, its -wal or -shm changed")
                reading = SQLiteReading(copy_store(source, os.path.join(folder, "sqlite3")), model)
                expected = list(reading.objects(model_source))
                self.assertEqual(len(objects), len(expected))
                self.assertGreater(len(objects), 0)
                known = {item["objectID"] for item in expected}
                unread = 0
                for got, wanted in zip(objects, expected):
                    for name, value in wanted.items():
                        if value is None and isinstance(got.get(name), list):
                            # A relationship this reading does not follow: object IDs of objects of the store.
                            self.assertTrue(all(item in known for item in got[name]), (name, got[name]))
                            wanted[name] = got[name]
                            unread += 1
                    self.assertEqual(got, wanted)
                    by_id[got["objectID"]] = got
                self.assertEqual(unread, 0, "to-many relationships this reading could not follow")
                self.assertEqual(len(by_id), len(objects))

    def test_store_description(self):
        with tempfile.TemporaryDirectory() as folder:
            path = copy_store(FIXTURES / "Apple" / "CallHistory.sqlite", folder)
            with coredata.open(path) as store:
                self.assertEqual(store.model_source, "modelCache")
                db = sqlite3.connect(copy_store(FIXTURES / "Apple" / "CallHistory.sqlite", tempfile.mkdtemp(dir=folder)))
                self.assertEqual(store.store_identifier, db.execute("SELECT Z_UUID FROM Z_METADATA").fetchone()[0])
                rows = db.execute("SELECT Z_NAME, Z_ENT, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").fetchall()
                self.assertEqual([(e["name"], e["number"], e["superentityNumber"], e["maximumPrimaryKey"])
                                  for e in store.entities], rows)
                self.assertEqual(sorted(e["name"] for e in store.model["entities"]), sorted(row[0] for row in rows))

    def test_objects_stream_in_batches(self):
        with tempfile.TemporaryDirectory() as folder:
            path = copy_store(FIXTURES / "Apple" / "NoteStore-iOS17.sqlite", folder)
            store = coredata.open(path)
            self.assertEqual(list(store.objects(batch_size=1)), list(store.objects(batch_size=100000)))


class HostileStoreTests(unittest.TestCase):
    def assertRefused(self, path, **place):
        """The store refused, at open or while its objects are read, with a StoreError with `place`."""
        with self.assertRaises(coredata.StoreError) as caught:
            for _ in coredata.open(path):
                pass
        for name, value in place.items():
            self.assertEqual(getattr(caught.exception, name), value, str(caught.exception))
        return caught.exception

    def test_not_sqlite_is_refused_at_byte_zero(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "garbage.sqlite")
            with open(path, "wb") as file:
                file.write(b"garbage, not SQLite " * 40)
            self.assertRefused(path, code="notSQLite", byte_offset=0)

    def test_truncated_store_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            data = (FIXTURES / "stores" / "CoreDataBooks.sqlite").read_bytes()
            for length in (0, 50, 100, 2000, 4096, 6000, len(data) // 2, len(data) - 100):
                path = os.path.join(folder, f"cut{length}.sqlite")
                with open(path, "wb") as file:
                    file.write(data[:length])
                try:
                    list(coredata.open(path))
                except coredata.StoreError as error:
                    self.assertTrue(error.table or error.byte_offset == 0 or error.code == "file", str(error))
                else:
                    self.fail(f"{length} bytes read")

    def test_missing_table_names_it(self):
        with tempfile.TemporaryDirectory() as folder:
            path = copy_store(FIXTURES / "stores" / "CoreDataBooks.sqlite", folder)
            db = sqlite3.connect(path)
            db.execute("DROP TABLE ZBOOK")
            db.commit()
            db.close()
            self.assertRefused(path, code="store", table="ZBOOK", row=-1)
            db = sqlite3.connect(path)
            db.execute("DROP TABLE Z_PRIMARYKEY")
            db.commit()
            db.close()
            self.assertRefused(path, table="Z_PRIMARYKEY")

    def test_wrong_type_names_table_row_column_after_the_objects_before_it(self):
        with tempfile.TemporaryDirectory() as folder:
            path = copy_store(FIXTURES / "Apple" / "CallHistory.sqlite", folder)
            db = sqlite3.connect(path)
            key = db.execute("SELECT max(Z_PK) FROM ZWACDCALLEVENTPARTICIPANT").fetchone()[0]
            db.execute("UPDATE ZWACDCALLEVENTPARTICIPANT SET ZJIDSTRING = ? WHERE Z_PK = ?", (b"\x00\x01", key))
            date_key = db.execute("SELECT min(Z_PK) FROM ZWACDCALLEVENT").fetchone()[0]
            db.commit()
            db.close()
            read = []
            with self.assertRaises(coredata.StoreError) as caught:
                for item in coredata.open(path).objects(batch_size=1000):
                    read.append(item)
            error = caught.exception
            self.assertEqual((error.code, error.table, error.row, error.column),
                             ("store", "ZWACDCALLEVENTPARTICIPANT", key, "ZJIDSTRING"))
            self.assertIn("String", error.reason)
            self.assertTrue(read and read[-1]["entity"] == "WACDCallEventParticipant")
            # A date beyond datetime's years: refused at its row, with the property.
            db = sqlite3.connect(path)
            db.execute("UPDATE ZWACDCALLEVENTPARTICIPANT SET ZJIDSTRING = 'x'")
            db.execute("UPDATE ZWACDCALLEVENT SET ZDATE = 1e300 WHERE Z_PK = ?", (date_key,))
            db.commit()
            db.close()
            self.assertRefused(path, table="ZWACDCALLEVENT", row=date_key, column="date")

    def test_fifo_and_directory_are_refused_without_waiting(self):
        with tempfile.TemporaryDirectory() as folder:
            fifo = os.path.join(folder, "fifo.sqlite")
            os.mkfifo(fifo)
            self.assertRefused(fifo, code="file")
            directory = os.path.join(folder, "folder.sqlite")
            os.mkdir(directory)
            self.assertRefused(directory, code="file")
            self.assertRefused(os.path.join(folder, "missing.sqlite"), code="file")

    def test_every_corpus_file_is_read_or_refused_with_its_place(self):
        files = 0
        with tempfile.TemporaryDirectory() as folder:
            for source in corpus_files(REPOSITORY / "Fuzz" / "Corpus" / "coredata-store",
                                       REPOSITORY / "Fuzz" / "Corpus" / "coredata-mom"):
                files += 1
                path = os.path.join(folder, "input.sqlite")
                shutil.copyfile(source, path)
                try:
                    for _ in coredata.open(path):
                        pass
                except coredata.StoreError as error:
                    self.assertTrue(error.table or error.byte_offset == 0 or error.key_path or error.code == "file",
                                    f"{source}: {error}")
        self.assertGreater(files, 0)


class ThreadTests(unittest.TestCase):
    def test_eight_threads_give_what_one_gives(self):
        with tempfile.TemporaryDirectory() as folder:
            paths = [copy_store(FIXTURES / "Apple" / name, folder)
                     for name in ("NoteStore-iOS17.sqlite", "sgrouplesdb.sqlite", "CallHistory.sqlite")]
            shared = coredata.open(paths[0])
            alone = list(shared.objects(batch_size=7))
            with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
                together = list(pool.map(lambda _: list(shared.objects(batch_size=7)), range(8)))
            for result in together:
                self.assertEqual(result, alone)
            # Stores of their own, read in parallel.
            alone = [list(coredata.open(path)) for path in paths]
            with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
                together = list(pool.map(lambda index: list(coredata.open(paths[index % 3])), range(8)))
            for index, result in enumerate(together):
                self.assertEqual(result, alone[index % 3])


if __name__ == "__main__":
    unittest.main()
