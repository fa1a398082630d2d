"""cutune's GEMM operations as PyTorch operators: torch.ops.cutune.matmul, the faster of cutune's tuned template and
cuBLASLt at each shape (matmul_bf16, matmul_f16), kept in torch.compile's graphs and captured by CUDA graphs.

    import cutune.ops
    cutune.ops.configure("app.db")          # once per process; tune_budget=60 tunes new shapes on demand
    y = cutune.ops.matmul(x, w)             # x: (..., K), w: (K, N), bfloat16 or float16, contiguous, on one GPU

Importing this module imports PyTorch (2.4 or later); the rest of cutune never does. See docs/python.md.
"""

from __future__ import annotations

import atexit
import os
import re
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from ._ops_state import Settings, State
from ._tune import ShapeLike, _shape_text
from ._tune import tune as _tune
from .errors import InputError

_MINIMUM = (2, 4)


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as e:
        raise ImportError("cutune.ops needs PyTorch 2.4 or later, and PyTorch is not installed (the rest of cutune "
                          "works without it)") from e
    version = tuple(int(x) for x in re.findall(r"\d+", torch.__version__)[:2])
    if version < _MINIMUM or not hasattr(torch.library, "register_fake"):
        raise ImportError(f"cutune.ops needs PyTorch 2.4 or later (torch.library.register_fake), found "
                          f"{torch.__version__}")
    return torch


torch = _import_torch()

_OPERATIONS = {torch.bfloat16: "matmul_bf16", torch.float16: "matmul_f16"}
_state = State(torch)
# The current stream's handle without making a torch.cuda.Stream object (what Inductor's generated code calls).
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or \
    (lambda index: torch.cuda.current_stream(index).cuda_stream)


def configure(db: Optional[Union[str, "os.PathLike[str]"]] = "cutune.db", *, tune_budget: int = 0,
              cache_dir: Optional[Union[str, "os.PathLike[str]"]] = None, flush: Optional[str] = None) -> None:
    """Where the operators find their configurations, once per process before the first call (without it: the
    database named by $CUTUNE_DB, else none, and every shape runs cuBLASLt's own choice). `db`: the tuning database
    (None: none); one that does not exist yet is made by the first tuning, and until then every shape runs the
    untuned implementation. `tune_budget`: above 0, a shape first called
    without a result of its own runs the untuned implementation at once and is tuned in the background with this
    budget (the `tune` program, one shape at a time); its calls launch the tuned winner once it is stored. `cache_dir`:
    the compiled-kernel cache; `flush`: the L2 convention whose results count. Calling again starts over (kernels
    already handed to captured CUDA graphs stay valid)."""
    _state.configure(Settings(os.fspath(db) if db is not None else None, int(tune_budget),
                              os.fspath(cache_dir) if cache_dir is not None else None, flush))


def _name(t: Any) -> str:
    return str(t.dtype).replace("torch.", "")


def _refuse(a: Any, b: Any) -> None:
    """One clear error for operands matmul does not take (nothing when they are fine)."""
    def bad(why: str) -> InputError:
        return InputError(f"cutune.ops.matmul(a {tuple(a.shape)} {_name(a)}, b {tuple(b.shape)} {_name(b)}): {why}")
    if a.dtype not in _OPERATIONS:
        raise bad(f"takes bfloat16 or float16 tensors, a is {_name(a)}")
    if b.dtype != a.dtype:
        raise bad(f"a and b must have one dtype, b is {_name(b)}")
    if a.dim() < 2 or b.dim() != 2:
        raise bad("a must be (..., K) with at least 2 dimensions and b (K, N)")
    if a.shape[-1] != b.shape[0]:
        raise bad(f"a's last dimension ({a.shape[-1]}) must be b's first ({b.shape[0]})")
    if a.device != b.device or a.device.type != "cuda":
        raise bad(f"a and b must be on one GPU, they are on {a.device} and {b.device}")
    if not (a.is_contiguous() and b.is_contiguous()):
        raise bad("a and b must be contiguous (row-major); pass .contiguous() (for x @ w.T, keep w.T contiguous once)")
    if (a.data_ptr() | b.data_ptr()) % 16:
        raise bad("a's and b's data must start at a multiple of 16 bytes")


def _first_call(key: Tuple[Any, ...], a: Any, b: Any) -> Any:
    _refuse(a, b)
    k, n = b.shape
    m = a.numel() // k if k else int(torch.Size(a.shape[:-1]).numel())
    ordinal = a.get_device()
    out_shape = (*a.shape[:-1], n)
    return _state.prepare(key, _OPERATIONS[a.dtype], f"{m}x{n}x{k}", ordinal, out_shape), m, n, k


def _matmul_cuda(a: Any, b: Any) -> Any:
    key = (a.shape, b.shape, a.dtype, b.dtype, a.get_device(), b.get_device())
    entry = _state.entries.get(key)
    if entry is None:
        if a.numel() == 0 or b.numel() == 0:  # nothing to launch
            _refuse(a, b)
            return a.new_zeros((*a.shape[:-1], b.shape[1]))
        entry = _first_call(key, a, b)[0]
    a_address, b_address = a.data_ptr(), b.data_ptr()
    if (a_address | b_address) % 16 or not (a.is_contiguous() and b.is_contiguous()):
        _refuse(a, b)
    out = a.new_empty(entry.out_shape)
    entry.launch(_raw_stream(key[4]), a_address, b_address, out.data_ptr())
    return out


def _matmul_cpu(a: Any, b: Any) -> Any:
    _refuse(a, b)  # raises: the operands are not on a GPU
    raise AssertionError("unreachable")


