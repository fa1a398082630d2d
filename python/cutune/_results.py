"""What cutune.tune, cutune.best and cutune.space return."""

from __future__ import annotations

import atexit
import queue
import threading
from dataclasses import dataclass, field, fields
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union, overload

Config = Dict[str, Union[int, float]]


@dataclass(frozen=True)
class Result:
    """One measured configuration."""

    config: Config                #: {"BM": 128, ...} in the spec's parameter order
    config_text: str              #: "BM=128,BN=64,...", as stored and as `tune --start` takes it
    status: str                   #: ok, unverified, wrong_result, compile_error, launch_error, interrupted, ...
    median_ms: float
    min_ms: float
    max_ms: float
    spread: float                 #: interquartile range over the median (0.01 = 1%)
    metric: float                 #: GB/s or GFLOP/s at the median (0 for time-only kernels)
    metric_unit: str              #: "GB/s", "GFLOP/s" or ""
    max_error: float              #: largest |out - reference| seen in verification
    registers: int
    compile_ms: float
    verify_ms: float = field(default=0.0, repr=False)     #: the first run and its comparison with the reference
    benchmark_ms: float = field(default=0.0, repr=False)  #: the timed runs
    framework_ms: float = field(default=0.0, repr=False)  #: loading, launch set-up, the worker's round trip
    search_ms: float = field(default=0.0, repr=False)     #: the strategy's own time for it (NaN: unknown)
    samples_ms: List[float] = field(default_factory=list, repr=False)
    message: str = field(default="", repr=False)  #: compile log or error, empty when ok
    #: every figure cutune keeps of a result by name (the ones above, and the kernel's resources: spill_bytes,
    #: static_smem_bytes, dynamic_smem_bytes, threads_per_block, blocks, blocks_per_sm, peak); each is an attribute too
    figures: Dict[str, float] = field(default_factory=dict, repr=False, compare=False)

    def __getattr__(self, name: str) -> Any:
        figures = self.__dict__.get("figures", {})
        if name in figures:
            return figures[name]
        raise AttributeError(f"Result has no attribute {name!r}")

    @property
    def ok(self) -> bool:
        """Measured and correct (or measured unverified, with verify="none")."""
        return self.status in ("ok", "unverified")

    @classmethod
    def _of(cls, d: Dict[str, Any]) -> "Result":
        named = {f.name for f in fields(cls)} - {"figures"}
        figures = {k: v for k, v in d.items() if k not in ("config", "config_text", "status", "message",
                                                            "samples_ms", "metric_unit")}
        return cls(**{k: v for k, v in d.items() if k in named}, figures=figures)


@dataclass(frozen=True)
class ShapeResult:
    """One shape of a tuning run."""

    shape: str
    best: Optional[Result]       #: the fastest correct configuration, None when nothing was correct
    space_size: int
    evaluated: int               #: measured in this run
    resumed: int                 #: already in the database
    failed: int
    seconds: float
    measure_seconds: float
    idle_seconds: float          #: the GPUs waited for a compile, summed over GPUs
    verify_seconds: float        #: of the results measured now: verifying
    benchmark_seconds: float     #: of the results measured now: the timed runs
    cache_hits: int
    flush: str                   #: the L2 convention of every time
    verify_stop: str = ""        #: why the shape stopped early (its first configurations all differed the same way)
    compiled_ahead: int = 0      #: compiled into the cubin cache because the strategy was likely to propose them
    #: stored as "interrupted": their process was killed from outside twice; not failed, the same call measures them again
    interrupted: int = 0
    kernel: str = ""             #: the kernel family measured: the one tuned, or for an operation, an implementation
    #: where `seconds` went: wall_s = startup_s + compile_wait_s + measure_s + search_s + store_s + other_s, and
    #: compile_cpu_s, NVRTC's time summed over compile threads
    phases: Dict[str, float] = field(default_factory=dict, repr=False)
    devices: List[Dict[str, Any]] = field(default_factory=list, repr=False)

    @classmethod
    def _of(cls, d: Dict[str, Any]) -> "ShapeResult":
        d = dict(d)
        d["best"] = Result._of(d["best"]) if d["best"] is not None else None
        return cls(**d)


