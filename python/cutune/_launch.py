"""cutune.Runtime and cutune.Kernel: tuned kernels launched on PyTorch tensors, CuPy arrays, DLPack objects or
addresses, with each argument checked against the kernel's spec (dtype, device, size)."""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _cutune
from ._tune import ShapeLike, _shape_text
from .errors import InputError

# __cuda_array_interface__ / __array_interface__ type strings of each cutune element type.
_TYPESTR = {
    "float32": "<f4", "float64": "<f8", "float16": "<f2", "int8": "|i1", "uint8": "|u1", "int16": "<i2",
    "uint16": "<u2", "int32": "<i4", "uint32": "<u4", "int64": "<i8", "uint64": "<u8", "bool": "|b1",
}
# PyTorch's names of cutune's element types where they differ (its e4m3 is the "fn" variant: no infinities, as CUDA's).
_TORCH_NAMES = {"float8_e4m3": "float8_e4m3fn"}
# 8-bit floats also come as raw bytes from frameworks without an FP8 type (uint8 arrays of the codes).
_FLOAT8 = ("float8_e4m3", "float8_e5m2")
_SCALAR, _BUFFER, _TENSOR_MAP, _CONSTANT = "scalar", "buffer", "tensor_map", "constant"
_MISSING = object()


class _Seen:
    """Which array libraries the arguments of one launch came from (for the default stream)."""
    __slots__ = ("torch", "cupy")

    def __init__(self) -> None:
        self.torch = False
        self.cupy = False


class _Arg:
    __slots__ = ("name", "kind", "dtype", "elements", "output", "buffer_index", "value", "where")

    def __init__(self, d: Dict[str, Any], index_of: Dict[str, int], where: str):
        self.name: str = d["name"]
        self.kind: str = d["kind"]
        self.dtype: str = d["dtype"]
        self.elements: int = d["elements"]
        self.output: bool = d["output"]
        self.buffer_index: int = index_of.get(d["buffer"], -1)
        self.value = d["value"]
        self.where = where  # "gemm_bf16 at 4096x4096x4096", for messages

    def bad(self, why: str) -> InputError:
        what = "array" if self.kind != _SCALAR else "scalar"
        return InputError(f"argument '{self.name}' of {self.where} ({self.dtype} {what}): {why}")


def _product(shape: Any) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _c_contiguous(shape: Any, strides: Any, itemsize: int) -> bool:
    if strides is None:
        return True
    expected = itemsize
    for d, s in zip(reversed(shape), reversed(strides)):
        if d != 1 and s != expected:
            return False
        expected *= d
    return True


def _check(arg: _Arg, dtype: str, elements: int, contiguous: bool, device: int, ordinal: int) -> None:
    if dtype != arg.dtype and not (arg.dtype in _FLOAT8 and dtype == "uint8"):
        raise arg.bad(f"got {dtype or 'an unsupported dtype'}")
    if not contiguous:
        raise arg.bad("not contiguous (pass .contiguous() / a C-ordered copy)")
    if elements < arg.elements:
        raise arg.bad(f"has {elements} elements, the kernel uses {arg.elements}")
    if device != ordinal and not (device < 0 and arg.kind == _CONSTANT):
        where = "host memory" if device < 0 else f"GPU {device}"
        raise arg.bad(f"in {where}, the kernel runs on GPU {ordinal}")


def _address(value: Any, arg: _Arg, ordinal: int, seen: _Seen) -> int:
    """The address of `value`'s data after checking it against `arg`."""
    if type(value) is int:
        if value < 0:
            raise arg.bad(f"address {value} is negative")
        return value
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        seen.torch = True
        device = value.get_device() if value.is_cuda else -1
        name = str(value.dtype)[6:]
        name = next((k for k, v in _TORCH_NAMES.items() if v == name), name)
        _check(arg, name, value.numel(), value.is_contiguous(), device, ordinal)
        return value.data_ptr()
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        if type(value).__module__.startswith("cupy"):
            seen.cupy = True
        typestr = cai["typestr"]
        dtype = next((k for k, v in _TYPESTR.items() if v == typestr), typestr)
        address = int(cai["data"][0])
        itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 0
        shape = cai["shape"]
        _check(arg, dtype, _product(shape), _c_contiguous(shape, cai.get("strides"), itemsize),
               _cutune._pointer_device(address) if address else ordinal, ordinal)
        return address
    if hasattr(value, "__dlpack__"):
        address, dtype, elements, contiguous, device_type, device_id = _cutune._dlpack_info(value)
        device = device_id if device_type == 2 else -1
        _check(arg, dtype, elements, contiguous, device, ordinal)
        return address
    host = getattr(value, "__array_interface__", None)
    if host is not None:
        typestr = host["typestr"]
        dtype = next((k for k, v in _TYPESTR.items() if v == typestr), typestr)
        itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 0
        _check(arg, dtype, _product(host["shape"]), _c_contiguous(host["shape"], host.get("strides"), itemsize), -1,
               ordinal)
        return int(host["data"][0])
    raise arg.bad(f"expected a PyTorch tensor, a CuPy array, an object with __cuda_array_interface__ or __dlpack__, "
                  f"or an address (int); got {type(value).__name__}")