def _matmul_fake(a: Any, b: Any) -> Any:
    if a.dtype not in _OPERATIONS or b.dtype != a.dtype or a.dim() < 2 or b.dim() != 2:
        _refuse(a, b)
    torch._check(a.shape[-1] == b.shape[0], lambda: f"cutune.ops.matmul: a's last dimension ({a.shape[-1]}) must be "
                                                    f"b's first ({b.shape[0]})")
    return a.new_empty((*a.shape[:-1], b.shape[1]))


_library = torch.library.Library("cutune", "DEF")
_tags = tuple(t for t in (getattr(torch.Tag, "needs_fixed_stride_order", None),) if t is not None)
_library.define("matmul(Tensor a, Tensor b) -> Tensor", tags=_tags)
_library.impl("matmul", _matmul_cuda, "CUDA")
_library.impl("matmul", _matmul_cpu, "CPU")
torch.library.register_fake("cutune::matmul", _matmul_fake, lib=_library)
# At exit: a shape being tuned stores what it measured, and the Runtimes end (storing the counts of wanted shapes) before
# the interpreter tears the extension module down.
atexit.register(_state.close)


_Tensor = torch.Tensor
_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
_dispatch_modes = getattr(torch._C, "_len_torch_dispatch_stack", None)
_function_modes = getattr(torch._C, "_is_torch_function_mode_enabled", None)
_functorch = getattr(torch._C, "_are_functorch_transforms_active", None)
_can_skip_dispatcher = None not in (_is_compiling, _dispatch_modes, _function_modes, _functorch)


def matmul(a: Any, b: Any) -> Any:
    """a @ b for a (..., K) and b (K, N), bfloat16 or float16, both contiguous on one GPU: torch.ops.cutune.matmul.
    The implementation at the shape is the one the database chose (the tuned template, or cuBLASLt by rank or by
    attributes), prepared on the shape's first call; later calls launch it on the current stream without allocating
    anything but the output and without synchronizing. FP32 accumulation. Forward only (no autograd formula).

    Called eagerly on plain tensors that need no gradient, with no torch.compile trace, dispatch or function mode and
    no functorch transform active, it runs the operator's CUDA implementation without the dispatcher's round trip
    (the same code, a few microseconds less per call); otherwise it calls torch.ops.cutune.matmul."""
    if (_can_skip_dispatcher and type(a) is _Tensor and type(b) is _Tensor and not (a.requires_grad or b.requires_grad)
            and a.is_cuda and not _is_compiling() and not _dispatch_modes() and not _function_modes()
            and not _functorch()):
        return _matmul_cuda(a, b)
    return torch.ops.cutune.matmul.default(a, b)


def describe(a: Any, b: Any) -> Dict[str, Any]:
    """What matmul(a, b) launches: operation, shape (MxNxK), kernel (the implementation: gemm_bf16,
    gemm_bf16_cublaslt or gemm_bf16_cublaslt_config, ...), config, rule (why that configuration: exact shape, predicted, spec default, ...)."""
    entry, m, n, k = _first_call((a.shape, b.shape, a.dtype, b.dtype, a.get_device(), b.get_device()), a, b)
    return {"operation": _OPERATIONS[a.dtype], "shape": f"{m}x{n}x{k}", "kernel": entry.kernel.name,
            "config": entry.kernel.config, "rule": entry.kernel.choice["rule"]}


def tune(shapes: Union[ShapeLike, Sequence[ShapeLike]], dtype: Any = None, *, budget: int = 60,
         device: Optional[int] = None, progress: bool = False, **options: Any) -> Any:
    """Tunes matmul at `shapes` ("MxNxK" or (M, N, K), or a list of them) for `dtype` (torch.bfloat16, the default,
    or torch.float16) into the configured database, now, on `device` (default: the current GPU): both
    implementations under one budget (cutune.tune's `options` apply). Later calls at those shapes launch the winner.
    Returns cutune.tune's TuneResult."""
    dtype = torch.bfloat16 if dtype is None else dtype
    if dtype not in _OPERATIONS:
        raise InputError(f"cutune.ops.tune: dtype {dtype}: expected torch.bfloat16 or torch.float16")
    if _state.settings.db is None:
        raise InputError("cutune.ops.tune: no database to tune into; call cutune.ops.configure(db) first")
    ordinal = torch.cuda.current_device() if device is None else int(device)
    items = [shapes] if isinstance(shapes, str) or (isinstance(shapes, (tuple, list)) and shapes and
                                                    isinstance(shapes[0], int)) else list(shapes)
    texts = {_shape_text(s) for s in items}
    s = _state.settings
    result = _tune(_OPERATIONS[dtype], [_shape_text(x) for x in items], budget=budget, db=s.db, devices=ordinal,
                   cache_dir=s.cache_dir, flush=s.flush, progress=progress, **options)
    _state.replace(ordinal, [key for key in list(_state.entries) if key[2] == dtype and key[4] == ordinal and
                             _key_shape(key) in texts])
    return result


def _key_shape(key: Tuple[Any, ...]) -> str:
    a_shape, b_shape = key[0], key[1]
    k, n = b_shape
    m = 1
    for d in a_shape[:-1]:
        m *= d
    return f"{m}x{n}x{k}"


def wait(timeout: Optional[float] = None) -> bool:
    """Waits until the shapes queued for tuning on demand are tuned (their next calls launch the results); False when
    `timeout` seconds passed first."""
    return _state.tuner.wait(timeout)


def tuning_failures() -> Sequence[str]:
    """The messages of on-demand tunings that failed (their shapes keep the untuned implementation)."""
    return tuple(_state.tuner.failures)


__all__ = ["configure", "matmul", "describe", "tune", "wait", "tuning_failures"]
