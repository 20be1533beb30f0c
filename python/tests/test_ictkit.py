"""The ictkit package's own tests, run on the installed package (make python-test): places in errors, the
formats plistlib lacks, key paths, differences from plistlib over the interop corpus, hostile input, threads,
and a module that needs nothing from the Swift toolchain."""

import collections
import concurrent.futures
import datetime
import faulthandler
import math
import os
import plistlib as stdlib_plistlib
import struct
import subprocess
import sys
import threading
import time
import unittest
from pathlib import Path

import ictkit
from ictkit import plistlib

REPOSITORY = Path(__file__).resolve().parents[2]
INTEROP = REPOSITORY.parent / "shared" / "interop"
HERE = Path(__file__).resolve().parent

# A hang is a failure, not a wait: each test here is over long before this (a bound, not a time measurement).
# The bound is set again for each test (of this file and of those importing it), so a loaded machine's slow but
# passing run of several suites does not add up to it.
HANG_BOUND_SECONDS = 900
_run_test = unittest.TestCase.run


def _run_within_bound(test, result=None):
    faulthandler.dump_traceback_later(HANG_BOUND_SECONDS, exit=True)
    try:
        return _run_test(test, result)
    finally:
        faulthandler.cancel_dump_traceback_later()


unittest.TestCase.run = _run_within_bound


def interop_or_skip(test):
    """The interop corpus's rule (Tests/TestSupport/InteropCorpus.swift): skipped without it, failed on CI."""
    if INTEROP.is_dir():
        return
    if os.environ.get("CI") == "true":
        test.fail(f"the interop corpus is not at {INTEROP} (../shared/interop beside the repository)")
    test.skipTest(f"the interop corpus is not at {INTEROP}")


def same(left, right):
    """Equal values of equal types, NaN equal to NaN, dictionaries in the same key order."""
    if isinstance(left, float) and isinstance(right, float):
        return (math.isnan(left) and math.isnan(right)) or left == right
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(same(left[key], right[key]) for key in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right))
    return left == right


def another_thread_runs_during(call, attempts=100):
    """Whether another Python thread runs while `call()` runs, in one of `attempts` calls. The switch interval is
    set to an hour meanwhile, so that the interpreter never takes the GIL from this thread to give it to the other:
    the other thread can run during the call only when the call gives the GIL up itself. The other thread gives it
    back at once after each step (time.sleep(0)), so the call never waits for it."""
    steps, stop, started = [0], threading.Event(), threading.Event()

    def step_on():
        started.set()
        while not stop.is_set():
            steps[0] += 1
            time.sleep(0)

    # The interval is set before the other thread starts: a thread already waiting for the GIL waits with the
    # interval it read then, and after the old 5 ms would have the interpreter take the GIL from this thread.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(3600)
    other = threading.Thread(target=step_on, daemon=True)
    try:
        other.start()
        assert started.wait(600), "the other thread did not start"
        for _ in range(attempts):
            before = steps[0]
            call()
            if steps[0] != before:
                return True
        return False
    finally:
        sys.setswitchinterval(interval)
        stop.set()
        other.join(600)


def corpus_files(*folders):
    for folder in folders:
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file():
                yield path


