"""cutune.tune_kernel and cutune.kernel_spec: a kernel of your own, tuned from Python on your own arrays, as Kernel
Tuner's tune_kernel call reads. The call becomes a spec folder (the source, the spec, the arrays as raw files) that
`tune --spec` and cutune.Runtime(...).kernel(spec, shape) read like any other; nothing is kept only in memory."""

from __future__ import annotations

import itertools
import json
import math
import os
import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from ._restriction_text import restriction_text
from ._results import TuneResult
from .errors import InputError

PathLike = Union[str, "os.PathLike[str]"]

_SHAPE_NAMES = ("problem_size_x", "problem_size_y", "problem_size_z")
_BLOCK_NAMES = ("block_size_x", "block_size_y", "block_size_z")
# numpy dtype name -> the spec's element type (docs/spec.md)
_TYPES = {"float32": "float", "float64": "double", "float16": "__half", "int8": "int8", "uint8": "uint8",
          "int16": "int16", "uint16": "uint16", "int32": "int", "uint32": "unsigned", "int64": "int64",
          "uint64": "uint64", "bool": "bool"}
# Kernel Tuner's default comparison is numpy.allclose(expected, result, atol=atol): its rtol is numpy's default.
_RTOL = 1e-5


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - numpy comes with the test dependencies
        raise InputError("cutune.tune_kernel needs numpy for its arguments (pip install numpy)") from e
    return numpy


def _host(value: Any, what: str) -> Any:
    """A numpy array or scalar of `value` (numpy, PyTorch on any device, CuPy), or None for anything else."""
    np = _numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        return value
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a PyTorch tensor
        try:
            return value.detach().cpu().numpy()
        except TypeError as e:
            raise InputError(f"{what}: a tensor of {value.dtype} has no numpy type: {e}") from e
    if hasattr(value, "get") and hasattr(value, "__cuda_array_interface__"):  # a CuPy array
        return value.get()
    return None


def _element_type(array: Any, what: str) -> str:
    name = array.dtype.name
    if name not in _TYPES:
        raise InputError(f"{what}: arrays of {name} are not supported (use one of {', '.join(_TYPES)})")
    return _TYPES[name]


def _problem_dims(problem_size: Any) -> List[Union[int, str]]:
    """One to three sizes: positive integers, or expressions of the tunable parameters as text ("num_blocks"), whose
    value is that dimension's size at each configuration (Kernel Tuner's problem_size as a string)."""
    dims = [problem_size] if not isinstance(problem_size, (list, tuple)) else list(problem_size)
    if not 1 <= len(dims) <= 3:
        raise InputError(f"problem_size: one to three sizes, not {problem_size!r}")
    out: List[Union[int, str]] = []
    for d in dims:
        if isinstance(d, str) and d.strip():
            out.append(d)
        elif isinstance(d, bool) or not isinstance(d, (int, _numpy().integer)) or d < 1:
            raise InputError(f"problem_size: positive integers or expressions of the tunable parameters as text "
                             f"(a function of the parameters is not supported), not {problem_size!r}")
        else:
            out.append(int(d))
    return out


def _shape_text(dims: List[Union[int, str]]) -> str:
    """The spec's shape: each integer size; 1 for a size that is an expression (the grid reads the expression)."""
    return "x".join(str(d) if isinstance(d, int) else "1" for d in dims)


def _product(factors: Sequence[Any], what: str) -> str:
    for f in factors:
        if callable(f) or not isinstance(f, (str, int)):
            raise InputError(f"{what}: parameter names, expressions or integers, not {f!r}")
    return " * ".join(f"({f})" for f in factors)


