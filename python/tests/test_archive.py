"""ictkit.archive's tests, run on the installed package (make python-test): keyed archives against PyPI's
nska-deserialize, typed streams against pytypedstream, NIB archives against nibarchive (each pinned and installed by
the Makefile's python-test), over the real files of ../shared/interop and the repository's fixtures; the places in
errors; hostile input through every reader; threads. Differences from the peers: archive_differences.txt."""

import base64
import concurrent.futures
import contextlib
import datetime
import io
import json
import plistlib as stdlib_plistlib
import subprocess
import sys
import unittest
import uuid

from test_ictkit import HERE, INTEROP, REPOSITORY, another_thread_runs_during, corpus_files, interop_or_skip, same

from ictkit import archive

FIXTURES = REPOSITORY / "Tests"


def peer(module):
    """A pinned peer, or a failure saying how it is installed."""
    try:
        return __import__(module)
    except ImportError:
        raise AssertionError(f"the peer {module} is not installed: make python-test installs it into the venv")


def listed_differences():
    listed = {}
    for line in (HERE / "archive_differences.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, reason = line.partition(" -- ")
            assert reason, f"{name}: no reason"
            listed[name] = reason
    return listed


def name_of(path):
    """A file's name in archive_differences.txt: interop/… or repository/…."""
    if INTEROP in path.parents:
        return "interop/" + path.relative_to(INTEROP).as_posix()
    return "repository/" + path.relative_to(REPOSITORY).as_posix()


def keyed_archives():
    """Every file of the interop corpus and the repository's fixtures and samples that holds a keyed archive."""
    folders = [FIXTURES / "KeyedArchiveTests" / "Fixtures", FIXTURES / "NIBArchiveTests" / "Fixtures",
               REPOSITORY / "SampleDocs"]
    if INTEROP.is_dir():
        folders.append(INTEROP)
    for path in corpus_files(*folders):
        if path.suffix in (".md", ".py", ".tsv", ".swift"):
            continue
        data = path.read_bytes()
        if b"NSKeyedArchiver" in data and (data.startswith(b"bplist") or b"<plist" in data[:4096]):
            yield path, data


def typed_streams():
    folders = [FIXTURES / "TypedStreamTests" / "Fixtures"] + ([INTEROP] if INTEROP.is_dir() else [])
    for path in corpus_files(*folders):
        data = path.read_bytes()
        if data[2:13] == b"streamtyped":
            yield path, data


def nib_archives():
    folders = [FIXTURES / "NIBArchiveTests" / "Fixtures"] + ([INTEROP] if INTEROP.is_dir() else [])
    for path in corpus_files(*folders):
        data = path.read_bytes()
        if data.startswith(b"NIBArchive"):
            yield path, data


def json_form(value):
    """Our values in the peers' JSON layout: bytes as {"$data": base64}."""
    if isinstance(value, bytes):
        return {"$data": base64.b64encode(value).decode()}
    if isinstance(value, dict):
        return {key: json_form(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_form(item) for item in value]
    return value


def run_peer_script(script, path):
    result = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        return None
    return json.loads(result.stdout)


class KeyedArchiveDifferentialTests(unittest.TestCase):
    def test_equal_to_nska_deserialize_but_the_listed_files(self):
        nska = peer("nska_deserialize")
        listed = listed_differences()
        differing, compared, values = set(), 0, 0
        for path, data in keyed_archives():
            # Both top-level forms for the corpus's archives; the nibs and documents have one $top key or are large.
            forms = (list, dict) if "keyedarchive/" in name_of(path) else (list,)
            for form in forms:
                try:
                    actual = ("value", archive.deserialize_plist_from_string(data, format=form))
                except archive.ArchiveError as error:
                    actual = ("refused", error.code)
                if actual == ("refused", "limitExceeded(values)"):
                    # Shared objects written out past the bound: the peer would write them all (for minutes). One
                    # line of archive_differences.txt, "limitExceeded(values)", gives the reason for every such file.
                    differing.add("limitExceeded(values)")
                    continue
                try:
                    with contextlib.redirect_stdout(io.StringIO()):  # nska prints what it skips
                        expected = ("value", nska.deserialize_plist_from_string(data, format=form))
                except Exception:  # nska's refusals are of many types (it lists eight)
                    expected = ("refused",)
                compared += 1
                values += expected[0] == "value"
                if expected[0] != actual[0] or (expected[0] == "value" and not same(expected[1], actual[1])):
                    differing.add(name_of(path))
        self.assertGreater(compared, 250)
        self.assertGreater(values, 200)
        keyed = {name for name in listed if not name.startswith("typedstream:") and not name.startswith("nib:")}
        self.assertEqual(sorted(differing - set(keyed)), [], "differ from nska_deserialize, not listed")
        self.assertEqual(sorted(set(keyed) - differing), [], "listed, but no longer differ")

    def test_foundation_classes_by_name_against_values_computed_here(self):
        # An archive written by hand (the standard library's plistlib), its expected values from Python's own types.
        identifier = uuid.UUID("68753a44-4d6f-1226-9c60-0050e4c00067")
        objects = [
            "$null",
            {"$class": stdlib_plistlib.UID(2), "NS.keys": [stdlib_plistlib.UID(3), stdlib_plistlib.UID(4),
                                                           stdlib_plistlib.UID(5), stdlib_plistlib.UID(6)],
             "NS.objects": [stdlib_plistlib.UID(7), stdlib_plistlib.UID(9), stdlib_plistlib.UID(11),
                            stdlib_plistlib.UID(12)]},
            {"$classname": "NSMutableDictionary", "$classes": ["NSMutableDictionary", "NSDictionary", "NSObject"]},
            "date", "uuid", "set", "url",
            {"$class": stdlib_plistlib.UID(8), "NS.time": 86400.5},
            {"$classname": "NSDate", "$classes": ["NSDate", "NSObject"]},
            {"$class": stdlib_plistlib.UID(10), "NS.uuidbytes": identifier.bytes},
            {"$classname": "NSUUID", "$classes": ["NSUUID", "NSObject"]},
            {"$class": stdlib_plistlib.UID(13), "NS.objects": [stdlib_plistlib.UID(0), 7, b"\x00\x01"]},
            {"$class": stdlib_plistlib.UID(15), "NS.base": stdlib_plistlib.UID(0), "NS.relative": stdlib_plistlib.UID(14)},
            {"$classname": "NSSet", "$classes": ["NSSet", "NSObject"]},
            "file:///tmp/x.ict",
            {"$classname": "NSURL", "$classes": ["NSURL", "NSObject"]},
        ]
        data = stdlib_plistlib.dumps({"$version": 100000, "$archiver": "NSKeyedArchiver",
                                      "$top": {"root": stdlib_plistlib.UID(1)}, "$objects": objects},
                                     fmt=stdlib_plistlib.FMT_BINARY)
        expected = {
            "date": datetime.datetime(2001, 1, 2, 0, 0, 0, 500000),
            "uuid": str(identifier).upper(),
            "set": ["", 7, b"\x00\x01"],
            "url": {"NS.base": "", "NS.relative": "file:///tmp/x.ict"},
        }
        self.assertTrue(same(archive.deserialize_plist_from_string(data), expected))
        graph = archive.object_graph(data)
        self.assertEqual(graph["$top"], {"root": stdlib_plistlib.UID(1)})
        self.assertEqual(graph["$objects"][7], {"$class": "NSDate", "NS.time": 86400.5})
        self.assertEqual(graph["$objects"][12]["NS.relative"], stdlib_plistlib.UID(14))


class KeyedArchivePlaceTests(unittest.TestCase):
    @staticmethod
    def archive_of(objects, top=None):
        return stdlib_plistlib.dumps({"$version": 100000, "$archiver": "NSKeyedArchiver",
                                      "$top": top or {"root": stdlib_plistlib.UID(1)}, "$objects": objects},
                                     fmt=stdlib_plistlib.FMT_BINARY)

    def test_truncated_archive_names_its_byte(self):
        data = self.archive_of(["$null", "text"])
        with self.assertRaises(archive.ArchiveError) as caught:
            archive.deserialize_plist_from_string(data[:-5])
        self.assertGreaterEqual(caught.exception.byte_offset, 0)
        self.assertIsInstance(caught.exception, ValueError)
        self.assertIn(f"byte {caught.exception.byte_offset}", str(caught.exception))

    def test_xml_archive_error_names_line_and_column(self):
        data = b'<?xml version="1.0"?>\n<plist version="1.0">\n<dict>\n<key>$archiver</key>\n<string>x</dict>\n</plist>\n'
        with self.assertRaises(archive.ArchiveError) as caught:
            archive.deserialize_plist_from_string(data)
        self.assertEqual(caught.exception.line, 5)
        self.assertGreater(caught.exception.column, 0)

    def test_dangling_reference_names_its_key_path(self):
        data = self.archive_of(["$null", {"$class": stdlib_plistlib.UID(2), "NS.string": stdlib_plistlib.UID(9)},
                                {"$classname": "NSString", "$classes": ["NSString", "NSObject"]}])
        with self.assertRaises(archive.ArchiveError) as caught:
            archive.deserialize_plist_from_string(data)
        self.assertEqual(caught.exception.code, "danglingReference")
        self.assertEqual(caught.exception.key_path, "$objects[1].NS.string")

    def test_not_an_archive_is_refused(self):
        with self.assertRaises(archive.ArchiveError) as caught:
            archive.deserialize_plist_from_string(stdlib_plistlib.dumps({"a": 1}, fmt=stdlib_plistlib.FMT_BINARY))
        self.assertEqual(caught.exception.code, "wrongArchiver")
        with self.assertRaises(archive.ArchiveError) as caught:
            archive.deserialize_plist_from_string(stdlib_plistlib.dumps([1], fmt=stdlib_plistlib.FMT_BINARY))
        self.assertEqual(caught.exception.code, "notAnArchive")

    def test_an_archive_held_as_data_is_read_as_nska_reads_it(self):
        inner = KeyedArchivePlaceTests.archive_of(["$null", "text"])
        data = stdlib_plistlib.dumps(inner, fmt=stdlib_plistlib.FMT_BINARY)
        self.assertEqual(archive.deserialize_plist_from_string(data), {"root": "text"})
        self.assertEqual(archive.deserialize_plist_from_string(data), peer("nska_deserialize").deserialize_plist_from_string(data))

    def test_shared_objects_written_out_are_bounded(self):
        # Object n is an array naming object n+1 twice: 2^40 values written out in full; refused with its place.
        objects = ["$null"]
        for index in range(1, 41):
            objects.append({"$class": stdlib_plistlib.UID(42),
                            "NS.objects": [stdlib_plistlib.UID(index + 1), stdlib_plistlib.UID(index + 1)]})
        objects.append("leaf")
        objects.append({"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]})
        with self.assertRaises(archive.ArchiveError) as caught:
            archive.deserialize_plist_from_string(self.archive_of(objects))
        self.assertEqual(caught.exception.code, "limitExceeded(values)")
        self.assertTrue(caught.exception.key_path.startswith("$top.root"), caught.exception.key_path)
        # The bound is the caller's to set: the top mapping and its key, then 1 + 2 + 4 arrays = 9 values.
        UID = stdlib_plistlib.UID
        small = self.archive_of(["$null", {"$class": UID(4), "NS.objects": [UID(2), UID(2)]},
                                 {"$class": UID(4), "NS.objects": [UID(3), UID(3)]}, {"$class": UID(4), "NS.objects": []},
                                 {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]}])
        self.assertEqual(archive.deserialize_plist_from_string(small, maximum_values=9), [[[], []], [[], []]])
        with self.assertRaises(archive.ArchiveError) as caught:
            archive.deserialize_plist_from_string(small, maximum_values=8)
        self.assertEqual(caught.exception.code, "limitExceeded(values)")

    def test_a_cycle_is_left_out_as_nska_leaves_it(self):
        nska = peer("nska_deserialize")
        objects = ["$null", {"$class": stdlib_plistlib.UID(2), "name": "a", "me": stdlib_plistlib.UID(1)},
                   {"$classname": "Node", "$classes": ["Node", "NSObject"]}]
        data = self.archive_of(objects)
        # The peer does not count the top object as open: it is written once more below itself, then left out.
        self.assertEqual(archive.deserialize_plist_from_string(data), {"name": "a", "me": {"name": "a"}})
        self.assertTrue(same(archive.deserialize_plist_from_string(data), nska.deserialize_plist_from_string(data)))


class TypedStreamDifferentialTests(unittest.TestCase):
    def test_documents_equal_pytypedstream_events(self):
        peer("typedstream")
        script = FIXTURES / "TypedStreamTests" / "Fixtures" / "typedstream_to_json.py"
        listed = listed_differences()
        compared, differing = 0, set()
        for path, data in typed_streams():
            expected = run_peer_script(script, path)
            try:
                document = archive.typedstream_document(data)
                for item in document["objects"]:
                    item.pop("offset")  # ours only: where the object starts
                actual = json_form(document)
            except archive.ArchiveError:
                actual = None
            compared += 1
            if json.loads(json.dumps(actual)) != expected:
                differing.add("typedstream:" + name_of(path))
        self.assertGreaterEqual(compared, 8)
        typed = {name for name in listed if name.startswith("typedstream:")}
        self.assertEqual(sorted(differing - typed), [], "differ from pytypedstream, not listed")
        self.assertEqual(sorted(typed - differing), [], "listed, but no longer differ")

    def test_imessage_attributed_body_text_equals_pytypedstream(self):
        typedstream = peer("typedstream")
        for name in ("AttributedBodyTextOnly", "AttributedBodyTextOnly2"):
            data = (FIXTURES / "TypedStreamTests" / "Fixtures" / name).read_bytes()
            expected = typedstream.unarchive_from_data(data)
            self.assertEqual(archive.attributed_body_text(data), expected.contents[0].value.value)

    def test_truncated_stream_names_its_byte(self):
        data = (FIXTURES / "TypedStreamTests" / "Fixtures" / "AttributedBodyTextOnly").read_bytes()
        with self.assertRaises(archive.ArchiveError) as caught:
            archive.typedstream_document(data[:40])
        self.assertGreaterEqual(caught.exception.byte_offset, 0)
        self.assertIn(str(caught.exception.byte_offset), str(caught.exception))


class NIBArchiveDifferentialTests(unittest.TestCase):
    def test_tables_equal_nibarchive(self):
        nibarchive = peer("nibarchive")
        script = FIXTURES / "NIBArchiveTests" / "Fixtures" / "nibarchive_peer.py"
        compared = 0
        for path, data in nib_archives():
            actual = json_form(archive.nib_archive(data))
            for value in actual["values"]:
                if value["type"] == "float":
                    value["value"] = {"$real32": value["value"]}
            expected = run_peer_script(script, path)
            if expected is None:
                # The Swift tests' peer script also lists UIKit's top-level objects, which an AppKit nib lacks: its
                # tables are compared here with nibarchive's directly (names and counts).
                with open(path, "rb") as file:
                    parsed = nibarchive.NIBArchiveParser(verify=True).parse(file)
                self.assertEqual(actual["keys"], [key.name for key in parsed.keys], path)
                self.assertEqual([entry["name"] for entry in actual["classNames"]],
                                 [entry.name for entry in parsed.class_names], path)
                self.assertEqual((len(actual["objects"]), len(actual["values"])),
                                 (len(parsed.objects), len(parsed.values)), path)
            else:
                self.assertEqual(json.loads(json.dumps(actual)), expected["file"], path)
            compared += 1
        self.assertGreaterEqual(compared, 6)

    def test_bad_magic_and_truncation_name_their_byte(self):
        data = next(nib_archives())[1]
        for broken in (b"NIBArchivX" + data[10:], data[:60]):
            with self.assertRaises(archive.ArchiveError) as caught:
                archive.nib_archive(broken)
            self.assertGreaterEqual(caught.exception.byte_offset, 0)


READERS = [
    ("keyed", archive.deserialize_plist_from_string),
    ("graph", archive.object_graph),
    ("typedstream", archive.typedstream_document),
    ("typedstream value", archive.typedstream_value),
    ("nib", archive.nib_archive),
]


class HostileInputTests(unittest.TestCase):
    def test_every_corpus_file_through_every_reader(self):
        corpus = REPOSITORY / "Fuzz" / "Corpus"
        folders = [corpus / name for name in ("keyed-archive", "keyed-unarchiver", "archive-validator",
                                              "embedded-archive", "typedstream", "nib-archive")]
        folders += [REPOSITORY / "SampleDocs" / "malformed"] + ([INTEROP / "malformed"] if INTEROP.is_dir() else [])
        refusals, without_place, files = 0, [], 0
        for path in corpus_files(*folders):
            data = path.read_bytes()
            files += 1
            for name, reader in READERS:
                try:
                    reader(data)
                except archive.ArchiveError as error:
                    refusals += 1
                    # A property list that is no archive at all (its root is not an archive's dictionary, or has no
                    # $archiver, $version, $top or $objects) is refused about its root, the empty key path.
                    about_root = error.code in ("notAnArchive", "wrongArchiver", "unsupportedVersion", "missingTop",
                                                "missingObjects", "missingNull")
                    if error.byte_offset < 0 and error.line < 0 and not error.key_path and not about_root:
                        without_place.append(f"{path.relative_to(REPOSITORY.parent)} {name}: {error.code}: {error}")
        self.assertGreater(files, 1000)
        self.assertGreater(refusals, 3000)
        self.assertEqual(without_place, [])


class SharedObjectTests(unittest.TestCase):
    def test_a_nibs_shared_objects_are_made_once(self):
        # An old nib's views name their window and superview: each object is one Python object wherever it is
        # named (as pytypedstream gives it), not a copy per naming. The stream's object table (its document form,
        # checked against pytypedstream's events above) bounds the distinct containers.
        data = (FIXTURES / "TypedStreamTests" / "Fixtures" / "PathDemo-MainMenu.objects.nib").read_bytes()
        value = archive.typedstream_value(data)
        objects = len(archive.typedstream_document(data)["objects"])
        distinct, pending = set(), [value]
        while pending:
            item = pending.pop()
            if isinstance(item, (dict, list)) and id(item) not in distinct:
                distinct.add(id(item))
                pending.extend(item.values() if isinstance(item, dict) else item)
        sizes = {}

        def written_out(item):
            """The containers the value would hold with each shared object copied wherever it is named."""
            if not isinstance(item, (dict, list)):
                return 0
            if id(item) not in sizes:
                sizes[id(item)] = 1 + sum(map(written_out, item.values() if isinstance(item, dict) else item))
            return sizes[id(item)]

        containers_per_object = 8  # an object's dict, its "fields" and "superclasses" lists, a struct's lists
        self.assertLessEqual(len(distinct), containers_per_object * objects)
        self.assertGreater(written_out(value), 10 * len(distinct))


class ReleasedLockTests(unittest.TestCase):
    def test_each_decode_lets_other_threads_run(self):
        nib = (FIXTURES / "TypedStreamTests" / "Fixtures" / "PathDemo-MainMenu.objects.nib").read_bytes()
        compiled = (FIXTURES / "NIBArchiveTests" / "Fixtures" / "PackageListHeader.nib").read_bytes()
        keyed = max((data for _, data in keyed_archives()), key=len)
        for name, call in [("keyed", lambda: archive.deserialize_plist_from_string(keyed)),
                           ("graph", lambda: archive.object_graph(keyed)),
                           ("typedstream document", lambda: archive.typedstream_document(nib)),
                           ("typedstream value", lambda: archive.typedstream_value(nib)),
                           ("nib", lambda: archive.nib_archive(compiled))]:
            self.assertTrue(another_thread_runs_during(call, attempts=500), name)


class ThreadTests(unittest.TestCase):
    def test_eight_threads_give_what_one_gives(self):
        inputs = [data for _, data in keyed_archives()] + [data for _, data in typed_streams()]
        inputs += [path.read_bytes() for path in corpus_files(REPOSITORY / "Fuzz" / "Corpus" / "keyed-archive")]
        self.assertGreater(len(inputs), 200)

        def decode(data):
            results = []
            for _, reader in READERS:
                try:
                    results.append(("value", reader(data)))
                except archive.ArchiveError as error:
                    results.append(("refused", str(error)))
            return results

        alone = [decode(data) for data in inputs]
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            together = list(pool.map(decode, inputs))
        self.assertEqual(len(together), len(alone))
        for one, other in zip(alone, together):
            for first, second in zip(one, other):
                self.assertEqual(first[0], second[0])
                self.assertTrue(same(first[1], second[1]))


if __name__ == "__main__":
    unittest.main()
