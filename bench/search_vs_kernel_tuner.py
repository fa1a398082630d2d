#!/usr/bin/env python3
"""Side by side: Kernel Tuner's strategies and cutune's on recorded spaces (Kernel Tuner caches), one table.

Run by bench/search_vs_kernel_tuner.sh, which makes the virtual environment. Three commands:

  kt     replays Kernel Tuner strategies with tune_cache (simulation mode, valid configurations only) and appends one
         JSON line per (cache, strategy, seed) to --out; lines already there are skipped, so a run can be resumed.
  cutune replays cutune strategies with `tune replay --valid-only --json --per-seed` and appends the same lines;
         with --prior-siblings, the default strategy instead, with the other caches given in the same folder (the same
         kernel on other GPUs) as its prior (`tune replay --prior`), as strategy "portfolio + prior from GPU, ...".
  table  reads the lines and prints the Markdown table of median evaluations to 5% and 1% of the optimum.
"""
import argparse
import gzip
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# Every single-objective strategy of Kernel Tuner 1.5.0 but brute_force, skopt (needs scikit-optimize) and
# pyatf_strategies (needs pyATF); nsga2/nsga3 are multi-objective.
KT_STRATEGIES = [
    "random_sample", "minimize", "basinhopping", "diff_evo", "genetic_algorithm", "greedy_mls", "ordered_greedy_mls",
    "greedy_ils", "dual_annealing", "mls", "pso", "simulated_annealing", "firefly_algorithm", "hybrid_vndx",
    "adaptive_tabu_greywolf", "bayes_opt",
]


