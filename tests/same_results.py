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


def suite(j, suite_id):
    """The one suite's result from a results.json or a baseline ({"suites": [...]}), or a result.json itself."""
    if "suites" in j:
        found = [s for s in j["suites"] if s.get("suite") == suite_id]
        return found[0] if found else None
    return j if j.get("suite") == suite_id else None


if __name__ == "__main__":
    args = sys.argv[1:]
    only = None
    if len(args) == 4 and args[0] == "--suite":
        only, args = args[1], args[2:]
    if len(args) != 2:
        sys.exit("usage: same_results.py [--suite ID] A.json B.json")
    a, b = (strip(json.load(open(p))) for p in args)
    if only is not None:
        a, b = suite(a, only), suite(b, only)
        if a is None or b is None:
            sys.exit(1)
    sys.exit(0 if a == b else 1)
