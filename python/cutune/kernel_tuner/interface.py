"""cutune.kernel_tuner.tune_kernel and run_kernel: Kernel Tuner's two calls with its arguments, options and return
values, over cutune. The call becomes a spec folder as cutune.tune_kernel writes it, cutune tunes it (its results go
to cutune's database, from which a later call resumes), and the measurements come back in Kernel Tuner's form."""

from __future__ import annotations

import os
import time as _time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _cutune
from .._tune import tune
from .._tune_kernel import _answers, _host, _problem_dims, _shape_text, kernel_spec
from ..errors import InputError
from . import _cache, _records, _simulate, _strategy
from .util import get_best_config, get_config_string, get_objective_defaults

# Options Kernel Tuner has that cutune cannot honour, and why.
_NO_COUNTERPART = {
    "texmem_args": "cutune binds no textures",
    "observers": "cutune measures kernel time only (no power, counters or custom observers)",
    "objectives": "cutune tunes one objective at a time",
    "defines": "cutune passes every tunable parameter as a #define and takes other macros from compiler_options (-D)",
    "compiler": "cutune compiles with NVRTC",
}
# Languages whose kernels are CUDA C++: Kernel Tuner's CUDA backends (PyCUDA, CuPy, cuda-python).
_CUDA_LANGS = ("cuda", "cupy", "nvcuda")


def _refuse(options: Dict[str, Any]) -> None:
    for key, value in options.items():
        if key in _NO_COUNTERPART and value not in (None, {}, [], ()):
            raise InputError(f"tune_kernel's '{key}' has no counterpart in cutune: {_NO_COUNTERPART[key]}; leave it out")


def _check_lang(lang: Optional[str]) -> None:
    if lang is not None and str(lang).lower() not in _CUDA_LANGS:
        raise InputError(f"lang '{lang}': cutune tunes CUDA kernels (lang \"CUDA\", \"CuPy\" or \"nvcuda\")")


def _source(kernel_source: Any) -> str:
    """The kernel's code: the text, or the file it names (a path, or a one-element list of one)."""
    if isinstance(kernel_source, (list, tuple)):
        if len(kernel_source) != 1:
            raise InputError("kernel_source: a list of files (host code and kernels) has no counterpart in cutune: "
                             "it tunes one CUDA source, which may #include others")
        kernel_source = kernel_source[0]
    if callable(kernel_source):
        raise InputError("kernel_source: a function generating the code per configuration has no counterpart in "
                         "cutune: it compiles one source with the tunable parameters as #defines")
    if isinstance(kernel_source, Path) or (isinstance(kernel_source, str) and "\n" not in kernel_source and
                                           Path(kernel_source).suffix in (".cu", ".cuh", ".c", ".cpp", ".h")):
        path = Path(kernel_source)
        if not path.is_file():
            raise InputError(f"kernel_source: no file {path}")
        return path.read_text()
    if not isinstance(kernel_source, str):
        raise InputError(f"kernel_source: CUDA code or a file name, not {type(kernel_source).__name__}")
    return kernel_source


def _config_text(result: Dict[str, Any], keys: List[str]) -> str:
    return ",".join(f"{k}={result[k]}" for k in keys)


def _outputs(contents: List[Optional[bytes]], hosts: List[Any]) -> List[Any]:
    """The arguments' contents as numpy arrays shaped and typed as given (None where nothing was read back)."""
    out = []
    for data, host in zip(contents, hosts):
        if data is None or host is None or host.ndim == 0:
            out.append(None)
        else:
            out.append(np.frombuffer(data, dtype=host.dtype).reshape(host.shape).copy())
    return out


