"""cutune.db: merge, export and import tuning databases, as `tune db merge|export|import` does."""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence, Union

from . import _cutune

PathLike = Union[str, "os.PathLike[str]"]


def merge(inputs: Sequence[PathLike], output: PathLike) -> Dict[str, int]:
    """Merges databases into `output` (created when missing): the union of every run and measurement, with
    provenance; merging the same file twice changes nothing. A refused merge leaves no half-made output behind.
    Returns counts: inputs, runs, new_runs, measurements, new_measurements."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    return dict(_cutune.db_merge([os.fspath(p) for p in inputs], os.fspath(output)))


def export(db: PathLike = "cutune.db", format: str = "json", output: Optional[PathLike] = None, *,
           kernel: Optional[str] = None, device: Optional[str] = None, shape: Optional[str] = None,
           flush: Optional[str] = None) -> Optional[str]:
    """The runs and measurements of `db` in `format` (see formats()): returned as text, or written to `output`.
    `kernel` (a name or a version), `device` (the whole name as stored), `shape` and `flush` ("read", "write", "none")
    select part of them, as `tune db export` does; "kt-cache" holds one kernel on one device at one shape and flush.
    A selection of nothing raises, naming what the database holds."""
    text = _cutune.db_export(os.fspath(db), format, os.fspath(output) if output is not None else "", kernel or "",
                             device or "", shape or "", flush or "")
    return None if output is not None else text


def import_(file: PathLike, db: PathLike = "cutune.db", format: Optional[str] = None, *, device: Optional[str] = None,
            kernel: Optional[str] = None, shape: Optional[str] = None) -> Dict[str, int]:
    """Adds the runs of `file` (an export, a T4 file or a Kernel Tuner cache; `format` detected when None) to `db`
    (created when missing). T4 files and caches do not say everything: `device`, `kernel` and `shape` fill in.
    Returns counts: runs, new_runs, measurements, new_measurements."""
    return dict(_cutune.db_import(os.fspath(file), os.fspath(db), format or "", device or "", kernel or "",
                                  shape or ""))


def formats() -> List[str]:
    """The names `format` takes."""
    return list(_cutune.db_formats())
