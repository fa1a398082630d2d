#!/usr/bin/env python3
"""Tuning on one GPU, on every GPU of the machine (`--devices all`) and as an MPI job of one rank per GPU
(`mpirun -np N tune`), warm and cold, as a user runs `tune`: wall time, the run's own phase line, and how many
configurations each GPU measured. Prints a Markdown table and, with --results FILE, appends it there with the date
and the device.

Cases (--cases, default all three):
  gemm    the SGEMM template at 4096^3, 300 configurations, exhaustive (so that every run measures the same ones)
  reduce  the reduction at 2^28, 400 configurations, exhaustive
  bf16    the ten BF16 GEMM shapes of bench/gemm_user_view.cpp, --budget 60, the default strategy

Cold: a fresh cubin cache and a fresh CUDA driver cache (CUDA_CACHE_PATH), so that every compile is paid. Warm: the
cubin cache that the one-GPU cold run of the same case filled. Every run gets a fresh database.

  bench/multi_gpu_bench.py --tune build/tune [--modes one,all,mpi] [--cases gemm,reduce,bf16] [--results bench/RESULTS.md]
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TEN_BF16 = ("2048x2048x2048,4096x4096x4096,8192x8192x8192,4096x11008x4096,4096x4096x11008,1000x1000x1000,"
            "8192x8192x256,4096x4096x64,64x4096x4096,16x4096x4096")
CASES = {
    "gemm": ("gemm 4096³, 300 configs exhaustive",
             ["--kernel", "gemm", "--shapes", "4096x4096x4096", "--budget", "300", "--strategy", "exhaustive"]),
    "reduce": ("reduce 2^28, 400 configs exhaustive",
               ["--kernel", "reduce", "--shapes", "268435456", "--budget", "400", "--strategy", "exhaustive"]),
    "bf16": ("ten bf16 shapes, --budget 60", ["--kernel", "gemm_bf16", "--shapes", TEN_BF16, "--budget", "60"]),
}
MODES = {"one": "one GPU", "all": "--devices all", "mpi": "mpirun -np N --bind-to none"}


def gpus():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True).stdout
    except FileNotFoundError:
        return []
    return [line.strip() for line in out.split("\n") if line.strip()]


def run(args, case, mode, cache, work, label):
    """One tune run; returns its wall time, the run-time line and per-GPU measured counts (summed over shapes)."""
    db = os.path.join(work, label + ".db")
    command = [args.tune] + CASES[case][1] + ["--db", db, "--cache-dir", cache]
    env = dict(os.environ)
    if mode == "all":
        command += ["--devices", "all"]
    elif mode == "mpi":
        # As docs/multi-gpu.md says: unbound, or Open MPI binds each of two ranks to one core, and compiles get one.
        command = [args.mpirun, "-np", str(len(gpus())), "--bind-to", "none", "-x", "CUTUNE_WORKER", "-x",
                   "CUDA_CACHE_PATH"] + command
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env["CUDA_CACHE_PATH"] = cache + "-driver"
    env.setdefault("CUTUNE_WORKER", args.worker)
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.monotonic() - start
    with open(os.path.join(work, label + ".log"), "w") as log:
        log.write(done.stdout + done.stderr)
    if done.returncode != 0:
        sys.exit(f"error: {' '.join(command)} exited with {done.returncode}:\n{done.stderr[-2000:]}")
    phases = next((line.strip() for line in done.stdout.splitlines() if line.startswith("run time")), "")
    shares = {}
    for line in done.stdout.splitlines():
        if line.strip().startswith("per GPU"):
            for name, count in re.findall(r"((?:rank \d+ )?GPU \d+): (\d+) measured", line):
                shares[name] = shares.get(name, 0) + int(count)
    return wall, phases, shares


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tune", default="build/tune", help="the tune program")
    parser.add_argument("--worker", default="", help="cutune-worker (default: beside tune)")
    parser.add_argument("--mpirun", default="mpirun", help="the MPI launcher")
    parser.add_argument("--cases", default="gemm,reduce,bf16", help="comma-separated: gemm, reduce, bf16")
    parser.add_argument("--modes", default="one,all,mpi", help="comma-separated: one, all, mpi (one is always run)")
    parser.add_argument("--out", default="", help="folder for the runs' logs and databases (default: a temporary one)")
    parser.add_argument("--results", default="", help="append the table to this Markdown file")
    args = parser.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    modes = ["one"] + [m for m in args.modes.split(",") if m and m != "one"]
    for name in cases:
        if name not in CASES:
            sys.exit(f"error: unknown case '{name}' (gemm, reduce, bf16)")
    for name in modes:
        if name not in MODES:
            sys.exit(f"error: unknown mode '{name}' (one, all, mpi)")
    if not os.access(args.tune, os.X_OK):
        sys.exit(f"error: {args.tune} is not a program (--tune)")
    args.worker = args.worker or os.path.join(os.path.dirname(os.path.abspath(args.tune)), "cutune-worker")
    if "mpi" in modes and shutil.which(args.mpirun) is None:
        sys.exit(f"error: {args.mpirun} not found (--mpirun), or leave mpi out of --modes")
    names = gpus()
    if len(names) < 2:
        sys.exit(f"error: {len(names)} GPU(s) here; the bench compares one GPU with several")
    work = args.out or tempfile.mkdtemp(prefix="cutune-multi-gpu-")
    os.makedirs(work, exist_ok=True)

    rows = []
    for case in cases:
        times = {}
        warm_cache = os.path.join(work, case + "-cache-one")
        # Cold runs first (the one-GPU one fills the cache the warm runs use), alternating with warm ones.
        order = [("cold", "one")] + [("warm", m) for m in modes] + [("cold", m) for m in modes if m != "one"]
        for state, mode in order:
            label = f"{case}-{state}-{mode}"
            cache = warm_cache if state == "warm" or mode == "one" else os.path.join(work, label + "-cache")
            if state == "cold":
                shutil.rmtree(cache, ignore_errors=True)
                shutil.rmtree(cache + "-driver", ignore_errors=True)
            wall, phases, shares = run(args, case, mode, cache, work, label)
            times[(state, mode)] = wall
            print(f"{label:20} {wall:6.1f} s  {phases}  {shares or ''}", flush=True)
            total = sum(shares.values())
            share = ", ".join(f"{n} {c}" for n, c in shares.items()) if shares else ""
            if shares and total:
                share += f" (least {100 * min(shares.values()) / total:.0f}%)"
            rows.append((CASES[case][0], state, MODES[mode], wall, times[(state, "one")], share))

    stamp = datetime.date.today().isoformat()
    table = [f"Multi-GPU tuning, {stamp}, {len(names)} x {names[0]} (bench/multi_gpu_bench.py --cases {args.cases} "
             f"--modes {','.join(modes)})", "",
             "| run | cache | how | wall s | speed-up over one GPU | configurations measured per GPU |",
             "|---|---|---|---|---|---|"]
    for what, state, how, wall, one, share in rows:
        table.append(f"| {what} | {state} | {how} | {wall:.1f} | {one / wall:.2f}x | {share} |")
    text = "\n".join(table) + "\n"
    print("\n" + text)
    if args.results:
        with open(args.results, "a") as f:
            f.write("\n" + text)
    print(f"logs and databases in {work}")


if __name__ == "__main__":
    main()
