"""cutune: tune CUDA kernel templates, keep the best configuration per GPU and shape in SQLite, and launch it.

    import cutune
    cutune.tune("transpose", "8192x8192", budget=60)            # stored in cutune.db
    kernel = cutune.Runtime("cutune.db").kernel("transpose", "8192x8192")
    kernel(out, inp)                                              # PyTorch tensors, CuPy arrays, DLPack, addresses

See docs/python.md in the project for the whole API.
"""

import os as _os
from pathlib import Path as _Path

# The worker program that measures candidates in a process of its own ships in the package, beside `tune` (which
# a Runtime tuning on demand runs).
for _program, _variable in (("cutune-worker", "CUTUNE_WORKER"), ("tune", "CUTUNE_TUNE")):
    _path = _Path(__file__).resolve().parent / "bin" / _program
    if _path.is_file() and not _os.environ.get(_variable):
        _os.environ[_variable] = str(_path)

from . import _cutune  # noqa: E402
from . import errors as _errors  # noqa: E402

_cutune._set_error_classes({name: getattr(_errors, name) for name in
                            ("Error", "InputError", "SpecError", "DatabaseError", "CudaError", "NoDeviceError")})

from . import db  # noqa: E402
from ._launch import Kernel, Runtime  # noqa: E402
from ._results import Best, Result, ShapeResult, Space, TuneResult  # noqa: E402
from ._tune import best, kernels, space, tune  # noqa: E402
from ._tune_kernel import kernel_spec, tune_kernel  # noqa: E402
from .errors import CudaError, DatabaseError, Error, InputError, NoDeviceError, SpecError  # noqa: E402

__version__ = _cutune.__version__

__all__ = [
    "tune", "space", "best", "kernels", "tune_kernel", "kernel_spec", "Runtime", "Kernel", "db",
    "Result", "ShapeResult", "TuneResult", "Best", "Space",
    "Error", "InputError", "SpecError", "DatabaseError", "CudaError", "NoDeviceError",
]
