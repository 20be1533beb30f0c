#!/usr/bin/env python3
"""Python's plistlib as a peer of rows r3 and r4 (`make bench`).

Usage: plistlib_read.py FILE RUNS

Reads FILE's bytes once, decodes them with plistlib.loads once to warm up
and RUNS times timed, each from the same bytes in memory (as the harness's
own side does), and prints one line per timed run: its wall time and this
thread's CPU time, in nanoseconds. The value is dropped after the clock
stops, as on ICTKit's side.
"""

import plistlib
import sys
import time


def main():
    if len(sys.argv) != 3:
        print("usage: plistlib_read.py FILE RUNS", file=sys.stderr)
        return 64
    with open(sys.argv[1], "rb") as file:
        data = file.read()
    runs = int(sys.argv[2])
    value = plistlib.loads(data)
    print(f"plistlib_read.py: {len(value)} top-level entries", file=sys.stderr)
    del value
    for _ in range(runs):
        start_cpu = time.thread_time_ns()
        start = time.perf_counter_ns()
        value = plistlib.loads(data)
        wall = time.perf_counter_ns() - start
        cpu = time.thread_time_ns() - start_cpu
        del value
        print(wall, cpu, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
