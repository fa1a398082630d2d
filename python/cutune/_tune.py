"""cutune.tune, cutune.space, cutune.best and cutune.kernels: the `tune` command's work, called from Python."""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _cutune
from ._progress import progress_bar
from ._results import Best, ShapeResult, Space, TuneResult

PathLike = Union[str, "os.PathLike[str]"]
ShapeLike = Union[str, int, Sequence[int]]
Shapes = Union[str, Sequence[int], Sequence[ShapeLike]]


def _shape_text(shape: ShapeLike) -> str:
    if isinstance(shape, str):
        return shape
    if isinstance(shape, int):
        return str(shape)  # a 1-D shape
    return "x".join(str(int(d)) for d in shape)


def _shapes_text(shapes: Optional[Shapes]) -> str:
    """"8192x8192", (8192, 8192), ["8192x8192", (4000, 3000)] -> "8192x8192,4000x3000"."""
    if shapes is None:
        return ""
    if isinstance(shapes, (str, int)):
        return _shape_text(shapes)
    items = list(shapes)
    if items and all(isinstance(d, int) for d in items):
        return _shape_text(items)  # one shape as a tuple of dimensions
    return ",".join(_shape_text(s) for s in items)


def _path_text(path: Optional[PathLike]) -> str:
    return os.fspath(path) if path is not None else ""


def _kernel_args(kernel: Optional[PathLike], spec: Optional[PathLike], problem: Optional[PathLike]) -> Tuple[str, str, str]:
    return (_path_text(kernel), _path_text(spec), _path_text(problem))


def _text_list(items: Union[str, Sequence[str]]) -> List[str]:
    """One text or several, as a list."""
    return [items] if isinstance(items, str) else list(items)


def _devices_text(devices: Union[None, int, str, Iterable[int]]) -> str:
    if devices is None:
        return ""
    if isinstance(devices, str):
        return devices
    if isinstance(devices, int):
        return str(devices)
    return ",".join(str(int(d)) for d in devices)


def tune(kernel: Optional[PathLike] = None, shapes: Optional[Shapes] = None, *, budget: int = 0,
         db: PathLike = "cutune.db", strategy: Optional[str] = None, where: Union[str, Sequence[str]] = (),
         devices: Union[None, int, str, Iterable[int]] = None, seed: int = 1, start: Union[str, Sequence[str]] = (),
         follow: Union[str, Sequence[str]] = (),
         time_budget: float = 0.0, jobs: int = 0, verify: Optional[str] = None, atol: Optional[float] = None,
         rtol: Optional[float] = None, flush: Optional[str] = None, cache: bool = True,
         cache_dir: Optional[PathLike] = None, isolate: bool = True, prior: bool = True,
         spec: Optional[PathLike] = None, problem: Optional[PathLike] = None,
         progress: Union[bool, Callable[..., Any]] = True, **measure: float) -> TuneResult:
    """Tunes `kernel` (a built-in name, or a spec file .json) at each of `shapes` and stores every result in `db`.

    As `tune --kernel K --shapes S ...`: configurations already stored are skipped (resume), results are committed as
    they come, so an interrupted call (Ctrl-C) loses nothing and calling again goes on. `budget` is the most
    configurations per shape (0: the whole space), `time_budget` seconds per shape. `devices` is a GPU ordinal, a
    list of them or "all" (GPUs of one model); default GPU 0. `strategy` defaults to cutune's default (see
    `tune --help`). `where` adds constraints ("SPLITK == 1"), `start` configurations to evaluate first.
    `prior=False` does not learn from other GPUs' results in `db` (`--no-prior`). `follow` names parameters that
    change what is computed (`--follow`): each configuration is verified against the reference configuration at its
    own values of them.
    `verify` is "reference", "default" or "none"; `atol`/`rtol` replace the spec's tolerances; `flush` the L2
    convention ("read", "write", "none"). `problem` tunes a T1 problem file instead of `kernel` (`shapes` then
    defaults to its problem size). `progress`: True for a progress bar (tqdm's when installed), False for none, or a
    callable(shape, done, total, resumed, elapsed_s, best_ms).
    The run's other numbers and how each configuration is timed (`tune --repeats` and its neighbours), as keywords:
    """
    _require_option_keywords(measure)
    kernel_text, spec_text, problem_text = _kernel_args(kernel, spec, problem)
    shapes_text = _shapes_text(shapes)
    _require_target(kernel_text, spec_text, problem_text, shapes_text)
    name = kernel_text or spec_text or problem_text
    request = _cutune.TuneRequest()
    request.kernel, request.spec, request.problem, request.shapes = kernel_text, spec_text, problem_text, shapes_text
    request.where, request.db, request.devices = _text_list(where), os.fspath(db), _devices_text(devices)
    request.follow = _text_list(follow)
    request.verify, request.flush = verify or "", flush or ""
    options = _cutune.TuneOptions()
    options.strategy, options.seed, options.start = strategy or _default_strategy(), seed, _text_list(start)
    options.prior, options.time_budget_s, options.compile_threads = prior, float(time_budget), jobs
    options.use_cache, options.cache_dir, options.isolate = cache, _path_text(cache_dir), isolate
    options.command = _command(name, shapes_text, budget)
    if atol is not None:
        options.atol = atol
    if rtol is not None:
        options.rtol = rtol
    for keyword, value in {"budget": budget, **measure}.items():
        options.set(keyword, value)
    request.options = options
    bar, callback = _progress_hooks(progress, name)
    try:
        reports = _cutune.tune(request, callback)
    finally:
        if bar is not None:
            bar.close()
    shapes_out = [ShapeResult._of(r) for r in reports]
    _say_verify_stops(name, shapes_out)
    return TuneResult(name, os.fspath(db), shapes_out)