def cache_name(path):
    """convolution_milo/A100 for .../convolution_milo/A100.json.gz"""
    base = os.path.basename(path)
    for ext in (".gz", ".json"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return os.path.basename(os.path.dirname(os.path.abspath(path))) + "/" + base


def read_cache(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        text = f.read().rstrip()
    if text.endswith(","):  # a cache written by an interrupted run
        text = text[:-1] + "}}"
    return json.loads(text)


def valid_optimum(cache):
    times = [r["time"] for r in cache["cache"].values() if isinstance(r.get("time"), (int, float))]
    return min(times)


def evals_to(times, optimum, tolerance, budget):
    """1-based evaluation at which the best so far is within tolerance of the optimum, or budget + 1."""
    best = math.inf
    for n, t in enumerate(times, 1):
        if t is not None and t < best:
            best = t
        if best <= optimum * (1.0 + tolerance):
            return n
    return budget + 1


def done_keys(out):
    keys = set()
    if os.path.exists(out):
        with open(out) as f:
            for line in f:
                r = json.loads(line)
                keys.add((r["cache"], r["tool"], r["strategy"], r["seed"], r.get("batch", 1)))
    return keys


def run_kt(args):
    import numpy as np  # in the bench's virtual environment only
    from kernel_tuner import tune_cache

    done = done_keys(args.out)
    strategies = args.strategies.split(",") if args.strategies else KT_STRATEGIES
    tmp = tempfile.mkdtemp(prefix="kt_cache_")
    try:
        for path in args.caches:
            name = cache_name(path)
            cache = read_cache(path)
            optimum = valid_optimum(cache)
            keys = cache["tune_params_keys"]
            plain = os.path.join(tmp, name.replace("/", "__") + ".json")  # tune_cache reads only plain .json
            with open(plain, "w") as f:
                json.dump(cache, f)
            for strategy in strategies:
                for seed in range(1, args.seeds + 1):
                    if (name, "kernel_tuner", strategy, seed, 1) in done:
                        continue
                    random.seed(seed)
                    np.random.seed(seed)
                    start = time.time()
                    results, _ = tune_cache(cache_path=plain, strategy=strategy,
                                            strategy_options={"max_fevals": args.budget}, verbose=False, quiet=True)
                    seen, times = set(), []
                    for r in results:  # a revisited configuration costs Kernel Tuner no evaluation
                        key = tuple(r[k] for k in keys)
                        if key in seen:
                            continue
                        seen.add(key)
                        t = r.get("time")
                        times.append(t if isinstance(t, (int, float)) else None)
                    times = times[: args.budget]
                    line = {"cache": name, "tool": "kernel_tuner", "strategy": strategy, "seed": seed, "batch": 1,
                            "budget": args.budget, "evals": len(times),
                            "to5": evals_to(times, optimum, 0.05, args.budget),
                            "to1": evals_to(times, optimum, 0.01, args.budget),
                            "seconds": round(time.time() - start, 3)}
                    with open(args.out, "a") as f:
                        f.write(json.dumps(line) + "\n")
                    print(json.dumps(line), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cutune_names(args, path):
    """Every strategy `tune replay --strategy all` runs."""
    out = subprocess.run([args.tune, "replay", "--cache", path, "--strategy", "all", "--budget", "1", "--seeds", "1",
                          "--valid-only", "--json"], check=True, capture_output=True, text=True).stdout
    return [r["strategy"] for r in json.loads(out)]


def siblings(path, caches):
    """The other caches of `caches` in the folder of `path`: the same kernel on other GPUs."""
    folder = os.path.dirname(os.path.abspath(path))
    return [c for c in caches if c != path and os.path.dirname(os.path.abspath(c)) == folder]


def prior_label(strategy, others):
    return f"{strategy} + prior from " + ", ".join(os.path.basename(cache_name(c)) for c in others)


def run_cutune(args):
    done = done_keys(args.out)
    for path in args.caches:
        name = cache_name(path)
        prior = []
        if args.prior_siblings:
            others = siblings(path, args.caches)
            if not others:
                continue
            wanted = [args.default]
            prior = [a for c in others for a in ("--prior", c)]
            label = prior_label(args.default, others)
        else:
            wanted = args.strategies.split(",") if args.strategies else cutune_names(args, path)
            label = None
        todo = [s for s in wanted if (name, "cutune", label or s, 1, args.batch) not in done]
        if not todo:
            continue
        start = time.time()
        out = subprocess.run([args.tune, "replay", "--cache", path, "--strategy", ",".join(todo), "--budget",
                              str(args.budget), "--seeds", str(args.seeds), "--batch", str(args.batch), "--valid-only",
                              "--per-seed", "--json"] + prior, check=True, capture_output=True, text=True).stdout
        seconds = time.time() - start
        with open(args.out, "a") as f:
            for r in json.loads(out):
                for s in r["per_seed"]:
                    line = {"cache": name, "tool": "cutune", "strategy": label or r["strategy"], "seed": s["seed"],
                            "batch": args.batch, "budget": args.budget, "to5": s["evals_to_5pct"],
                            "to1": s["evals_to_1pct"], "seconds": round(seconds / len(todo) / len(r["per_seed"]), 3)}
                    f.write(json.dumps(line) + "\n")
        print(f"{name}: cutune replay of {label or ','.join(todo)}, batch {args.batch}, {seconds:.0f} s", flush=True)


def median(values):
    return statistics.median(values) if values else math.nan


def fmt(v, budget):
    if v > budget:
        return f"> {budget}"
    return str(int(v)) if v == int(v) else f"{v:.1f}"


def summarize(lines):
    """(cache, tool, strategy, batch) -> [seeds, median to 5%, reached 5%, median to 1%, reached 1%, budget, seconds]"""
    groups = {}
    for r in lines:
        groups.setdefault((r["cache"], r["tool"], r["strategy"], r.get("batch", 1)), []).append(r)
    out = {}
    for key, rs in groups.items():
        budget = rs[0]["budget"]
        out[key] = dict(seeds=len(rs), budget=budget, to5=median([r["to5"] for r in rs]),
                        hit5=sum(r["to5"] <= budget for r in rs), to1=median([r["to1"] for r in rs]),
                        hit1=sum(r["to1"] <= budget for r in rs), seconds=sum(r.get("seconds", 0) for r in rs))
    return out


def run_table(args):
    lines = []
    for path in args.results:
        with open(path) as f:
            lines += [json.loads(line) for line in f if line.strip()]
    s = summarize(lines)
    caches = sorted({k[0] for k in s})
    default = args.default
    print("| cache | tool | strategy | seeds | evals to 5% (median) | seeds reaching 5% | evals to 1% (median) | "
          "seeds reaching 1% | wall s per run |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cache in caches:
        rows = sorted((k for k in s if k[0] == cache and k[3] == 1), key=lambda k: (k[1], s[k]["to5"], s[k]["to1"]))
        for k in rows:
            v = s[k]
            bold = "**" if k[2] == default and k[1] == "cutune" else ""
            print(f"| {cache} | {k[1]} | {bold}{k[2]}{bold} | {v['seeds']} | {fmt(v['to5'], v['budget'])} | "
                  f"{v['hit5']}/{v['seeds']} | {fmt(v['to1'], v['budget'])} | {v['hit1']}/{v['seeds']} | "
                  f"{v['seconds'] / v['seeds']:.2f} |")
    print()
    print("| cache | cutune default (5% / 1%) | with a prior from other GPUs | batch 2 | batch 4 | "
          "cutune's best other (5%) | Kernel Tuner's best (5%) | Kernel Tuner bayes_opt (5%) |")
    print("|---|---|---|---|---|---|---|---|")
    for cache in caches:
        d = {b: s.get((cache, "cutune", default, b)) for b in (1, 2, 4)}
        with_prior = [k for k in s if k[0] == cache and k[1] == "cutune" and k[3] == 1 and
                      k[2].startswith(default + " + prior from ")]

        def cell(v):
            return f"{fmt(v['to5'], v['budget'])} / {fmt(v['to1'], v['budget'])}" if v else "—"

        def best(tool, exclude=()):
            ks = [k for k in s if k[0] == cache and k[1] == tool and k[3] == 1 and k[2] not in exclude and
                  " + prior from " not in k[2]]
            if not ks:
                return "—"
            k = min(ks, key=lambda k: (s[k]["to5"], s[k]["to1"]))
            seeds = f" ({s[k]['seeds']} seeds)" if tool == "kernel_tuner" else ""
            return f"{k[2]} {fmt(s[k]['to5'], s[k]['budget'])}{seeds}"

        bo = s.get((cache, "kernel_tuner", "bayes_opt", 1))
        bo_cell = f"{fmt(bo['to5'], bo['budget'])} ({bo['seeds']} seeds)" if bo else "—"
        prior_cell = "; ".join(f"{cell(s[k])} ({k[2][len(default) + 3:]})" for k in sorted(with_prior)) or "—"
        print(f"| {cache} | {cell(d[1])} | {prior_cell} | {cell(d[2])} | {cell(d[4])} | {best('cutune', (default,))} | "
              f"{best('kernel_tuner')} | {bo_cell} |")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    for cmd in ("kt", "cutune"):
        c = sub.add_parser(cmd)
        c.add_argument("caches", nargs="+", help="Kernel Tuner cache files (.json or .json.gz)")
        c.add_argument("--out", required=True, help="JSON lines file to append to")
        c.add_argument("--seeds", type=int, default=25)
        c.add_argument("--budget", type=int, default=800)
        c.add_argument("--strategies", default="", help="comma-separated names (default: all)")
        if cmd == "cutune":
            c.add_argument("--tune", required=True, help="the tune executable")
            c.add_argument("--batch", type=int, default=1)
            c.add_argument("--prior-siblings", action="store_true",
                           help="replay the default strategy with the other caches of the same folder as its prior")
            c.add_argument("--default", default="portfolio", help="cutune's default strategy")
    t = sub.add_parser("table")
    t.add_argument("results", nargs="+")
    t.add_argument("--default", default="portfolio", help="cutune's default strategy, shown in bold")
    args = p.parse_args()
    for path in getattr(args, "caches", []):
        if not os.path.isfile(path):
            sys.exit(f"search_vs_kernel_tuner: no cache file {path}")
    {"kt": run_kt, "cutune": run_cutune, "table": run_table}[args.command](args)


if __name__ == "__main__":
    main()