def _geometry(dims: List[Union[int, str]], params: Dict[str, Any], block_names: Sequence[str],
              grid_divs: Sequence[Optional[Sequence[Any]]]) -> Dict[str, Any]:
    """Kernel Tuner's launch rules: the block from the block-size parameters (x 256 and y, z 1 where not tuned); the
    grid as ceil(problem size / product of grid_div), grid_div defaulting to the dimension's block-size parameter."""
    block: List[Any] = []
    grid: List[Any] = []
    for d in range(3):
        tuned = d < len(block_names) and block_names[d] in params
        block.append(block_names[d] if tuned else (256 if d == 0 else 1))
        if d >= len(dims):
            grid.append(1)
            continue
        div = grid_divs[d]
        if div is None:
            div = [block_names[d]] if tuned else []
        elif isinstance(div, (str, int)):
            div = [div]
        what = "grid_div_" + "xyz"[d]
        size = _SHAPE_NAMES[d] if isinstance(dims[d], int) else f"({dims[d]})"
        grid.append(f"ceil_div({size}, {_product(div, what)})" if div else size)
    return {"block": block, "grid": grid}


def _option_macros(compiler_options: Optional[Sequence[str]]) -> List[str]:
    """The names that the compiler options define themselves (-DNAME, -D NAME, --define-macro=NAME...)."""
    names = []
    options = list(compiler_options or [])
    for i, option in enumerate(options):
        text = str(option)
        if text in ("-D", "--define-macro") and i + 1 < len(options):
            text = "-D" + str(options[i + 1])
        match = re.match(r"(?:-D|--define-macro=)\s*([A-Za-z_]\w*)", text)
        if match:
            names.append(match.group(1))
    return names


def _kernel_tuner_defines(dims: List[Union[int, str]], params: Dict[str, Any], block_names: Sequence[str],
                          geometry: Dict[str, Any], compiler_options: Optional[Sequence[str]]) -> Dict[str, Any]:
    """What Kernel Tuner defines for every compile besides the parameters: kernel_tuner=1, the launch's block under
    the block-size names (256 and 1 where not tuned) and its grid, in blocks, as grid_size_x/y/z. Sources written for
    Kernel Tuner rely on them (stand-alone values under #ifndef kernel_tuner, the block size of an untuned dimension in
    the code). The grid is written with the problem size's numbers, so that no binary is specialized to the shape;
    a name that is a parameter or that the compiler options define keeps that value."""
    defines: Dict[str, Any] = {}
    for d in range(3):
        defines[block_names[d] if d < len(block_names) else _BLOCK_NAMES[d]] = geometry["block"][d]
        grid = geometry["grid"][d]
        for i, size in enumerate(dims):
            if isinstance(grid, str) and isinstance(size, int):
                grid = re.sub(rf"\b{_SHAPE_NAMES[i]}\b", str(size), grid)
        defines["grid_size_" + "xyz"[d]] = int(grid) if isinstance(grid, str) and grid.isdigit() else grid
    defines["kernel_tuner"] = 1
    taken = set(params) | set(_option_macros(compiler_options))
    return {k: v for k, v in defines.items() if k not in taken}


def _parameters(tune_params: Dict[str, Any]) -> Dict[str, List[Any]]:
    if not isinstance(tune_params, dict) or not tune_params:
        raise InputError("tune_params: a dict of parameter name -> list of values")
    out: Dict[str, List[Any]] = {}
    for name, values in tune_params.items():
        values = list(values) if not isinstance(values, (str, bytes)) else [values]
        if not values or any(isinstance(v, (str, bytes)) or not isinstance(v, (int, float)) for v in values):
            raise InputError(f"tune_params['{name}']: a list of numbers, not {values!r}")
        out[str(name)] = [v if isinstance(v, float) else int(v) for v in values]
    return out


def _restrictions(restrictions: Any, parameters: List[str]) -> List[str]:
    """Each restriction as the text of its expression: text as given; a one-expression Python function (of the
    configuration's dict, or of parameters by name) read back from its source."""
    if restrictions is None:
        return []
    items = [restrictions] if isinstance(restrictions, str) or callable(restrictions) else list(restrictions)
    out = []
    for r in items:
        text = r if isinstance(r, str) else restriction_text(r, parameters) if callable(r) else None
        if text is None:
            raise InputError(f"restrictions: expressions as text (\"block_size_x*tile <= 1024\") or one-expression "
                             f"functions (lambda p: p[\"block_size_x\"] * p[\"tile\"] <= 1024); this Python function "
                             f"cannot be read into a spec: {r!r}")
        out.append(text)
    return out