def _stream_handle(stream: Any, seen: _Seen, ordinal: int) -> int:
    if stream is None:
        if seen.torch:
            return sys.modules["torch"].cuda.current_stream(ordinal).cuda_stream
        if seen.cupy:
            return sys.modules["cupy"].cuda.get_current_stream().ptr
        return 0  # the legacy default stream
    if type(stream) is int:
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int((protocol() if callable(protocol) else protocol)[1])
    for attribute in ("cuda_stream", "ptr", "handle"):  # torch.cuda.Stream, cupy.cuda.Stream, cuda-python
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return handle
    raise InputError(f"stream: expected a CUDA stream (an int handle, a torch.cuda.Stream, a CuPy stream or an "
                     f"object with __cuda_stream__), got {type(stream).__name__}")


class Kernel:
    """A tuned kernel at one shape, ready to launch: `kernel(out, inp, ...)` takes one value per spec argument, in
    the spec's order or by name. Arrays are checked against the spec (dtype, device, at least the elements the
    kernel uses, contiguous); scalars are packed by the spec's type. Left out: scalars take the spec's value at this
    shape (M, N, K; alpha = 1.0), tensor maps the array of the buffer they describe. The launch goes on `stream`,
    by default the current PyTorch (or CuPy) stream when an argument is one of their arrays, else the legacy
    default stream. Launches are asynchronous, as any CUDA launch."""

    def __init__(self, native: Any):
        self._native = native
        self._wanted = False  # set by Runtime.kernel(): its shape has no result of its own
        described = native.arguments()
        index_of = {d["name"]: i for i, d in enumerate(described)}
        where = f"{native.name} at {native.shape}"
        self._args: Tuple[_Arg, ...] = tuple(_Arg(d, index_of, where) for d in described)
        self._index = index_of
        self._ordinal: int = native.ordinal
        # Tensor maps after the buffers they describe are known.
        self._order = tuple(i for i, a in enumerate(self._args) if a.kind != _TENSOR_MAP) + \
            tuple(i for i, a in enumerate(self._args) if a.kind == _TENSOR_MAP)

    @property
    def name(self) -> str:
        return self._native.name

    @property
    def shape(self) -> str:
        return self._native.shape

    @property
    def config(self) -> Dict[str, Union[int, float]]:
        """The configuration it runs."""
        return dict(self._native.config)

    @property
    def choice(self) -> Dict[str, Any]:
        """Which rule chose the configuration (exact shape, predicted, same compute capability, spec default) and the
        measurement behind it."""
        return dict(self._native.choice)

    @property
    def arguments(self) -> List[Dict[str, Any]]:
        """The spec's arguments in order: name, kind (buffer, scalar, tensor_map, constant), dtype, elements (arrays:
        what the kernel uses at this shape), output, value (scalars: the spec's)."""
        return [dict(name=a.name, kind=a.kind, dtype=a.dtype, elements=a.elements, output=a.output, value=a.value)
                for a in self._args]

    def zeros(self, name: str, library: str = "torch") -> Any:
        """A zeroed array for argument `name` on the kernel's GPU, of the spec's dtype and the elements the kernel
        uses at this shape: scratch such as a GEMM's split-K `counters` and `workspace`. `library`: "torch" or
        "cupy"."""
        i = self._index.get(name)
        if i is None or self._args[i].kind not in (_BUFFER, _CONSTANT):
            raise InputError(f"{self._native.name} has no array argument '{name}'")
        a = self._args[i]
        if library == "torch":
            import torch
            dtype = getattr(torch, _TORCH_NAMES.get(a.dtype, a.dtype))
            return torch.zeros(a.elements, dtype=dtype, device=f"cuda:{self._ordinal}")
        if library == "cupy":
            import cupy
            with cupy.cuda.Device(self._ordinal):
                return cupy.zeros(a.elements, dtype="uint8" if a.dtype in _FLOAT8 else a.dtype)
        raise InputError(f"library '{library}': expected torch or cupy")

    @property
    def geometry(self) -> Dict[str, Any]:
        return dict(self._native.geometry)

    @property
    def from_cache(self) -> bool:
        return self._native.from_cache

    def __call__(self, *args: Any, stream: Any = None, **named: Any) -> None:
        specs = self._args
        count = len(specs)
        if len(args) > count:
            raise InputError(f"{self._native.name} takes {count} arguments, got {len(args)}")
        values: List[Any] = list(args) + [_MISSING] * (count - len(args))
        for name, value in named.items():
            i = self._index.get(name)
            if i is None:
                raise InputError(f"{self._native.name} has no argument '{name}' (its arguments: "
                                 f"{', '.join(a.name for a in specs)})")
            if values[i] is not _MISSING:
                raise InputError(f"argument '{name}' of {self._native.name} given twice")
            values[i] = value
        seen = _Seen()
        ordinal = self._ordinal
        for i in self._order:
            a, value = specs[i], values[i]
            if a.kind == _SCALAR:
                if value is _MISSING:
                    values[i] = a.value
            elif a.kind == _TENSOR_MAP:
                if value is _MISSING:
                    values[i] = values[a.buffer_index]
                else:
                    values[i] = _address(value, specs[a.buffer_index], ordinal, seen)
                if values[i] % 16:
                    raise a.bad("a tensor map's array must be 16-byte aligned")
            elif value is _MISSING:
                missing = [specs[j].name for j in range(count) if values[j] is _MISSING and
                           specs[j].kind in (_BUFFER, _CONSTANT)]
                raise InputError(f"{self._native.name} needs its array argument{'s' if len(missing) > 1 else ''} "
                                 f"{', '.join(missing)}")
            else:
                values[i] = _address(value, a, ordinal, seen)
        self._native.launch(_stream_handle(stream, seen, ordinal), values)

    launch = __call__

    def __repr__(self) -> str:
        return f"<cutune.Kernel {self._native.name} at {self._native.shape}: " + \
            ",".join(f"{k}={v}" for k, v in self._native.config.items()) + ">"


