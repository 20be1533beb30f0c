"""Rows Y6 and Y7 of issue 42: ictkit.archive against the Python peers in the same run, whole Python calls
including building the Python objects, on the inputs the Swift harness's rows y and t use:

- Y6, keyed archives to plain values: the 17 archives Foundation wrote on Linux in
  Tests/KeyedArchiveTests/Fixtures/foundation-linux, ictkit.archive.deserialize_plist_from_string against
  nska_deserialize.deserialize_plist_from_string (1.5.1);
- Y7, typed streams to Foundation values: the 8 fixtures of Tests/TypedStreamTests/Fixtures that pytypedstream
  decodes (iMessage bodies and two old nibs), ictkit.archive.typedstream_value against pytypedstream 0.1.0's
  archiving.unarchive_from_data.

Usage: bench_archive.py [RUNS] prints the rows; bench_plistlib.py joins them to its table through rows().
"""

import sys
from pathlib import Path

from ictkit import archive

from bench_plistlib import medians as median_seconds

REPOSITORY = Path(__file__).resolve().parents[2]
KEYED = REPOSITORY / "Tests" / "KeyedArchiveTests" / "Fixtures" / "foundation-linux"
TYPED = REPOSITORY / "Tests" / "TypedStreamTests" / "Fixtures"
TYPED_NAMES = ["AttributedBodyTextOnly", "AttributedBodyTextOnly2", "Blank", "MultiPart", "URL", "WeirdText",
               "PathDemo-MainMenu.objects.nib", "TLayer-TLayerDemo.objects.nib"]


def rows(data_directory=None, runs=5):
    """[(row name, ICTKit seconds, peer, peer seconds, least ratio that passes, note)]; ratio = peer / ICTKit.
    A peer that is not installed is a row measured on our side only, with a note saying so."""
    result = []
    keyed = [path.read_bytes() for path in sorted(KEYED.glob("*.plist"))]
    typed = [(TYPED / name).read_bytes() for name in TYPED_NAMES]
    cases = [
        ("Y6. ictkit.archive keyed archives to values, 17 Foundation archives × 20", "nska_deserialize",
         "nska-deserialize 1.5.1", lambda module: lambda: [module.deserialize_plist_from_string(blob)
                                                         for _ in range(20) for blob in keyed],
         lambda: [archive.deserialize_plist_from_string(blob) for _ in range(20) for blob in keyed], 10),
        ("Y7. ictkit.archive typed streams to values, 8 fixtures × 5", "typedstream",
         "pytypedstream 0.1.0 unarchive_from_data", lambda module: lambda: [
             module.archiving.unarchive_from_data(blob) for _ in range(5) for blob in typed],
         lambda: [archive.typedstream_value(blob) for _ in range(5) for blob in typed], 20),
    ]
    for title, module_name, peer, peer_call, our_call, target in cases:
        ours, our_cpu = median_seconds(our_call, runs)
        try:
            module = __import__(module_name)
            if module_name == "typedstream":
                __import__("typedstream.archiving")
        except ImportError:
            result.append((title, ours, peer, None, target, f"{peer} is not installed (make python-test installs it)"))
            continue
        theirs, their_cpu = median_seconds(peer_call(module), runs)
        result.append((title, ours, peer, theirs, target,
                       f"CPU-time ratio {their_cpu / our_cpu:.1f}× ({our_cpu * 1000:.1f} ms vs {their_cpu * 1000:.1f} ms)"))
    return result


if __name__ == "__main__":
    for title, ours, peer, theirs, target, note in rows(None, int(sys.argv[1]) if len(sys.argv) > 1 else 5):
        ratio = f"{theirs / ours:.1f}×" if theirs else "not measured"
        print(f"{title}: {ours * 1000:.2f} ms, {peer}: {theirs * 1000 if theirs else 0:.2f} ms, {ratio} "
              f"(target ≥ {target}×); {note}")