def _verify_each(results: List[Dict[str, Any]], keys: List[str], spec: Path, shape: str, device: int,
                 hosts: List[Any], answer: List[Any], verify: Callable[..., Any], atol: float) -> None:
    """Runs each measured configuration once and hands its outputs to `verify` (as Kernel Tuner does before timing
    it); a False answer ends the call with Kernel Tuner's error."""
    wanted = [a is not None for a in answer]
    session = _cutune._RunOnce(str(spec), shape, int(device))
    for r in results:
        if "__error__" in r:
            continue
        start = _time.perf_counter()
        outputs = _outputs(session.run(_config_text(r, keys), wanted), hosts)
        correct = verify(answer, outputs, atol=atol)
        r["verification_time"] = r.get("verification_time", 0.0) + 1000 * (_time.perf_counter() - start)
        if not correct:
            raise RuntimeError("Kernel result verification failed for: " + get_config_string(r, keys))


def _device(device: int) -> Dict[str, Any]:
    from .._launch import Runtime
    return Runtime(None, device=device).device


def tune_kernel(kernel_name: str, kernel_source: Any, problem_size: Any, arguments: Sequence[Any],
                tune_params: Dict[str, Any], grid_div_x: Any = None, grid_div_y: Any = None, grid_div_z: Any = None,
                restrictions: Any = None, answer: Any = None, atol: float = 1e-6, verify: Optional[Callable] = None,
                verbose: bool = False, lang: Optional[str] = None, device: int = 0, platform: int = 0,
                smem_args: Optional[Dict[str, Any]] = None, cmem_args: Optional[Dict[str, Any]] = None,
                texmem_args: Any = None, compiler: Any = None, compiler_options: Optional[Sequence[str]] = None,
                defines: Any = None, log: Any = None, iterations: int = 7,
                block_size_names: Optional[Sequence[str]] = None, quiet: bool = False, strategy: Any = None,
                strategy_options: Optional[Dict[str, Any]] = None, cache: Any = None,
                metrics: Optional[Dict[str, Any]] = None, simulation_mode: bool = False, parallel: Any = None,
                observers: Any = None, objective: Optional[str] = None,
                objective_higher_is_better: Optional[bool] = None, objectives: Any = None, seed: Optional[int] = None,
                *, db: Any = "cutune.db", folder: Any = None) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
    """Kernel Tuner's tune_kernel: returns (results, env), a dict per configuration measured and the environment.
    Results also go to cutune's database `db`, and the spec cutune tunes to `folder` (default cutune-kernels/NAME
    beside `db`). `parallel` needs nothing (cutune compiles in parallel anyway); `platform` and `log` are ignored."""
    started = _time.perf_counter()
    _refuse(dict(texmem_args=texmem_args, observers=observers, objectives=objectives, defines=defines,
                 compiler=compiler))
    _check_lang(lang)
    objective, higher = get_objective_defaults(objective, objective_higher_is_better)
    if metrics is not None and not isinstance(metrics, dict):
        raise ValueError("metrics should be a dictionary to preserve order and support composability")
    keys = [str(k) for k in tune_params]
    dims = _problem_dims(problem_size)
    shape = _shape_text(dims)
    spec_name = kernel_name.split("<")[0]
    where = Path(folder) if folder is not None else Path(os.fspath(db)).resolve().parent / "cutune-kernels" / spec_name
    hosts = [_host(a, f"arguments[{i}]") for i, a in enumerate(arguments)]
    answers = _answers(answer, hosts)
    spec = kernel_spec(kernel_name, _source(kernel_source), problem_size, arguments, tune_params, folder=where,
                       grid_div_x=grid_div_x, grid_div_y=grid_div_y, grid_div_z=grid_div_z,
                       restrictions=restrictions, answer=answers, atol=atol, block_size_names=block_size_names,
                       cmem_args=cmem_args, smem_args=smem_args, compiler_options=compiler_options, name=spec_name,
                       compare=verify is None)
    from .._tune import space
    size = len(space(spec=spec, shape=shape))
    chosen, budget, time_limit = _strategy.choose(strategy, strategy_options, size)
    if verbose:
        print(f"Searchspace has {size} configurations after restrictions.")
    cache_file = _cache.cache_path(cache) if cache else None
    if simulation_mode:
        if cache_file is None or not os.path.isfile(cache_file):
            raise ValueError(f"Simulation mode requires an existing cachefile: file {cache_file} does not exist")
        results, env = _simulate.replay(cache_file, spec, shape, kernel_name, problem_size, keys, strategy,
                                        budget, seed)
    else:
        results, env = _tune(spec, shape, tune_params, device, db, chosen, budget, time_limit, iterations, quiet,
                             seed, cache_file, kernel_name, problem_size, compiler_options)
        if verify is not None and any(a is not None for a in answers):
            _verify_each(results, keys, spec, shape, device, hosts, answers, verify, atol)
        _stop_at_wrong(results, keys)
    results = [_records.with_metrics(r, metrics) for r in results]
    if cache_file is not None and not simulation_mode:
        _write_cache(cache_file, env, kernel_name, problem_size, tune_params, objective, results, keys)
    if not quiet:
        _records.print_results(results, keys, metrics)
    if verbose and not simulation_mode:
        print(_records.phases_line(env))
    env.update(strategy=strategy or "brute_force", cutune_strategy=chosen, objective=objective, spec=str(spec),
               db=os.fspath(db))
    if results:
        env["best_config"] = get_best_config(results, objective, higher)
        if not quiet:
            print(f"\nBEST PERFORMING CONFIGURATION FOR OBJECTIVE {objective}:")
            print(get_config_string(env["best_config"], keys + [objective] + list(metrics or {})))
    elif not quiet:
        print("no results to report")
    return results, _records.total_timings(results, env, 1000 * (_time.perf_counter() - started))


