#!/usr/bin/env python3
"""Exit 0 when two result files (result.json, results.json or a baseline) are equal once the fields that may
differ between equal runs are removed: timings, the command line and the build stamp. Same seed, same report."""
import json
import sys

VOLATILE = ("elapsed_seconds", "timings", "command", "seconds", "boxes_per_second", "build_commit")


def strip(j):
    if isinstance(j, dict):
        return {k: strip(v) for k, v in j.items() if k not in VOLATILE}
    if isinstance(j, list):
        return [strip(v) for v in j]
    return j


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: same_results.py A.json B.json")
    a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
    sys.exit(0 if a == b else 1)
