#!/usr/bin/env python3
"""Writes the seed inputs of fuzz_column_chunks (its input format is described in fuzz_column_chunks.cpp):
one small, valid run per chunk table, as the store writes them (docs/database.md, "Column chunks")."""
import math
import pathlib
import struct

out = pathlib.Path(__file__).parent / "corpus" / "fuzz_column_chunks"


def chunk(integers, blobs):
    data = b"".join(struct.pack("<i", v) for v in integers)
    for blob in blobs:
        data += struct.pack("<H", len(blob)) + blob
    return data


def i32(*values):
    return struct.pack(f"<{len(values)}i", *values)


def f64(*values):
    return struct.pack(f"<{len(values)}d", *values)


seeds = {
    "intervals": bytes([0]) + chunk([0, 0, 3], [i32(0, 1, 0), i32(0, 1, 2), f64(0, 0, 50.5), f64(50.5, 80, 90)]),
    "utilization": bytes([1]) + chunk([0, 0, 2, 2], [f64(0, 60), i32(3, 1), i32(2, 1, 1, 0)]),
    "decisions": bytes([2]) + chunk([0, 0, 2], [f64(0, 60), f64(1e-5, 2e-5), i32(4, 1), i32(0, 3)]),
    # Selector 3 + 5 * 2: job_chunks of a run of three jobs; job 2 was never written (an interrupted run).
    "jobs": bytes([3 + 5 * 2])
    + chunk(
        [0, 0, 2],
        [b"j0\0j1\0resnet50\0alice\0v100\0\0", i32(0, 1), i32(0, 1), i32(2, 2), i32(3, 3), i32(4, 5),
         i32(4, 1), i32(0, 2), i32(1, 1), i32(4, 1), i32(0, 1), f64(0, 10), f64(5, math.nan),
         f64(100, math.nan), f64(380, 0), f64(1.25, 0), f64(90, 200)],
    ),
    # Three events of two jobs: a suspension and its resume, and a drop with its reason.
    "events": bytes([4])
    + chunk([0, 0, 3], [b"suspend\0\0drop\0deadline\0resume\0", i32(0, 1, 0), f64(40, 40, 50), i32(0, 2, 4),
                        i32(1, 3, 1)]),
}
out.mkdir(parents=True, exist_ok=True)
for name, data in seeds.items():
    (out / name).write_bytes(data)