def _options_doc() -> str:
    """One line per keyword of kTuneOptionFields (tuner.hpp) and kMeasureOptionFields (measure.hpp): name, default,
    what it does; those that tune() names itself (budget) are described above."""
    named = inspect.signature(tune).parameters
    return "".join(f"\n    `{o['name']}` (default {o['default']}): {o['help']}." for o in _cutune.option_fields()
                   if o["name"] not in named)


if tune.__doc__ is not None:
    tune.__doc__ = tune.__doc__.rstrip() + _options_doc() + "\n    "


def _require_option_keywords(measure: Dict[str, float]) -> None:
    known = {o["name"] for o in _cutune.option_fields()}
    for name in measure:
        if name not in known:
            raise TypeError(f"tune() got an unexpected keyword argument '{name}'")


def _require_target(kernel_text: str, spec_text: str, problem_text: str, shapes_text: str) -> None:
    if not problem_text and (not (kernel_text or spec_text) or not shapes_text):
        from .errors import InputError
        raise InputError("tuning needs a kernel (or spec) and shapes, or a problem file "
                         "(e.g. cutune.tune(\"transpose\", \"8192x8192\"))")


def _progress_hooks(progress: Union[bool, Callable[..., Any]], name: str) -> Tuple[Any, Optional[Callable[..., Any]]]:
    """The progress bar to close afterwards (or None), and what the tuner calls after each configuration."""
    bar = progress_bar(name) if progress is True else None
    callback = bar if bar is not None else (progress if callable(progress) else None)
    return bar, callback


def _command(name: str, shapes_text: str, budget: int) -> str:
    """The call as the run's provenance."""
    return "python: cutune.tune(" + ", ".join(repr(a) for a in (name, shapes_text)) + \
           (f", budget={budget}" if budget else "") + ")"


def _say_verify_stops(name: str, shapes: List[ShapeResult]) -> None:
    for s in shapes:
        if s.verify_stop:
            print(f"cutune: {name} {s.shape}: {s.verify_stop}", file=sys.stderr)


def _default_strategy() -> str:
    return _cutune.default_strategy()


def space(kernel: Optional[PathLike] = None, shape: Optional[ShapeLike] = None, *, where: Union[str, Sequence[str]] = (),
          arch: str = "sm_90", shard: Optional[str] = None, spec: Optional[PathLike] = None,
          problem: Optional[PathLike] = None) -> Space:
    """The valid configurations of `kernel`, at `shape` when given (constraints and grid limits that depend on it),
    for GPUs of `arch` (targets and clusters), as `tune space` counts them. No GPU needed. `str()` of the result is
    the line `tune space` prints; it is a sequence of configurations ({"BM": 128, ...})."""
    kernel_text, spec_text, problem_text = _kernel_args(kernel, spec, problem)
    return Space(_cutune.space(kernel=kernel_text, spec=spec_text, problem=problem_text,
                               shape=_shape_text(shape) if shape is not None else "", where=_text_list(where),
                               shard=shard or "", arch=arch))


def best(kernel: PathLike, shape: ShapeLike, *, db: PathLike = "cutune.db", gpu: Optional[str] = None,
         exact: bool = False, flush: Optional[str] = None) -> Best:
    """The stored best configuration of `kernel` at `shape` in `db`, as `tune best` finds it: this machine's GPU (or
    `gpu` by name, or the only GPU stored); unless `exact`, for an untuned shape the measured configuration predicted
    fastest there, else a GPU of the same architecture. Raises cutune.InputError when there is none."""
    return Best._of(_cutune.best(kernel=os.fspath(kernel), shape=_shape_text(shape), db=os.fspath(db), gpu=gpu or "",
                                 exact=exact, flush=flush or ""))


def kernels() -> List[Dict[str, Any]]:
    """The built-in kernels: name, description, shape dimension names and parameter names."""
    return list(_cutune.kernels())