class Runtime:
    """Hands out tuned kernels on one GPU (its primary context, the one PyTorch and CuPy use).

    `db`: the tuning database (None: every kernel runs its spec's default configuration); `device`: the GPU ordinal
    (None: the GPU current on this thread, else 0); `cache_dir`: the compiled-kernel cache; `flush`: the L2
    convention whose results count (default: the spec's, else read); `tune_budget`: tuning on demand, above 0: a
    shape without a result of its own runs the fallback at once and is tuned in the background (the `tune` program,
    in a process of its own, on this GPU, into `db`, which must be writable) with this budget; a later kernel() call
    for the shape returns the tuned kernel once it is stored."""

    def __init__(self, db: Optional[Union[str, "os.PathLike[str]"]] = "cutune.db", *, device: Optional[int] = None,
                 cache_dir: Optional[Union[str, "os.PathLike[str]"]] = None, flush: Optional[str] = None,
                 tune_budget: int = 0):
        self._native = _cutune._Runtime(os.fspath(db) if db is not None else "", -1 if device is None else int(device),
                                        os.fspath(cache_dir) if cache_dir is not None else None, flush or "",
                                        int(tune_budget))
        self._kernels: Dict[Tuple[str, str], Kernel] = {}

    @property
    def device(self) -> Dict[str, Any]:
        """The GPU: name, arch, sm_count, and ordinal."""
        d = dict(self._native.device)
        d["ordinal"] = self._native.ordinal
        return d

    def kernel(self, name: Union[str, "os.PathLike[str]"], shape: ShapeLike) -> Kernel:
        """The kernel `name` (built-in, or a spec file .json) for `shape`, with the configuration the database
        chooses for this GPU; compiled (or read from the cache) and loaded on first use, then kept."""
        key = (os.fspath(name), _shape_text(shape))
        found = self._kernels.get(key)
        if found is None:
            found = self._kernels[key] = Kernel(self._native.kernel(*key))
            found._wanted = found.choice["rule"] != "exact shape"
        elif found._wanted:  # a shape without a result of its own: each request counts, and may find it tuned
            fresh = self._native.refresh(*key, found._native)
            if fresh is not None:
                found = self._kernels[key] = Kernel(fresh)
                found._wanted = found.choice["rule"] != "exact shape"
        return found

    def wanted(self) -> List[Dict[str, Any]]:
        """The shapes this Runtime was asked for that had no result of their own (a fallback or the spec's default
        answered): kernel, kernel_hash, device, flush, shape, count, first_at, last_at. Each is also added to the
        database's list (`tune wanted`; `tune --wanted` tunes them) unless the database is read-only: then
        save_wanted() writes them to a file that `tune wanted --add FILE` adds to a database."""
        return [dict(w) for w in self._native.wanted()]

    def save_wanted(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes wanted() to a JSON file."""
        self._native.save_wanted(os.fspath(path))
