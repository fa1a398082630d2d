"""cutune.kernel_tuner.file_utils: Kernel Tuner's writers of the T4 results and metadata files, filled from
tune_kernel's results and from what this machine says of itself."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

from .. import _cutune
from .util import CompilationFailedConfig, InvalidConfig, NpEncoder, RuntimeFailedConfig

_TIMINGS = ("compile_time", "benchmark_time", "framework_time", "strategy_time", "verification_time")
_SCHEMA_VERSION = "1.0.0"


def filename_ensure_json_extension(filename: str) -> str:
    filename = os.fspath(filename)
    return filename if filename.endswith(".json") else filename + ".json"


def _validity(result: Dict[str, Any]) -> str:
    error = result.get("__error__")
    if error is None:
        return "correct"
    for kind, name in ((CompilationFailedConfig, "compile"), (RuntimeFailedConfig, "runtime"),
                       (InvalidConfig, "constraints")):
        if isinstance(error, kind) or str(error) == kind.__name__:
            return name
    raise ValueError(f"Unkown error type {type(error)}, value {error}")


def get_t4_results(results: List[Dict[str, Any]], tune_params: Dict[str, Any], objective: str = "time") -> Dict[str, Any]:
    """tune_kernel's results in the T4 results format: per configuration its parameters, timings, validity and every
    other figure as a measurement."""
    if isinstance(objective, (list, tuple)):
        raise ValueError("The T4 format does not support multiple objectives.")
    skip = set(tune_params) | set(_TIMINGS) | {"timestamp", "times", "__error__"}
    out = []
    for r in results:
        item: Dict[str, Any] = {}
        if "timestamp" in r:
            item["timestamp"] = r["timestamp"]
        item["configuration"] = {k: v for k, v in r.items() if k in tune_params}
        item["times"] = {"compilation": r.get("compile_time", 0), "benchmark": r.get("benchmark_time", 0),
                         "framework": r.get("framework_time", 0), "search_algorithm": r.get("strategy_time", 0),
                         "validation": r.get("verification_time", 0), "runtimes": r.get("times", [])}
        item["invalidity"] = _validity(r)
        item["correctness"] = 1  # a wrong result ends tune_kernel: every result returned passed its check
        item["measurements"] = [{"name": k, "value": v, "unit": "ms" if k.startswith("time") else ""}
                                for k, v in r.items() if k not in skip]
        item["objectives"] = [objective]
        out.append(item)
    return {"results": out, "schema_version": _SCHEMA_VERSION, "metadata": {"timeunit": "milliseconds"}}


def _write(filename: str, document: Dict[str, Any]) -> None:
    path = Path(filename_ensure_json_extension(filename))
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        json.dump(document, f, cls=NpEncoder)  # an ErrorConfig is text: its name


def store_output_file(output_filename: str, results: List[Dict[str, Any]], tune_params: Dict[str, Any],
                      objective: str = "time") -> None:
    """Writes tune_kernel's results as a T4 results file (".json" appended when missing)."""
    _write(output_filename, get_t4_results(results, tune_params, objective))


def _nvidia_smi() -> Dict[str, Any]:
    """The GPUs as nvidia-smi lists them, or nothing where it is missing."""
    fields = ["name", "uuid", "driver_version", "pci.bus_id", "memory.total", "clocks.max.sm", "clocks.max.mem",
              "power.limit", "compute_cap"]
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return {}
    if out.returncode != 0:
        return {}
    gpus = [dict(zip(fields, (v.strip() for v in line.split(",")))) for line in out.stdout.splitlines() if line]
    return {"gpu": gpus}


def _requirements() -> List[str]:
    found = [f"cutune=={_cutune.__version__}"]
    for name in ("numpy",):
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "__version__"):
            found.append(f"{name}=={module.__version__}")
    return found


def get_t4_metadata() -> Dict[str, Any]:
    """This machine in the T4 metadata format: operating system, hardware, the GPUs (nvidia-smi) and the versions of
    the packages the results came from."""
    names = {"linux": "Linux", "win32": "Windows", "darwin": "Mac"}
    uname = platform.uname()
    hardware = [{"system": uname.system, "node": uname.node, "release": uname.release, "machine": uname.machine,
                 "processor": uname.processor or platform.processor(), "cpu_count": os.cpu_count()}]
    device_query: Dict[str, Any] = {}
    smi = _nvidia_smi()
    if smi:
        device_query["nvidia-smi"] = smi
    metadata = {"operating_system": names.get(sys.platform, "unidentified OS"),
                "hardware": {"hardware_description": hardware},
                "environment": {"device_query": device_query, "requirements": _requirements()}}
    return {"metadata": metadata, "schema_version": _SCHEMA_VERSION}


def store_metadata_file(metadata_filename: str) -> None:
    """Writes this machine's T4 metadata file (".json" appended when missing)."""
    _write(metadata_filename, get_t4_metadata())