class PlaceTests(unittest.TestCase):
    def test_binary_error_names_its_byte(self):
        data = stdlib_plistlib.dumps({"a": [1, 2, {"b": "x"}]}, fmt=stdlib_plistlib.FMT_BINARY)
        with self.assertRaises(plistlib.InvalidFileException) as caught:
            plistlib.loads(data[:-10])
        # 58 bytes left: the trailer read is bytes 26-57, its offset-size byte is 26 + 6 = 32 (hand count).
        self.assertEqual(caught.exception.byte_offset, 32)
        self.assertEqual(caught.exception.code, "invalidTrailer")
        self.assertTrue(str(caught.exception).startswith("byte 32: "))
        self.assertIsInstance(caught.exception, stdlib_plistlib.InvalidFileException)
        self.assertIsInstance(caught.exception, ValueError)

    def test_xml_error_names_line_column_and_key_path(self):
        data = b"<plist>\n<dict><key>a</key><integer>x1</integer></dict></plist>"
        with self.assertRaises(plistlib.InvalidFileException) as caught:
            plistlib.loads(data)
        # Line 2: `<dict><key>a</key>` is 18 characters, so <integer> starts at column 19.
        error = caught.exception
        self.assertEqual((error.line, error.column, error.key_path, error.byte_offset), (2, 19, "a", -1))
        self.assertEqual(str(error), '2:19: "x1" is not an integer (at a)')

    def test_input_that_is_no_property_list_is_refused_at_byte_zero(self):
        for data in (b"", b"hello", b"{a = 1;}"):
            with self.subTest(data=data), self.assertRaises(plistlib.InvalidFileException) as caught:
                plistlib.loads(data)
            self.assertEqual(caught.exception.byte_offset, 0)

    def test_types_and_keywords_match_plistlib(self):
        # In sorted key order, as dumps writes them by default.
        value = {"a": [1, "x"], "d": b"\0", "i": -3, "r": 0.25, "s": "é", "t": True, "u": 2**64 - 1,
                 "w": datetime.datetime(2020, 1, 2, 3, 4, 5)}
        for fmt in (plistlib.FMT_XML, plistlib.FMT_BINARY, stdlib_plistlib.FMT_XML, stdlib_plistlib.FMT_BINARY):
            with self.subTest(fmt=fmt):
                ours = plistlib.dumps(value, fmt=fmt)
                self.assertTrue(same(stdlib_plistlib.loads(ours), value))
                self.assertTrue(same(plistlib.loads(ours), value))
        ordered = plistlib.loads(plistlib.dumps({"b": 1, "a": 2}), dict_type=collections.OrderedDict)
        self.assertEqual(type(ordered).__name__, "OrderedDict")
        self.assertEqual(list(ordered), ["a", "b"])  # sort_keys=True, plistlib's default
        self.assertEqual(list(plistlib.loads(plistlib.dumps({"b": 1, "a": 2}, sort_keys=False))), ["b", "a"])
        aware = plistlib.loads(plistlib.dumps(value), aware_datetime=True)["w"]
        self.assertEqual(aware.utcoffset().total_seconds(), 0)
        self.assertIs(plistlib.UID, stdlib_plistlib.UID)