def _first_valid(params: Dict[str, List[Any]], constraints: List[str]) -> Dict[str, Any]:
    """The first configuration, in the order of the values given, that meets every restriction: the spec's
    reference configuration (what the outputs' initial state is checked from when there is no answer: nothing)."""
    names = dict(ceil_div=lambda a, b: -(-a // b), min=min, max=max, abs=abs, int=int, float=float,
                 ceil=math.ceil, floor=math.floor)
    code = [compile(c, "restriction", "eval") for c in constraints]
    for values in itertools.product(*params.values()):
        config = dict(zip(params, values))
        try:
            if all(eval(c, {"__builtins__": {}}, {**names, **config}) for c in code):  # noqa: S307 - the caller's own
                return config
        except (NameError, ZeroDivisionError, TypeError) as e:
            raise InputError(f"restrictions: {e}") from e
    raise InputError("restrictions: no configuration of tune_params meets them all")


class _Folder:
    """Where the spec, the source and the arrays' files go."""

    def __init__(self, folder: Path):
        self.path = folder
        folder.mkdir(parents=True, exist_ok=True)

    def raw(self, name: str, array: Any) -> Dict[str, str]:
        data = _numpy().ascontiguousarray(array)
        path = self.path / name
        if not _holds(path, data):  # a script that tunes again on the same arrays does not write them again
            data.tofile(path)
        return {"file": name}


# Bytes compared at a time when a file may already hold an array's contents.
_CHUNK = 64 << 20


def _holds(path: Path, data: Any) -> bool:
    """Whether the file holds exactly the array's bytes (read back in chunks: cheaper than writing gigabytes)."""
    np = _numpy()
    try:
        if path.stat().st_size != data.nbytes:
            return False
        flat = data.reshape(-1).view(np.uint8)
        with open(path, "rb") as f:
            for start in range(0, data.nbytes, _CHUNK):
                if not np.array_equal(np.fromfile(f, dtype=np.uint8, count=min(_CHUNK, data.nbytes - start)),
                                      flat[start:start + _CHUNK]):
                    return False
        return True
    except OSError:
        return False


def _answers(answer: Any, arrays: List[Any]) -> List[Any]:
    """answer as given (a list like the arguments), or computed by a function of copies of the arguments."""
    if answer is None:
        return [None] * len(arrays)
    if callable(answer):
        answer = answer(*[a.copy() if a is not None else None for a in arrays])
    answer = list(answer)
    if len(answer) != len(arrays):
        raise InputError(f"answer: {len(answer)} entries for {len(arrays)} arguments (None where nothing is checked)")
    return answer


def _argument(i: int, value: Any, expected: Any, folder: _Folder, compare: bool = True) -> Dict[str, Any]:
    what = f"arguments[{i}]"
    host = _host(value, what)
    if host is None:
        raise InputError(f"{what}: a numpy array or scalar (numpy.int32(n)), a PyTorch tensor or a CuPy array, not "
                         f"{type(value).__name__} (Python numbers carry no C type)")
    name = f"arg{i}"
    element = _element_type(host, what)
    if host.ndim == 0:
        if expected is not None:
            raise InputError(f"answer[{i}]: a scalar argument is no output")
        v = host.item()
        return {"name": name, "type": element, "value": int(v) if isinstance(v, bool) else v}
    arg: Dict[str, Any] = {"name": name, "type": element + "*", "size": int(host.size),
                           "fill": folder.raw(f"{name}.bin", host)}
    if expected is not None:
        arg["output"] = True
        if compare:  # else the caller's function compares, with whatever the answer holds
            exp = _host(expected, f"answer[{i}]")
            if exp is None or exp.size != host.size:
                raise InputError(f"answer[{i}]: an array of {host.size} elements, like arguments[{i}]")
            arg["expected"] = folder.raw(f"{name}.expected.bin", exp.astype(host.dtype))
    return arg


def _constant(symbol: str, value: Any, folder: _Folder) -> Dict[str, Any]:
    host = _host(value, f"cmem_args['{symbol}']")
    if host is None or host.ndim == 0:
        raise InputError(f"cmem_args['{symbol}']: an array")
    return {"name": symbol, "type": _element_type(host, f"cmem_args['{symbol}']"), "size": int(host.size),
            "memory": "constant", "symbol": symbol, "fill": folder.raw(f"{symbol}.constant.bin", host)}


def kernel_spec(kernel_name: str, kernel_source: Union[str, PathLike], problem_size: Any, arguments: Sequence[Any],
                tune_params: Dict[str, Any], *, folder: PathLike, grid_div_x: Any = None, grid_div_y: Any = None,
                grid_div_z: Any = None, restrictions: Any = None, answer: Any = None, atol: float = 1e-6,
                block_size_names: Optional[Sequence[str]] = None, cmem_args: Optional[Dict[str, Any]] = None,
                smem_args: Optional[Dict[str, Any]] = None, compiler_options: Optional[Sequence[str]] = None,
                name: Optional[str] = None, compare: bool = True) -> Path:
    """Writes the spec of a tune_kernel call into `folder` (the spec NAME.json, the source NAME.cu, each array as raw
    elements) and returns the spec's path; `tune --spec` and cutune.Runtime(...).kernel(path, shape) read it.
    Arguments as tune_kernel's. `compare=False` marks the arguments that `answer` names as outputs without comparing
    them (the caller checks them itself, as a Kernel Tuner verify function does)."""
    np = _numpy()
    name = name or kernel_name.split("<")[0]
    out = _Folder(Path(folder))
    source = str(kernel_source)
    if source.endswith((".cu", ".cuh")) and "\n" not in source and Path(source).is_file():
        source = Path(source).read_text()  # as Kernel Tuner, a file name in place of the source
    (out.path / f"{name}.cu").write_text(source)
    dims = _problem_dims(problem_size)
    params = _parameters(tune_params)
    arrays = [_host(a, f"arguments[{i}]") for i, a in enumerate(arguments)]
    expected = _answers(answer, arrays)
    block_names = block_size_names or _BLOCK_NAMES
    geometry = _geometry(dims, params, block_names, (grid_div_x, grid_div_y, grid_div_z))
    spec: Dict[str, Any] = {
        "name": name, "description": f"{kernel_name}, from cutune.tune_kernel", "source": f"{name}.cu",
        "kernel": kernel_name, "shape": list(_SHAPE_NAMES[:len(dims)]), "parameters": params,
        "constraints": _restrictions(restrictions, list(params)), **geometry,
        "defines": _kernel_tuner_defines(dims, params, block_names, geometry, compiler_options),
        "arguments": [_argument(i, a, e, out, compare) for i, (a, e) in enumerate(zip(arguments, expected))],
        "tolerance": {"atol": float(atol), "rtol": _RTOL},
    }
    spec["reference"] = {"configuration": _first_valid(params, spec["constraints"])}
    spec["arguments"] += [_constant(s, v, out) for s, v in (cmem_args or {}).items()]
    if all(e is None for e in expected) or not compare:
        spec["verify"] = {"mode": "none"}  # Kernel Tuner checks nothing without an answer
    if smem_args:
        size = smem_args.get("size")
        if callable(size) or not isinstance(size, (int, str)):
            raise InputError(f"smem_args['size']: bytes, or an expression of the parameters as text, not {size!r}")
        spec["shared_memory"] = size
    if compiler_options:
        spec["compile_options"] = list(compiler_options)
    path = out.path / f"{name}.json"
    path.write_text(json.dumps(spec, indent=1, default=lambda v: v.item() if isinstance(v, np.generic) else str(v)))
    return path


_IGNORED = ("verbose", "platform", "log")
_REFUSED = ("verify", "texmem_args", "defines", "metrics", "objective", "objective_higher_is_better", "observers",
            "cache", "simulation_mode", "strategy_options", "compiler")


def tune_kernel(kernel_name: str, kernel_source: Union[str, PathLike], problem_size: Any, arguments: Sequence[Any],
                tune_params: Dict[str, Any], grid_div_x: Any = None, grid_div_y: Any = None, grid_div_z: Any = None,
                restrictions: Any = None, answer: Any = None, atol: float = 1e-6, lang: Optional[str] = None,
                device: int = 0, smem_args: Optional[Dict[str, Any]] = None,
                cmem_args: Optional[Dict[str, Any]] = None, compiler_options: Optional[Sequence[str]] = None,
                iterations: int = 20, block_size_names: Optional[Sequence[str]] = None, quiet: bool = False,
                strategy: Optional[str] = None, *, db: PathLike = "cutune.db", budget: int = 0,
                folder: Optional[PathLike] = None, name: Optional[str] = None,
                progress: Union[bool, Callable[..., Any]] = True, **options: Any) -> TuneResult:
    """Tunes a kernel of your own on your own arrays, Kernel Tuner's tune_kernel call read as it is written:
    `kernel_source` is CUDA text (or a .cu file), `problem_size` one to three sizes, `arguments` the kernel's
    parameters in order (numpy arrays and scalars, PyTorch tensors, CuPy arrays), `tune_params` a dict of lists,
    `restrictions` expressions, `grid_div_x/y/z` and `block_size_names` Kernel Tuner's launch rules, `answer` the
    expected contents of the outputs (None elsewhere) or a function of the arguments returning them, compared as
    numpy.allclose(answer, output, atol=atol); without it nothing is compared. `cmem_args` fill `__constant__`
    arrays, `smem_args={"size": ...}` sets dynamic shared memory.

    The kernel goes into a spec folder (default: cutune-kernels/NAME beside `db`), so that `tune --spec` tunes it
    again and cutune.Runtime(db).kernel(result.spec, problem_size) launches the best. Results go into `db`;
    `budget` (0: the whole space) and the other keywords are cutune.tune's; `iterations` is its `repeats`, `device`
    its GPU. Returns cutune.tune's result, with the spec's path as `.spec`."""
    from ._tune import tune
    if lang not in (None, "CUDA", "cuda"):
        raise InputError(f"lang '{lang}': cutune tunes CUDA kernels")
    for key in options:
        if key in _REFUSED:
            raise InputError(f"tune_kernel's '{key}' has no counterpart in cutune: leave it out")
    for key in _IGNORED:
        options.pop(key, None)
    spec_name = name or kernel_name.split("<")[0]
    where = Path(folder) if folder is not None else Path(os.fspath(db)).resolve().parent / "cutune-kernels" / spec_name
    path = kernel_spec(kernel_name, kernel_source, problem_size, arguments, tune_params, folder=where,
                       grid_div_x=grid_div_x, grid_div_y=grid_div_y, grid_div_z=grid_div_z, restrictions=restrictions,
                       answer=answer, atol=atol, block_size_names=block_size_names, cmem_args=cmem_args,
                       smem_args=smem_args, compiler_options=compiler_options, name=spec_name)
    shape = _shape_text(_problem_dims(problem_size))
    result = tune(spec=path, shapes=shape, db=db, budget=budget, strategy=strategy, devices=device,
                  repeats=iterations, progress=False if quiet else progress, **options)
    result.spec = str(path)
    result.kernel = spec_name  # its name, as the database and `tune list` show it, rather than the spec's path
    return result
