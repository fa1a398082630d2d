"""Fixtures of the Python package's tests: a database file made without a GPU, and the packaged `tune` program."""

import json
import os
import subprocess
from pathlib import Path

import pytest

import cutune

H200 = {"name": "NVIDIA H200", "cc_major": 9, "cc_minor": 0, "sm_count": 132, "uuid": "GPU-test", "driver_version": 13000,
        "nvrtc_version": 13000, "memory_clock_khz": 3201000, "memory_bus_bits": 6144, "total_memory": 150000000000}


def measurement(shape, config, median_ms, status="ok"):
    return {"shape": shape, "config": config, "status": status, "message": "", "samples_ms": [median_ms] * 3,
            "median_ms": median_ms, "min_ms": median_ms, "max_ms": median_ms, "spread": 0.0, "metric": 1000.0 / median_ms,
            "max_error": 0.0, "registers": 16, "compile_ms": 100.0, "measured_at": "2026-11-26T00:00:00Z"}


def kernel_version(name):
    return next(k["version"] for k in cutune.kernels() if k["name"] == name)


@pytest.fixture
def export_file(tmp_path):
    """A cutune export (json) of two transpose shapes measured on an H200: what `tune db export` writes."""
    run = {"uid": "run-test-1", "started_at": "2026-11-26T00:00:00Z", "host": "test", "cutune_version": "0.1.0",
           "command": "tune --kernel transpose", "flush": "read",
           "kernel": {"name": "transpose", "hash": kernel_version("transpose")}, "device": H200,
           "measurements": [measurement("8192x8192", "TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0", 0.25),
                            measurement("8192x8192", "TILE=16,VEC=1,ROWS=2,SMEM=1,PAD=1,COALESCE=0", 0.40),
                            measurement("1024x1024", "TILE=64,VEC=1,ROWS=1,SMEM=0,PAD=0,COALESCE=1", 0.01)]}
    path = tmp_path / "runs.json"
    path.write_text(json.dumps({"format": "cutune-runs", "format_version": 1, "runs": [run]}))
    return path


@pytest.fixture
def tune_program():
    """The `tune` program shipped in the package, for comparing messages with the command's."""
    program = Path(cutune.__file__).parent / "bin" / "tune"
    assert program.is_file(), program
    def run(*args, cwd=None):
        return subprocess.run([str(program), *map(str, args)], capture_output=True, text=True, cwd=cwd)
    return run


def has_gpu():
    return os.path.exists("/dev/nvidia0") or os.path.exists("/dev/nvidiactl")
