"""Rows Y of issue 42: ictkit.plistlib against the standard library's plistlib in the same run, whole Python
calls including building the Python objects, on the benchmark inputs Benchmarks/generate_inputs.py writes (the
19 MB binary and 30 MB XML property lists, made by plistlib with a fixed seed); then the rows of the modules in
OTHER_ROWS (ictkit.archive against nska-deserialize and pytypedstream, ictkit.coredata against sqlite3).

Usage: bench_plistlib.py INPUT_DIRECTORY [RUNS] [--merge TABLE_FILE]

Prints the rows as `make bench`'s harness prints its table (benchmark, ICTKit, peer, peer time, ratio, target,
result), the CPU-time cross-check and "N of M targets met". Times are medians over RUNS runs (default 5) after
one warm-up; Y5 is the peak resident memory of one binary loads on each side, each in a fresh interpreter.
With --merge, TABLE_FILE holds the harness's output (scripts/bench.sh): the rows Y join its table, their notes
its notes and their count its summary line, so one table comes out.
"""

import os
import plistlib as stdlib_plistlib
import re
import statistics
import subprocess
import sys
import time

from ictkit import plistlib as ictkit_plistlib

PEER = f"plistlib (Python {sys.version_info.major}.{sys.version_info.minor})"
ROWS = [
    ("Y1. ictkit.plistlib binary loads, 19 MB", "large.binary.plist", "loads", 10),
    ("Y2. ictkit.plistlib XML loads, 30 MB", "large.xml.plist", "loads", 5),
    ("Y3. ictkit.plistlib dumps to binary (19 MB file's value)", "large.binary.plist", "dumps-binary", 3),
    ("Y4. ictkit.plistlib dumps to XML (19 MB file's value)", "large.binary.plist", "dumps-xml", 3),
]
# The other Python rows: modules beside this one, each with rows(directory, runs) (see bench_archive.py).
OTHER_ROWS = ["bench_archive", "bench_coredata"]
MEMORY_ROW = "Y5. ictkit.plistlib peak memory of binary loads, 19 MB"
HEADER = ["benchmark", "ICTKit", "peer", "peer time", "ratio", "target", "result"]
CPU_HEADING = ("CPU time (this thread's, or the child's user + system), medians: a cross-check, "
               "as other work on the machine swells wall times much more than CPU times")


def medians(call, runs):
    """Median wall and CPU seconds of `call` (CPU: the whole process's, so the Swift reader's threads count)."""
    call()
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return statistics.median(walls), statistics.median(cpus)


def calls(module, data, value, kind):
    if kind == "loads":
        return lambda: module.loads(data)
    fmt = module.FMT_BINARY if kind == "dumps-binary" else module.FMT_XML
    return lambda: module.dumps(value, fmt=fmt)