def _tune(spec: Path, shape: str, tune_params: Dict[str, Any], device: int, db: Any, chosen: str, budget: int,
          time_limit: float, iterations: int, quiet: bool, seed: Optional[int], cache_file: Optional[str],
          kernel_name: str, problem_size: Any, compiler_options: Any) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
    """Tunes the spec (exactly `iterations` timed runs per configuration, as Kernel Tuner times, re-timed finalists
    included) and reads every
    measurement of its version at the shape back from the database, in the order of tune_params' enumeration;
    configurations in the cache keep its records."""
    keys = [str(k) for k in tune_params]
    info = _device(device)
    existing = None
    if cache_file is not None and os.path.isfile(cache_file):
        existing = _cache.read_cache(cache_file)
        _cache.check_cache(existing, cache_file, info.get("name"), kernel_name, problem_size, keys)
    n = max(1, int(iterations))
    run = tune(spec=spec, shapes=shape, db=db, budget=budget, strategy=chosen, devices=device, seed=seed or 1,
               time_budget=time_limit, progress=not quiet, repeats=n, min_repeats=n, max_measure_ms=0,
               early_stop_ratio=0, final_repeats=n)
    shape_result = run[0]
    version = _cutune._spec_version(str(spec))
    records = _records.stored_records(os.fspath(db), version, shape_result.shape, info.get("name", ""),
                                      shape_result.flush)
    results = sorted((_records.result_of(r, keys) for r in records), key=lambda r: _position(r, tune_params))
    if existing is not None:
        cached = existing["cache"]
        results = [_from_cache(cached[k]) if k in cached else r
                   for r, k in ((r, _cache.config_key(r, keys)) for r in results)]
    env = _records.environment(info, kernel_name, problem_size, iterations, compiler_options,
                               {"cutune_evaluated": shape_result.evaluated, "cutune_resumed": shape_result.resumed,
                                "flush": shape_result.flush, "cutune_phases": dict(shape_result.phases)})
    return results, env


def _position(result: Dict[str, Any], tune_params: Dict[str, Any]) -> Tuple[int, ...]:
    """Where a configuration comes in the enumeration of tune_params (Kernel Tuner's brute-force order)."""
    out = []
    for k, values in tune_params.items():
        values = list(values)
        out.append(values.index(result[k]) if result[k] in values else len(values))
    return tuple(out)


