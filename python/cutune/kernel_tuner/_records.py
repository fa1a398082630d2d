"""What tune_kernel returns, in Kernel Tuner's form: one dict per configuration (the tunable parameters, time as
the mean of times in ms, times, compile_time, verification_time, benchmark_time, the metrics, timestamp,
strategy_time and framework_time; "__error__" instead of a time for a failure), and the environment dict."""

from __future__ import annotations

import json
import platform
import sys
from typing import Any, Dict, Iterable, List, Optional

from .. import _cutune
from .. import db as _db
from ..errors import InputError
from .util import ERROR_CONFIGS, get_config_string, process_metrics

# A record's fields in Kernel Tuner's order, after the parameters and before the metrics.
_TIMINGS = ("compile_time", "verification_time", "benchmark_time")
_AMORTIZED = ("strategy_time", "framework_time")


def stored_records(db: str, version: str, shape: str, device_name: str, flush: str) -> List[Dict[str, Any]]:
    """The records of the kernel version's measurements at `shape` on the device, as the "kt-cache" export writes
    them (one per configuration: its newest ok measurement, else its newest); none when there are none."""
    try:
        text = _db.export(db, "kt-cache", kernel=version, device=device_name or None, shape=shape, flush=flush or None)
    except InputError:  # nothing selected: nothing measured yet
        return []
    return list(json.loads(text or "{}").get("cache", {}).values())


def result_of(record: Dict[str, Any], keys: Iterable[str]) -> Dict[str, Any]:
    """A stored record as Kernel Tuner's result dict. cutune_status "wrong_result" stays in the dict for the caller."""
    out: Dict[str, Any] = {k: record[k] for k in keys}
    times = [float(t) for t in record.get("times", [])]
    time = record.get("time")
    if isinstance(time, str):
        error = ERROR_CONFIGS.get(time, ERROR_CONFIGS["RuntimeFailedConfig"])
        out["__error__"] = error()
    else:
        out["time"] = sum(times) / len(times) if times else float(time)
        out["times"] = times
    for name in _TIMINGS:
        out[name] = float(record.get(name, 0.0))
    if "cutune_status" in record:
        out["cutune_status"] = record["cutune_status"]
    out["timestamp"] = record.get("timestamp", "")
    for name in _AMORTIZED:
        out[name] = float(record.get(name, 0.0))
    return out


def with_metrics(result: Dict[str, Any], metrics: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """The metrics added before the timestamp, in their order (Kernel Tuner computes them after the timings)."""
    if not metrics or "__error__" in result:
        return result
    tail = {k: result.pop(k) for k in ("timestamp", *_AMORTIZED) if k in result}
    process_metrics(result, metrics)
    result.update(tail)
    return result


def print_results(results: List[Dict[str, Any]], keys: List[str], metrics: Optional[Dict[str, Any]]) -> None:
    """A line per configuration, as Kernel Tuner prints them while tuning."""
    shown = keys + ["time"] + list(metrics or {})
    for r in results:
        line = get_config_string(r, shown)
        print(line + (f", {r['__error__']}" if "__error__" in r else ""))


def plain(value: Any) -> Any:
    """numpy numbers as Python's (what json writes), in tuples and lists too."""
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    return value.item() if hasattr(value, "item") and hasattr(value, "dtype") else value


def environment(device: Dict[str, Any], kernel_name: str, problem_size: Any, iterations: int,
                compiler_options: Any, extra: Dict[str, Any]) -> Dict[str, Any]:
    """Kernel Tuner's environment dict with what cutune knows of the device and its versions."""
    arch = str(device.get("arch", ""))
    env: Dict[str, Any] = {
        "device_name": device.get("name", ""),
        "compute_capability": arch[3:] if arch.startswith("sm_") else arch,
        "sm_count": device.get("sm_count"),
        "iterations": iterations,
        "compiler_options": list(compiler_options or []),
        "kernel_name": kernel_name,
        "problem_size": plain(problem_size),
        "cutune_version": _cutune.__version__,
        "python_version": platform.python_version(),
        "platform": sys.platform,
    }
    env.update(extra)
    return env


def total_timings(results: List[Dict[str, Any]], env: Dict[str, Any], overhead_ms: float) -> Dict[str, Any]:
    """The sums of each result's timings and the rest of the call's time (overhead_time), as Kernel Tuner adds them.
    cutune compiles on every core at once, so the summed compile times can exceed the call's time: overhead_time is
    then 0, not negative."""
    names = ("framework_time", "strategy_time", "compile_time", "verification_time", "benchmark_time")
    totals = {n: sum(float(r.get(n, 0.0)) for r in results) for n in names}
    for n in names:
        env["total_" + n] = totals[n]
    env["overhead_time"] = max(0.0, overhead_ms - sum(totals.values()))
    return env


def phases_line(env: Dict[str, Any]) -> str:
    """Where the tuning's wall time went (cutune's phases, env["cutune_phases"]): what a brute force over kernels that
    take seconds to compile is bound by."""
    p = env.get("cutune_phases") or {}
    wall = float(p.get("wall_s", 0.0))
    if wall <= 0.0:
        return "cutune: nothing was measured"
    parts = [f"{name} {p.get(key, 0.0):.1f} s ({100 * p.get(key, 0.0) / wall:.0f}%)"
             for key, name in (("compile_wait_s", "waiting for compiles"), ("measure_s", "measuring"),
                               ("startup_s", "start-up"))]
    n = int(env.get("cutune_evaluated", 0))
    per = f" ({p.get('compile_cpu_s', 0.0) / n:.2f} s a configuration)" if n else ""
    return (f"cutune: {n} configurations measured in {wall:.1f} s: " + ", ".join(parts) +
            f"; NVRTC {p.get('compile_cpu_s', 0.0):.1f} s summed over the compile threads{per}")