def peak_memory(module_name, path):
    """Extra peak resident memory (bytes) of one loads of `path` in a fresh interpreter: the peak (VmHWM) reset
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
    return 1024 * int(subprocess.run([sys.executable, "-c", script, path], check=True, capture_output=True,
                                     text=True, timeout=600).stdout)


def milliseconds(seconds):
    value = seconds * 1000
    return f"{value:.0f} ms" if value >= 100 else f"{value:.{1 if value >= 10 else 2}f} ms"


def measure(directory, runs):
    """The rows Y (lists of the table's cells, the last the result), their notes and their CPU notes."""
    rows, notes, cpu_notes = [], [], []
    for title, name, kind, target in ROWS:
        data = open(os.path.join(directory, name), "rb").read()
        value = stdlib_plistlib.loads(data)
        ours, our_cpu = medians(calls(ictkit_plistlib, data, value, kind), runs)
        theirs, their_cpu = medians(calls(stdlib_plistlib, data, value, kind), runs)
        ratio = theirs / ours
        rows.append([title, milliseconds(ours), PEER, milliseconds(theirs), f"{ratio:.1f}× faster",
                     f"≥ {target}× faster", "PASS" if ratio >= target else "FAIL"])
        cpu_notes.append(f"{title}: CPU-time ratio {their_cpu / our_cpu:.1f}×: {milliseconds(our_cpu)} vs "
                         f"{milliseconds(their_cpu)}")
        print(f"bench: {title}: {ratio:.1f}x", file=sys.stderr, flush=True)
    path = os.path.join(directory, "large.binary.plist")
    ours, theirs = peak_memory("ictkit", path), peak_memory("plistlib", path)
    rows.append([MEMORY_ROW, f"{ours / 1e6:.1f} MB", PEER, f"{theirs / 1e6:.1f} MB", f"{ours / theirs:.2f}× peer's",
                 "≤ 1.0× peer's memory", "PASS" if ours <= theirs else "FAIL"])
    notes.append(f"Y1-Y5: whole Python calls (the objects built), each side in this interpreter, on "
                 f"{os.path.basename(directory.rstrip('/'))}/large.*.plist; Y5: extra VmHWM of one loads in a fresh "
                 "interpreter, after the file is read")
    for module_name in OTHER_ROWS:
        try:
            module = __import__(module_name)
        except ImportError as error:
            notes.append(f"{module_name}: its rows are not measured ({error})")
            continue
        for title, ours, peer, theirs, target, note in module.rows(directory, runs):
            if theirs is None:
                rows.append([title, milliseconds(ours), peer, "—", "not measured", f"≥ {target:g}× faster", "FAIL"])
            else:
                ratio = theirs / ours
                rows.append([title, milliseconds(ours), peer, milliseconds(theirs), f"{ratio:.1f}× faster",
                             f"≥ {target:g}× faster", "PASS" if ratio >= target else "FAIL"])
            cpu_notes.append(f"{title}: {note}")
            print(f"bench: {title}: {rows[-1][4]}", file=sys.stderr, flush=True)
    return rows, notes, cpu_notes


def render(rows, notes, cpu_notes, met, total):
    """The harness's layout (Benchmarks/Sources/PropertyListBenchmarks/ResultTable.swift, render)."""
    widths = [max(len(row[column]) for row in [HEADER] + rows) for column in range(len(HEADER))]

    def line(values):
        return "| " + " | ".join(value.ljust(width) for value, width in zip(values, widths)) + " |"

    output = [line(HEADER), "|" + "|".join("-" * (width + 2) for width in widths) + "|"]
    output += [line(row) for row in rows] + [""] + notes
    if cpu_notes:
        output += ["", CPU_HEADING] + cpu_notes
    output += ["", f"{met} of {total} targets met"]
    return "\n".join(output)


def merged(table_text, rows, notes, cpu_notes):
    """The harness's table with the rows Y added: its rows parsed back into cells, its notes and CPU notes
    kept in their places, its summary's counts added to."""
    their_rows, their_notes, their_cpu_notes, met, total = [], [], [], 0, 0
    section = "notes"
    for text in table_text.splitlines():
        summary = re.fullmatch(r"(\d+) of (\d+) targets met", text)
        if summary:
            met, total = int(summary.group(1)), int(summary.group(2))
        elif text.startswith("| ") and not text.startswith("| benchmark "):
            their_rows.append([cell.strip() for cell in text.strip()[2:-2].split(" | ")])
        elif text == CPU_HEADING:
            section = "cpu"
        elif text.strip() and not text.startswith("|"):
            # A note, or a note's continuation line: kept as it is, in its section.
            (their_cpu_notes if section == "cpu" else their_notes).append(text)
    return render(their_rows + rows, their_notes + ["- " + note for note in notes],
                  their_cpu_notes + ["- " + note for note in cpu_notes],
                  met + sum(row[-1] == "PASS" for row in rows), total + len(rows))


def main():
    arguments = sys.argv[1:]
    table_file = None
    if "--merge" in arguments:
        at = arguments.index("--merge")
        if at + 1 >= len(arguments):
            sys.exit(__doc__)
        table_file = arguments[at + 1]
        del arguments[at:at + 2]
    if len(arguments) not in (1, 2):
        sys.exit(__doc__)
    directory = arguments[0]
    runs = int(arguments[1]) if len(arguments) == 2 else 5
    rows, notes, cpu_notes = measure(directory, runs)
    if table_file is not None:
        with open(table_file, encoding="utf-8") as file:
            print(merged(file.read(), rows, notes, cpu_notes))
    else:
        print(render(rows, ["- " + note for note in notes], ["- " + note for note in cpu_notes],
                     sum(row[-1] == "PASS" for row in rows), len(rows)))


if __name__ == "__main__":
    main()