class TuneResult(Sequence[ShapeResult]):
    """The shapes of one cutune.tune call, in the order given; indexable by position or by shape ("4096x4096")."""

    def __init__(self, kernel: str, db: str, shapes: List[ShapeResult]):
        self.kernel = kernel
        self.db = db
        self._shapes = shapes
        self.spec: Optional[str] = None  # cutune.tune_kernel: the spec it wrote

    @overload
    def __getitem__(self, key: int) -> ShapeResult: ...
    @overload
    def __getitem__(self, key: slice) -> List[ShapeResult]: ...
    @overload
    def __getitem__(self, key: str) -> ShapeResult: ...

    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, str):
            for s in self._shapes:
                if s.shape == key:
                    return s
            raise KeyError(key)
        return self._shapes[key]

    def __len__(self) -> int:
        return len(self._shapes)

    @property
    def best(self) -> Optional[Result]:
        """The best configuration of the only shape; for several shapes, index by shape first."""
        if len(self._shapes) != 1:
            raise ValueError(f"{len(self._shapes)} shapes were tuned: take result[shape].best")
        return self._shapes[0].best

    def __repr__(self) -> str:
        lines = [f"TuneResult({self.kernel}, {len(self._shapes)} shape{'s' if len(self._shapes) != 1 else ''}, db={self.db!r})"]
        for s in self._shapes:
            b = s.best
            what = f"{b.median_ms:.4g} ms  {b.config_text}" if b else "no correct configuration"
            lines.append(f"  {s.shape:>20}  {what}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Best:
    """The stored configuration for a kernel and shape (cutune.best), by the database's fallback rules."""

    kernel: str
    version: str                  #: the kernel's version (hash of source and spec)
    device: Dict[str, Any]        #: the GPU whose measurement it is: name, arch, sm_count
    shape: str                    #: the shape that was measured (differs from the one asked for unless rule is exact)
    rule: str                     #: exact shape, predicted, same compute capability, spec default
    rule_text: str                #: the rule with its details, as `tune best` prints it
    flush: str
    measured: bool                #: False when the rule is the spec's default configuration
    result: Result

    @property
    def config(self) -> Config:
        return self.result.config

    @property
    def config_text(self) -> str:
        return self.result.config_text

    @classmethod
    def _of(cls, d: Dict[str, Any]) -> "Best":
        d = dict(d)
        d["result"] = Result._of(d["result"])
        return cls(**d)


class Space(Sequence[Config]):
    """The valid configurations of a kernel (at a shape, when one is given), as `tune space` counts them. A space of
    up to two million valid configurations is held: a sequence, indexed and sliced. A larger one is counted as `tune
    space` counts it, exactly where a walk that keeps nothing ends in seconds, else estimated (`exact` False, the
    interval in `counts`); it is iterated by such a walk and drawn from with `sample()`, and indexing it (or len() of
    an estimate) raises cutune.InputError saying so."""

    def __init__(self, native: Any):
        self._native = native

    @property
    def kernel(self) -> str:
        return self._native.kernel

    @property
    def shape(self) -> Optional[str]:
        return self._native.shape

    @property
    def parameters(self) -> List[str]:
        return list(self._native.parameters)

    @property
    def counts(self) -> Dict[str, int]:
        """valid, exact and combinations; for a space held, what each rule removed (removed_by_constraints,
        removed_by_device, removed_by_target, removed_by_shard); for one too large to hold, valid_low and valid_high
        (the estimate's 95% interval, or the exact count twice)."""
        return dict(self._native.counts)

    @property
    def held(self) -> bool:
        """Whether the configurations are held in memory (indexable), as for every space of up to two million."""
        return bool(self._native.held)

    @property
    def exact(self) -> bool:
        """Whether counts["valid"] is exact rather than an estimate."""
        return bool(self._native.counts["exact"])

    def __len__(self) -> int:
        return len(self._native)

    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, slice):
            return [self._native.config(i) for i in range(*key.indices(len(self)))]
        if key < 0:
            key += len(self)
        return self._native.config(key)

    def __iter__(self) -> Iterator[Config]:
        if self._native.held:
            for i in range(len(self._native)):
                yield self._native.config(i)
        else:
            yield from _walk(self._native)

    def __contains__(self, config: object) -> bool:
        """Whether `config` (a dict of every parameter's value, or its text "BM=128,...") is a valid configuration of
        this space (this part, of a shard). Answered without a walk of a space too large to hold, by its constraints,
        unless it is a part of a shard: then the walk goes up to the configuration's position."""
        if isinstance(config, dict):
            if set(config) != set(self._native.parameters):
                return False
            config = ",".join(f"{name}={config[name]}" for name in self._native.parameters)
        if not isinstance(config, str):
            return False
        return bool(self._native.contains(config))

    def sample(self, n: int, seed: int = 0) -> List[Config]:
        """Up to `n` distinct valid configurations drawn uniformly (the same ones for the same seed): of a space held in
        enumeration order, of a larger one as drawn (from the whole space only, not a shard)."""
        if n < 0:
            raise ValueError("sample(n): n must not be negative")
        return list(self._native.sample(n, seed))

    def text(self, index: int) -> str:
        """Configuration `index` as text ("BM=128,..."), as `tune --start` and `tune space --list` write it."""
        return self._native.config_text(index)

    def __str__(self) -> str:
        return self._native.summary

    def __repr__(self) -> str:
        return f"<Space: {self._native.summary}>"


class _StopWalk(Exception):
    """Ends the walk of a space that is no longer iterated."""


_walks: Set[Tuple[threading.Event, threading.Thread]] = set()  # walks under way, stopped at exit


@atexit.register
def _stop_walks() -> None:
    """Ends the walks of iterations not finished when Python exits (their threads hold the native space)."""
    for stop, thread in list(_walks):
        stop.set()
        thread.join(1.0)


def _walk(native: Any) -> Iterator[Config]:
    """The configurations of a space too large to hold, as the native walk finds them: the walk runs in a thread of
    its own and hands them over through a short queue, so that it keeps at most a few in memory and stops when the
    iteration does."""
    items: "queue.Queue[Any]" = queue.Queue(maxsize=256)
    stop = threading.Event()
    done = object()

    def visit(config: Config) -> None:
        while True:
            if stop.is_set():
                raise _StopWalk()
            try:
                items.put(config, timeout=0.1)
                return
            except queue.Full:
                continue

    def run() -> None:
        try:
            native.walk(visit)
            items.put(done)
        except _StopWalk:
            pass
        except BaseException as e:  # noqa: B902: handed to the iterating thread
            items.put(e)

    thread = threading.Thread(target=run, name="cutune-space-walk", daemon=True)
    walk = (stop, thread)
    _walks.add(walk)
    thread.start()
    try:
        while True:
            item = items.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while thread.is_alive():
            try:
                items.get_nowait()
            except queue.Empty:
                thread.join(0.05)
        _walks.discard(walk)
