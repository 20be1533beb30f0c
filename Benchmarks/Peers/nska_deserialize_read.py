"""Bench row y's peer: PyPI's nska-deserialize (1.5.1) turning keyed archives into readable Python values.

Usage: nska_deserialize_read.py ROUNDS FILE...: reads every FILE into memory, then deserializes each ROUNDS times
(deserialize_plist_from_string, which resolves the object graph into plain values) and prints the wall and CPU seconds
of that loop and the number of archives deserialized, timed inside this process so Python's start-up is not counted.
"""
import sys
import time

import nska_deserialize

rounds = int(sys.argv[1])
blobs = [open(path, "rb").read() for path in sys.argv[2:]]
wall, cpu = time.perf_counter(), time.process_time()
count = 0
for _ in range(rounds):
    for blob in blobs:
        nska_deserialize.deserialize_plist_from_string(blob)
        count += 1
print(time.perf_counter() - wall, time.process_time() - cpu, count)