def _from_cache(record: Dict[str, Any]) -> Dict[str, Any]:
    out = dict(record)
    for name in ("compile_time", "verification_time", "benchmark_time"):
        out[name] = 0  # as Kernel Tuner: a configuration taken from the cache costs no benchmarking now
    return out


def _stop_at_wrong(results: List[Dict[str, Any]], keys: List[str]) -> None:
    """Kernel Tuner stops at a wrong result with this error; cutune measured the rest and stored everything."""
    for r in results:
        if r.pop("cutune_status", None) == "wrong_result":
            raise RuntimeError("Kernel result verification failed for: " + get_config_string(r, keys))


def _write_cache(path: str, env: Dict[str, Any], kernel_name: str, problem_size: Any, tune_params: Dict[str, Any],
                 objective: str, results: List[Dict[str, Any]], keys: List[str]) -> None:
    existing = _cache.read_cache(path) if os.path.isfile(path) else None
    header = {"device_name": env.get("device_name", ""), "kernel_name": kernel_name,
              "problem_size": _records.plain(problem_size),
              "tune_params_keys": keys, "tune_params": {k: list(v) for k, v in tune_params.items()},
              "objective": objective, "cache": {}}
    _cache.write_cache(path, header, {_cache.config_key(r, keys): r for r in results}, existing)


def run_kernel(kernel_name: str, kernel_source: Any, problem_size: Any, arguments: Sequence[Any],
               params: Dict[str, Any], grid_div_x: Any = None, grid_div_y: Any = None, grid_div_z: Any = None,
               lang: Optional[str] = None, device: int = 0, platform: int = 0,
               smem_args: Optional[Dict[str, Any]] = None, cmem_args: Optional[Dict[str, Any]] = None,
               texmem_args: Any = None, compiler: Any = None, compiler_options: Optional[Sequence[str]] = None,
               defines: Any = None, block_size_names: Optional[Sequence[str]] = None, quiet: bool = False,
               log: Any = None, *, folder: Any = None) -> List[Any]:
    """Kernel Tuner's run_kernel: compiles the kernel at the configuration `params` (a value per tunable parameter),
    runs it once on copies of `arguments` and returns them as the launch left them (numpy arrays; scalars as given).
    The spec goes to `folder` (default: a temporary folder)."""
    import tempfile
    _refuse(dict(texmem_args=texmem_args, defines=defines, compiler=compiler))
    _check_lang(lang)
    hosts = [_host(a, f"arguments[{i}]") for i, a in enumerate(arguments)]
    tune_params = {k: [v] for k, v in params.items()}
    shape = _shape_text(_problem_dims(problem_size))
    name = kernel_name.split("<")[0]
    with tempfile.TemporaryDirectory(prefix="cutune-run-kernel-") as tmp:
        spec = kernel_spec(kernel_name, _source(kernel_source), problem_size, arguments, tune_params,
                           folder=folder or tmp, grid_div_x=grid_div_x, grid_div_y=grid_div_y, grid_div_z=grid_div_z,
                           block_size_names=block_size_names, cmem_args=cmem_args, smem_args=smem_args,
                           compiler_options=compiler_options, name=name)
        session = _cutune._RunOnce(str(spec), shape, int(device))
        contents = session.run(_config_text(params, list(params)), [])
    out = _outputs(contents, hosts)
    return [arguments[i] if o is None else _like(arguments[i], o) for i, o in enumerate(out)]


def _like(argument: Any, array: Any) -> Any:
    """A PyTorch tensor's contents come back as a CPU tensor (as Kernel Tuner returns arg.cpu()); others as numpy."""
    if hasattr(argument, "detach") and hasattr(argument, "cpu"):
        import torch
        return torch.from_numpy(array)
    return array
