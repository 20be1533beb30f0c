"""Rows Y of issue 42: ictkit.plistlib against the standard library's plistlib in the same run, whole Python
calls including building the Python objects, on the benchmark inputs Benchmarks/generate_inputs.py writes (the
19 MB binary and 30 MB XML property lists, made by plistlib with a fixed seed). `make bench-python`.

Usage: bench_plistlib.py INPUT_DIRECTORY [RUNS]

Prints one line per row: its letter, what it measures, the median seconds of each side over RUNS runs (after
one warm-up), the ratio plistlib / ictkit and the issue's target; then the peak resident memory of one binary
loads on each side, each measured in a child process of its own.
"""

import os
import plistlib as stdlib_plistlib
import statistics
import subprocess
import sys
import time

from ictkit import plistlib as ictkit_plistlib

ROWS = [
    ("Y1", "binary loads, 19 MB", "large.binary.plist", "loads", 10),
    ("Y2", "XML loads, 30 MB", "large.xml.plist", "loads", 5),
    ("Y3", "dumps to binary (the 19 MB file's value)", "large.binary.plist", "dumps-binary", 3),
    ("Y4", "dumps to XML (the 19 MB file's value)", "large.binary.plist", "dumps-xml", 3),
]


def median_seconds(call, runs):
    call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def calls(module, data, value, kind):
    if kind == "loads":
        return lambda: module.loads(data)
    fmt = module.FMT_BINARY if kind == "dumps-binary" else module.FMT_XML
    return lambda: module.dumps(value, fmt=fmt)


def peak_memory(module_name, path):
    """Extra peak resident memory (KiB) of one loads of `path` in a fresh interpreter: the peak (VmHWM) reset
    after the file is read (/proc/self/clear_refs; a child's ru_maxrss starts at its parent's), minus the
    resident size then."""
    script = (
        ("from ictkit import plistlib\n" if module_name == "ictkit" else "import plistlib\n")
        + "import sys\n"
        "def status(field):\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith(field + ':'): return int(line.split()[1])\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "open('/proc/self/clear_refs', 'w').write('5')\n"
        "before = status('VmRSS')\n"
        "value = plistlib.loads(data)\n"
        "print(status('VmHWM') - before)\n"
    )
    return int(subprocess.run([sys.executable, "-c", script, path], check=True, capture_output=True,
                              text=True, timeout=600).stdout)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    directory = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) == 3 else 5
    met = 0
    for letter, title, name, kind, target in ROWS:
        data = open(os.path.join(directory, name), "rb").read()
        value = stdlib_plistlib.loads(data)
        ours = median_seconds(calls(ictkit_plistlib, data, value, kind), runs)
        theirs = median_seconds(calls(stdlib_plistlib, data, value, kind), runs)
        ratio = theirs / ours
        met += ratio >= target
        print(f"{letter:3} {title:45} ictkit {ours:7.3f} s  plistlib {theirs:7.3f} s  "
              f"{ratio:5.1f}x  (target >= {target}x: {'met' if ratio >= target else 'NOT met'})", flush=True)
    path = os.path.join(directory, "large.binary.plist")
    ours, theirs = peak_memory("ictkit", path), peak_memory("plistlib", path)
    met += ours <= theirs
    print(f"Y5  peak memory of binary loads, 19 MB            ictkit {ours / 1024:7.1f} MiB  plistlib {theirs / 1024:7.1f} MiB"
          f"  (target <= plistlib: {'met' if ours <= theirs else 'NOT met'})")
    print(f"{met} of {len(ROWS) + 1} targets met")


if __name__ == "__main__":
    main()
