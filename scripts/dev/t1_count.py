#!/usr/bin/env python3
"""Counts each T1 file's configurations by brute force in Python (Values and Conditions are Python expressions) and
compares with `tune space --problem`: a check that the space cutune reads is the file's.
Usage: scripts/dev/t1_count.py TUNE FILE..."""
import itertools
import json
import math
import re
import subprocess
import sys

ENV = {"range": range, "min": min, "max": max, "int": int, "ceil": math.ceil, "floor": math.floor, "len": len,
       "list": list, "abs": abs, "True": True, "False": False, "math": math}


def brute_force(path):
    with open(path) as f:
        problem = json.load(f)
    space = problem["ConfigurationSpace"]
    names = [p["Name"] for p in space["TuningParameters"]]
    values = [list(eval(p["Values"], dict(ENV))) for p in space["TuningParameters"]]
    conditions = [compile(c["Expression"], "<condition>", "eval") for c in space.get("Conditions", [])]
    combinations = math.prod(len(v) for v in values)
    valid = 0
    for point in itertools.product(*values):
        scope = dict(ENV)
        scope.update(zip(names, point))
        valid += all(eval(c, scope) for c in conditions)
    return combinations, valid


def cutune_count(tune, path):
    out = subprocess.run([tune, "space", "--problem", path], capture_output=True, text=True)
    m = re.search(r"\((\d+) combinations, (\d+) removed by constraints", out.stdout + out.stderr)
    if not m:
        return None, (out.stdout + out.stderr).strip().splitlines()[-1:]
    return int(m.group(1)), int(m.group(1)) - int(m.group(2))


def main():
    tune, files = sys.argv[1], sys.argv[2:]
    print(f"{'file':32} {'combinations':>12} {'valid (Python)':>15} {'valid (cutune)':>15}  same")
    for path in files:
        name = path.rsplit("/", 1)[-1]
        try:
            combinations, valid = brute_force(path)
        except Exception as e:  # a file Python cannot read either
            print(f"{name:32} Python: {type(e).__name__}: {str(e)[:60]}")
            continue
        cutune_combinations, cutune_valid = cutune_count(tune, path)
        if cutune_combinations is None:
            print(f"{name:32} {combinations:>12} {valid:>15} cutune: {cutune_valid}")
            continue
        same = cutune_combinations == combinations and cutune_valid == valid
        print(f"{name:32} {combinations:>12} {valid:>15} {cutune_valid:>15}  {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
