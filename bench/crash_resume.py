#!/usr/bin/env python3
"""Kill -9 a tuning run at random moments, resume it each time, and check the database after every resume.

Starts `tune` on a budgeted gemm run (random strategy with a fixed seed, so the configurations it measures do not
depend on timings), kills it with SIGKILL when the stored results reach each of KILLS random points between 5% and
95% of the budget, and after every kill checks: PRAGMA integrity_check is ok; every measurement stored before the
kill is still there; no (run, shape, configuration) is stored twice and no configuration has two current rows; no
cutune-worker of the killed tuner is left (and how long it took to go). Finally the resumed run's set of
configurations must equal an uninterrupted run's. Prints a table and exits non-zero on any failed check.

Usage: bench/crash_resume.py --tune build/tune [--kernel gemm] [--shape 1000x1000x1000] [--budget 300]
                             [--kills 10] [--seed 1] [--dir DIR]
"""
import argparse
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time


def stored(db):
    """(run uid, shape, config, current) of every result, or [] while the file is not there yet."""
    if not os.path.exists(db):
        return []
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
        rows = con.execute("SELECT u.uid, r.shape, r.config, r.current FROM results r JOIN runs u ON u.id = r.run_id").fetchall()
        con.close()
        return rows
    except sqlite3.Error:
        return []  # created but not yet initialised


def workers_of(pid):
    """Pids of cutune-worker processes whose parent is `pid` (or that were and are now orphans of it)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        if name.startswith("cutune-worker") and int(fields[1]) in (pid, 1):
            out.append(int(entry))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tune", required=True)
    p.add_argument("--kernel", default="gemm")
    p.add_argument("--shape", default="1000x1000x1000")
    p.add_argument("--budget", type=int, default=300)
    p.add_argument("--kills", type=int, default=10)
    p.add_argument("--seed", type=int, default=1, help="seed of the kill points")
    p.add_argument("--dir", default=None)
    a = p.parse_args()
    work = a.dir or tempfile.mkdtemp(prefix="cutune_crash_")
    os.makedirs(work, exist_ok=True)
    # The random strategy's proposals depend on its seed (1, the default) only, not on measured times.
    base = [a.tune, "--kernel", a.kernel, "--shapes", a.shape, "--budget", str(a.budget), "--strategy", "random"]
    log = open(os.path.join(work, "tune.log"), "a")

    def run(db, kill_at=None):
        """Runs tune on `db`; with kill_at, SIGKILLs it once that many results are stored. Returns (rc, killed)."""
        proc = subprocess.Popen(base + ["--db", db], stdout=log, stderr=log)
        while proc.poll() is None:
            if kill_at is not None and len(stored(db)) >= kill_at:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                return proc.returncode, proc.pid
            time.sleep(0.02)
        return proc.returncode, None

    failures = []
    start = time.time()
    reference_db = os.path.join(work, "reference.db")
    rc, _ = run(reference_db)
    if rc != 0:
        sys.exit(f"the uninterrupted run failed (rc {rc}); see {work}/tune.log")
    reference = {c for _, _, c, _ in stored(reference_db)}
    reference_s = time.time() - start

    db = os.path.join(work, "killed.db")
    rng = random.Random(a.seed)
    points = sorted(rng.sample(range(int(0.05 * a.budget), int(0.95 * a.budget) + 1), a.kills))
    rows_out = []
    for n, point in enumerate(points, 1):
        before = set(stored(db))
        before_keys = {(u, s, c) for u, s, c, _ in before}
        if len(before_keys) >= point:
            rows_out.append((n, point, len(before_keys), "-", "-", "skipped: already past this point"))
            continue
        rc, pid = run(db, point)
        t_kill = time.time()
        left = workers_of(pid) if pid else []
        while left and time.time() - t_kill < 10:
            time.sleep(0.01)
            left = workers_of(pid)
        gone_ms = (time.time() - t_kill) * 1000
        con = sqlite3.connect(db, timeout=30)
        integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        dup_run = con.execute("SELECT count(*) FROM (SELECT run_id, shape, config FROM results "
                              "GROUP BY run_id, shape, config HAVING count(*) > 1)").fetchone()[0]
        dup_current = con.execute("SELECT count(*) FROM (SELECT device_id, kernel_id, shape, config FROM results "
                                  "WHERE current = 1 GROUP BY device_id, kernel_id, shape, config HAVING count(*) > 1)").fetchone()[0]
        con.close()
        after_keys = {(u, s, c) for u, s, c, _ in stored(db)}
        lost = before_keys - after_keys
        problems = []
        if pid is None:
            problems.append(f"finished before the kill point (rc {rc})")
        if integrity != "ok":
            problems.append(f"integrity_check: {integrity}")
        if lost:
            problems.append(f"{len(lost)} stored measurements lost")
        if dup_run or dup_current:
            problems.append(f"{dup_run} duplicated (run, config), {dup_current} configs with two current rows")
        if left:
            problems.append(f"{len(left)} worker(s) still alive 10 s after the kill")
        failures += problems
        distinct = len({c for _, _, c in after_keys})
        rows_out.append((n, point, distinct, f"{gone_ms:.0f}", integrity, "; ".join(problems) or "ok"))

    rc, _ = run(db)
    final = {c for _, _, c, _ in stored(db)}
    if rc != 0:
        failures.append(f"the final resume failed (rc {rc})")
    if final != reference:
        failures.append(f"final set differs from the uninterrupted run: {len(final - reference)} extra, "
                        f"{len(reference - final)} missing")
    rerun_before = len(stored(db))
    run(db)
    if len(stored(db)) != rerun_before:
        failures.append("re-running the finished command stored more results")

    print(f"{'kill':>4} {'at':>5} {'configs stored':>15} {'worker gone ms':>15} {'integrity':>10}  checks")
    for r in rows_out:
        print(f"{r[0]:>4} {r[1]:>5} {r[2]:>15} {r[3]:>15} {r[4]:>10}  {r[5]}")
    multi = len(stored(db)) - len(final)
    print(f"final: {len(final)} configurations (uninterrupted run: {len(reference)}, {reference_s:.1f} s), "
          f"same set: {final == reference}; {multi} extra rows are re-timings of finalists in later runs (history)")
    print("PASS" if not failures else "FAIL: " + "; ".join(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