class FlatFormTests(unittest.TestCase):
    """What the one-pass conversions of loads and dumps (the flat form of ictkit.h) must keep: dates made in C
    equal to plistlib's at and beyond their fast path's edges, and keys skipped or sorted as plistlib does."""

    @staticmethod
    def binary_date(seconds):
        """A binary property list holding one date `seconds` from 2001: plistlib's file with its 8 bytes set."""
        data = stdlib_plistlib.dumps([datetime.datetime(2001, 1, 1)], fmt=stdlib_plistlib.FMT_BINARY)
        at = data.index(b"\x33")  # the date's marker, 0x33; its big-endian double follows
        return data[:at + 1] + struct.pack(">d", seconds) + data[at + 9:]

    def test_dates_equal_plistlibs_whole_fractional_and_out_of_range(self):
        # Whole seconds on both sides of the epoch and of a day, datetime's first and last second (-63113904000 s
        # is 0001-01-01, 252423993599 s is 9999-12-31 23:59:59: hand-counted days times 86400), fractions, and
        # seconds past either end, which plistlib refuses with OverflowError and ictkit with its exception.
        for seconds in (0.0, 1.0, -1.0, 86399.0, 86400.0, -86400.0, -86401.0, 631152000.0, -63113904000.0,
                        252423993599.0, 0.5, -0.5, 1.000001, -1e-7, 86399.9999996, 252423993599.5,
                        -63113904001.0, 252423993600.0, 1e300, float("inf"), float("nan")):
            data = self.binary_date(seconds)
            try:
                naive = stdlib_plistlib.loads(data)
            except (OverflowError, ValueError):
                naive = None
            for aware in (False, True):
                with self.subTest(seconds=seconds, aware=aware):
                    if naive is None:
                        with self.assertRaises(plistlib.InvalidFileException) as caught:
                            plistlib.loads(data, aware_datetime=aware)
                        self.assertEqual(caught.exception.key_path, "[0]")
                        continue
                    # plistlib before 3.13 has no aware_datetime: its naive UTC date, in UTC, is what 3.13 gives.
                    expected = [naive[0].replace(tzinfo=datetime.timezone.utc)] if aware else naive
                    self.assertTrue(same(plistlib.loads(data, aware_datetime=aware), expected))

    def test_dates_written_as_plistlib_writes_them(self):
        utc = datetime.timezone.utc
        dates = [datetime.datetime(2001, 1, 1), datetime.datetime(1, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59),
                 datetime.datetime(2000, 12, 31, 23, 59, 59, 999999), datetime.datetime(1970, 1, 1, 0, 0, 0, 1),
                 datetime.datetime(2024, 2, 29, 12, 30, 15, 250000), datetime.datetime(2020, 5, 6, tzinfo=utc),
                 datetime.datetime(2020, 5, 6, 7, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))]
        # plistlib before 3.13 writes naive dates only: an aware one is written as its naive UTC time.
        naive = [date.astimezone(utc).replace(tzinfo=None) if date.tzinfo else date for date in dates]
        for ours, theirs in ((plistlib.FMT_BINARY, stdlib_plistlib.FMT_BINARY), (plistlib.FMT_XML, stdlib_plistlib.FMT_XML)):
            with self.subTest(fmt=ours):
                self.assertEqual(stdlib_plistlib.loads(plistlib.dumps(dates, fmt=ours)),
                                 stdlib_plistlib.loads(stdlib_plistlib.dumps(naive, fmt=theirs)))

    def test_keys_skipped_sorted_and_refused_as_plistlib_does(self):
        value = {"b": 1, 2: "number key", "a": {"z": [], 3: None, "y": b""}}
        for fmt in (plistlib.FMT_BINARY, plistlib.FMT_XML):
            with self.subTest(fmt=fmt):
                ours = plistlib.dumps(value, fmt=fmt, skipkeys=True, sort_keys=False)
                self.assertTrue(same(stdlib_plistlib.loads(ours), {"b": 1, "a": {"z": [], "y": b""}}))
                self.assertEqual(list(plistlib.loads(plistlib.dumps({"b": 1, "a": 2}, fmt=fmt))), ["a", "b"])
                with self.assertRaises(TypeError):
                    plistlib.dumps(value, fmt=fmt)
                with self.assertRaises(TypeError):
                    plistlib.dumps({"a": object()}, fmt=fmt)

    def test_binary_dumps_writes_plistlibs_bytes(self):
        # plistlib's binary writer, as CoreFoundation, stores a repeated string, number, date or data once and
        # every container again, numbering a dict's keys before its values; 1, 1.0 and True stay apart, as do
        # "é" and "e\u0301"; more than 255 objects widen the references to 2 bytes, a 70,000-byte data the
        # offsets to 4. (plistlib merges 0.0 and -0.0, CoreFoundation's rule: left out, as ICTKit keeps them apart.)
        when = datetime.datetime(2020, 1, 2, 3, 4, 5)
        records = [{"name": f"record {index % 7}", "title": "Straße 🙂" if index % 3 else "café", "count": index % 5,
                    "big": 2**40 + index, "negative": -index, "ratio": (index % 4) / 4, "when": when,
                    "bytes": bytes([index % 2, 1, 2]), "tags": ["name", "alpha", "z" * 20], "one": [1, 1.0, True]}
                   for index in range(120)]
        value = {"records": records, "blob": b"a" * 70_000, "list": list(range(20)), "name": "name",
                 "accents": ["\u00e9", "e\u0301", "\u00e9"], "u": 2**64 - 1}
        for sort_keys in (True, False):
            with self.subTest(sort_keys=sort_keys):
                self.assertEqual(plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=sort_keys),
                                 stdlib_plistlib.dumps(value, fmt=stdlib_plistlib.FMT_BINARY, sort_keys=sort_keys))

    def test_repeated_strings_are_equal_values(self):
        # Short values come from a cache of one str per distinct string: equal, and still independent values.
        value = {"k": ["shape", "shape", "é", "é", "x" * 16, "x" * 17, ""], "shape": "shape"}
        for fmt in (stdlib_plistlib.FMT_BINARY, stdlib_plistlib.FMT_XML):
            with self.subTest(fmt=fmt):
                self.assertTrue(same(plistlib.loads(stdlib_plistlib.dumps(value, fmt=fmt)), value))

    def test_many_distinct_short_strings_each_keep_their_text(self):
        # More distinct keys and values than the cache has slots, of every length it caches, differing in one
        # byte (first, middle or last), so slots are shared and replaced: each must still read as its own text.
        texts = [""] + [base[:cut] + mark + base[cut + 1:] for base in ("abcdefghijklmnopqrstuvwxyz0123456789_" * 2,)
                        for length in range(1, 50) for cut in {0, length // 2, length - 1}
                        for mark in "XYZé" for base in (base[:length],)]
        texts += [f"key{number}" for number in range(6000)]
        value = {text: [text, text.upper(), {text: len(text)}] for text in texts}
        for fmt in (stdlib_plistlib.FMT_BINARY, stdlib_plistlib.FMT_XML):
            with self.subTest(fmt=fmt):
                data = stdlib_plistlib.dumps(value, fmt=fmt, sort_keys=False)
                self.assertTrue(same(plistlib.loads(data), value))


class LargeBinaryTests(unittest.TestCase):
    """Binary files of 1 MiB and more, which loads reads in chunks on a thread of its own while it builds the
    objects: equal to plistlib's values, and, where the quick read gives up part way, to the whole read's."""

    @staticmethod
    def record(rng, index):
        return {"name": "record %d %s" % (index, "x" * rng.randint(0, 40)), "size": rng.randint(-2**40, 2**40),
                "ratio": rng.random(), "seen": datetime.datetime(2001, 1, 1) + datetime.timedelta(seconds=index),
                "thumbnail": rng.randbytes(rng.randint(0, 300)), "tags": ["a", "é", str(index % 7)],
                "nested": {"flag": index % 2 == 0, "list": [index, [index], {}]}}

    @classmethod
    def setUpClass(cls):
        import random
        rng = random.Random(42)
        cls.records = [cls.record(rng, index) for index in range(4000)]
        cls.files = {
            "array of 4000": stdlib_plistlib.dumps(cls.records, fmt=stdlib_plistlib.FMT_BINARY),
            "dictionary of 4000": stdlib_plistlib.dumps({"k%05d" % index: record for index, record in
                                                         enumerate(cls.records)}, fmt=stdlib_plistlib.FMT_BINARY,
                                                        sort_keys=False),
            # Fewer members than chunks: the whole value comes in one chunk.
            "array of 5": stdlib_plistlib.dumps([rng.randbytes(300000) for _ in range(5)],
                                                fmt=stdlib_plistlib.FMT_BINARY),
            "one string": stdlib_plistlib.dumps("é" * 600000, fmt=stdlib_plistlib.FMT_BINARY),
        }

    def test_files_of_a_mebibyte_and_more_equal_plistlibs(self):
        for name, data in self.files.items():
            with self.subTest(name):
                self.assertGreaterEqual(len(data), 1 << 20)
                self.assertTrue(same(plistlib.loads(data), stdlib_plistlib.loads(data)))
        data = self.files["dictionary of 4000"]
        ordered = plistlib.loads(data, dict_type=collections.OrderedDict, aware_datetime=True)
        self.assertIs(type(ordered), collections.OrderedDict)
        self.assertEqual(list(ordered), ["k%05d" % index for index in range(4000)])
        self.assertIs(type(ordered["k03999"]["nested"]), collections.OrderedDict)
        self.assertEqual(ordered["k03999"]["seen"], datetime.datetime(2001, 1, 1, 1, 6, 39, tzinfo=datetime.timezone.utc))

    def test_a_container_given_twice_late_in_the_file_equals_plistlibs(self):
        # plistlib writes one object for a list it meets twice: the quick read takes the first chunks, then meets
        # the list again in the last one and gives up; the whole read shares it.
        shared = ["shared", 1]
        value = [shared] + self.records + [shared]
        data = stdlib_plistlib.dumps(value, fmt=stdlib_plistlib.FMT_BINARY)
        self.assertGreaterEqual(len(data), 1 << 20)
        ours = plistlib.loads(data)
        self.assertTrue(same(ours, stdlib_plistlib.loads(data)))
        self.assertEqual(ours[-1], ["shared", 1])

    def test_a_malformed_object_late_in_the_file_is_refused_where_it_lies(self):
        # The first record's date lies outside datetime's years, the last record's name has a marker no object
        # kind uses (0x7_): the date is built before the read meets the marker, but the refusal is the marker's,
        # at its byte, as a whole read of the file gives it.
        value = [dict(record) for record in self.records]
        value[0]["seen"] = datetime.datetime(9999, 12, 31)
        value[-1]["name"] = "last name, one of a kind"
        data = bytearray(stdlib_plistlib.dumps(value, fmt=stdlib_plistlib.FMT_BINARY))
        date_at = data.index(struct.pack(">d", (datetime.datetime(9999, 12, 31) - datetime.datetime(2001, 1, 1))
                                         .total_seconds())) - 1
        self.assertEqual(data[date_at], 0x33)
        data[date_at + 1:date_at + 9] = struct.pack(">d", 1e300)
        name_at = data.index(b"last name, one of a kind") - 3  # its marker, then its length (0x10 0x18: 24)
        self.assertEqual(data[name_at:name_at + 3], b"\x5f\x10\x18")
        data[name_at] = 0x7F
        with self.assertRaises(plistlib.InvalidFileException) as caught:
            plistlib.loads(bytes(data))
        self.assertEqual(caught.exception.byte_offset, name_at)
        # The date alone, in a file the read takes whole, is refused at its place in the value.
        data[name_at] = 0x5F
        with self.assertRaises(plistlib.InvalidFileException) as caught:
            plistlib.loads(bytes(data))
        self.assertEqual(caught.exception.key_path, "[0].seen")

    def test_four_threads_at_once_give_what_one_gives(self):
        data = self.files["dictionary of 4000"]
        alone = plistlib.loads(data)
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            for together in pool.map(lambda _: plistlib.loads(data), range(8)):
                self.assertTrue(same(together, alone))


class OtherFormatTests(unittest.TestCase):
    def test_openstep_and_json(self):
        self.assertEqual(plistlib.loads(b'{a = (1, "two"); b = <0fff>;}', fmt=plistlib.FMT_OPENSTEP),
                         {"a": ["1", "two"], "b": b"\x0f\xff"})
        value = {"n": 3, "x": [True, 1.5]}
        self.assertEqual(plistlib.loads(plistlib.dumps(value, fmt=plistlib.FMT_JSON), fmt=plistlib.FMT_JSON), value)
        with self.assertRaises(ValueError):
            plistlib.dumps(value, fmt=plistlib.FMT_OPENSTEP)

    def test_get_by_key_path(self):
        data = plistlib.dumps({"a": {"b": [10, {"c": "found"}]}}, fmt=plistlib.FMT_BINARY)
        self.assertEqual(plistlib.get(data, "a.b[1].c"), "found")
        self.assertEqual(plistlib.get(data, "a.b[0]"), 10)
        self.assertEqual(plistlib.get(data, "a.b"), [10, {"c": "found"}])
        self.assertIsNone(plistlib.get(data, "a.b[2]"))
        self.assertEqual(plistlib.get(data, "a.z", default="none"), "none")
        self.assertEqual(plistlib.get(b"{k = (x, y);}", "k[1]"), "y")


class InteropDifferentialTests(unittest.TestCase):
    def test_equal_to_plistlib_but_the_listed_files(self):
        interop_or_skip(self)
        listed = {}
        for line in (HERE / "interop_differences.txt").read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                path, _, reason = line.partition(" -- ")
                self.assertTrue(reason, f"{path}: no reason")
                listed[path] = reason
        differing, compared = set(), 0
        for path in corpus_files(INTEROP):
            name = path.relative_to(INTEROP).as_posix()
            if name.endswith(".md") or name.endswith("files.tsv"):
                continue
            data = path.read_bytes()
            try:
                expected = ("value", stdlib_plistlib.loads(data))
            except Exception:  # plistlib's refusals are of several types (ExpatError, ValueError, …)
                expected = ("refused",)
            try:
                actual = ("value", plistlib.loads(data))
            except plistlib.InvalidFileException:
                actual = ("refused",)
            compared += 1
            if expected[0] != actual[0] or (expected[0] == "value" and not same(expected[1], actual[1])):
                differing.add(name)
        self.assertGreater(compared, 600)
        self.assertEqual(sorted(differing - set(listed)), [], "differ from plistlib, not listed")
        self.assertEqual(sorted(set(listed) - differing), [], "listed, but no longer differ")


class HostileInputTests(unittest.TestCase):
    def test_every_corpus_file_through_every_reader(self):
        folders = [REPOSITORY / "Fuzz" / "Corpus", REPOSITORY / "SampleDocs" / "malformed",
                   REPOSITORY / "SampleDocs" / "malformed-notes", REPOSITORY / "SampleDocs" / "malformed-ptk"]
        if INTEROP.is_dir():
            folders.append(INTEROP / "malformed")
        readers = [None, plistlib.FMT_BINARY, plistlib.FMT_XML, plistlib.FMT_OPENSTEP, plistlib.FMT_JSON]
        refusals, without_place = 0, []
        for path in corpus_files(*folders):
            data = path.read_bytes()
            for fmt in readers:
                for call in (lambda: plistlib.loads(data, fmt=fmt), lambda: plistlib.get(data, "a.b[0]", fmt=fmt)):
                    try:
                        call()
                    except plistlib.InvalidFileException as error:
                        refusals += 1
                        if error.byte_offset < 0 and error.line < 0 and not error.key_path:
                            without_place.append(f"{path.relative_to(REPOSITORY.parent)} {fmt}: {error}")
        self.assertGreater(refusals, 1000)
        # A date outside datetime's years found at the root has no key path: its message gives the value.
        self.assertEqual([line for line in without_place if "lies outside the years 1 to 9999" not in line], [])


class ThreadTests(unittest.TestCase):
    def test_eight_threads_give_what_one_gives(self):
        files = [path for path in corpus_files(REPOSITORY / "Fuzz" / "Corpus" / "binary-plist",
                                                REPOSITORY / "Fuzz" / "Corpus" / "info-plist")]
        self.assertGreater(len(files), 100)
        inputs = [path.read_bytes() for path in files]

        def decode(data):
            try:
                return ("value", plistlib.loads(data))
            except plistlib.InvalidFileException as error:
                return ("refused", str(error))

        alone = [decode(data) for data in inputs]
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            for _ in range(3):
                together = list(pool.map(decode, inputs))
                self.assertEqual(len(together), len(alone))
                for one, other in zip(alone, together):
                    self.assertEqual(one[0], other[0])
                    self.assertTrue(same(one[1], other[1]))


class ReleasedLockTests(unittest.TestCase):
    """The GIL is given up while the bytes are decoded (the library's part of a call), so other threads run."""

    def test_loads_lets_other_threads_run(self):
        # Inputs plistlib writes: a list of 20,000 small dictionaries, in both formats.
        value = [{"name": "entry %d" % index, "size": index, "tags": ["a", "b"]} for index in range(20000)]
        for fmt in (stdlib_plistlib.FMT_BINARY, stdlib_plistlib.FMT_XML):
            data = stdlib_plistlib.dumps(value, fmt=fmt)
            self.assertTrue(another_thread_runs_during(lambda: plistlib.loads(data)), fmt)

    def test_the_check_tells_a_call_that_keeps_the_lock(self):
        # The check itself can fail: a call that never gives the GIL up (pure Python, no I/O) lets nothing run.
        self.assertFalse(another_thread_runs_during(lambda: sum(range(200000)), attempts=5))


class InstalledModuleTests(unittest.TestCase):
    def test_needs_no_library_of_the_swift_toolchain(self):
        folder = Path(plistlib.__file__).parent
        libraries = sorted(folder.glob("*.so"))
        self.assertEqual(len(libraries), 2, libraries)  # the extension and libICTKitC.so
        for library in libraries:
            linked = subprocess.run(["ldd", library], capture_output=True, text=True, check=True).stdout
            self.assertNotIn("not found", linked)
            for toolchain_library in ("libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "lib_Foundation"):
                self.assertNotIn(toolchain_library, linked, f"{library.name} links the toolchain's libraries:\n{linked}")
        environment = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": ""}
        script = "from ictkit import plistlib; print(plistlib.loads(plistlib.dumps([1], fmt=plistlib.FMT_BINARY)))"
        result = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True,
                                cwd="/", timeout=120)
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "[1]\n", ""))


if __name__ == "__main__":
    unittest.main()
