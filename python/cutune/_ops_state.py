"""What cutune.ops keeps per process: the settings, a Runtime per GPU, a prepared launch per (shape, dtype, GPU), the
scratch arrays each GPU's launches share, and the shapes being tuned on demand. torch is imported by cutune.ops."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from ._launch import Runtime
from .errors import InputError

# The arrays each call gives; every other array argument of the GEMMs (split-K counters, workspace) is scratch.
SLOTS = ("A", "B", "C")
_BYTES = {"float64": 8, "int64": 8, "uint64": 8, "float32": 4, "int32": 4, "uint32": 4, "float16": 2, "bfloat16": 2,
          "int16": 2, "uint16": 2}


class Settings(NamedTuple):
    db: Optional[str]
    tune_budget: int
    cache_dir: Optional[str]
    flush: Optional[str]


class Entry(NamedTuple):
    """One shape's prepared launch, the Kernel behind it (for describe()), what it must keep alive, and the shape of
    its output."""
    launch: Any
    kernel: Any
    scratch: Tuple[Any, ...]
    out_shape: Tuple[int, ...]


class State:
    """Everything cutune.ops keeps. The per-call path reads `entries` only; the rest runs on a shape's first call, after
    configure(), and when tuning on demand stores a shape's result."""

    def __init__(self, torch: Any):
        self.torch = torch
        self.lock = threading.RLock()
        self.settings = Settings(os.environ.get("CUTUNE_DB") or None, 0, None, None)
        self.entries: Dict[Tuple[Any, ...], Entry] = {}
        self.stale: Dict[Tuple[Any, ...], Entry] = {}   # replaced by a tuning; a capture in progress still uses them
        self.runtimes: Dict[int, Runtime] = {}
        self.scratch: Dict[Tuple[int, str], Any] = {}
        self.kept: List[Any] = []  # what captured CUDA graphs may still point at: never freed
        self.tuner = OnDemandTuner(self)

    def configure(self, settings: Settings) -> None:
        if settings.tune_budget < 0:
            raise InputError(f"cutune.ops: tune_budget must be 0 (off) or more, got {settings.tune_budget}")
        if settings.tune_budget > 0:
            if settings.db is None:
                raise InputError("cutune.ops: tuning on demand (tune_budget) needs a database to tune into")
            self.tuner.program()  # found, or one clear error now rather than in the background
        self.tuner.wait()
        with self.lock:
            self.kept.extend(list(self.entries.values()) + list(self.stale.values()) + list(self.scratch.values()))
            self.entries.clear()
            self.stale.clear()
            self.runtimes.clear()
            self.scratch.clear()
            self.settings = settings

    def close(self) -> None:
        """Stops the tuning on demand and lets go of everything kept (at exit)."""
        self.tuner.stop()
        with self.lock:
            for held in (self.entries, self.stale, self.runtimes, self.scratch):
                held.clear()
            self.kept.clear()

    def runtime(self, ordinal: int) -> Runtime:
        found = self.runtimes.get(ordinal)
        if found is None:
            s = self.settings
            # A database not made yet (the first tuning makes it) has nothing to choose from: no database until then.
            db = s.db if s.db is not None and Path(s.db).exists() else None
            found = self.runtimes[ordinal] = Runtime(db, device=ordinal, cache_dir=s.cache_dir, flush=s.flush)
        return found

    def prepare(self, key: Tuple[Any, ...], operation: str, shape: str, ordinal: int,
                out_shape: Tuple[int, ...]) -> Entry:
        """The entry of `key`, made on its first call: the operation's implementation at the shape from the Runtime,
        its scratch, its launch packed once."""
        with self.lock:
            found = self.entries.get(key)
            if found is not None:
                return found
            if self.torch.cuda.is_current_stream_capturing():
                stale = self.stale.get(key)
                if stale is not None:
                    return stale
                raise InputError(f"cutune.ops: {operation} at {shape} is called for the first time while a CUDA graph "
                                 f"is being captured; call it once at this shape before the capture (a warm-up run)")
            kernel = self.runtime(ordinal).kernel(operation, shape)
            values: List[Any] = []
            scratch: List[Any] = []
            for a in kernel.arguments:
                if a["kind"] == "scalar":
                    values.append(a["value"])
                elif a["name"] in SLOTS or a["kind"] == "tensor_map":
                    values.append(0)  # given by each call
                else:
                    array = self._scratch(ordinal, a["name"], a["dtype"], a["elements"])
                    scratch.append(array)
                    values.append(array.data_ptr())
            entry = Entry(kernel._native.prepare(values, list(SLOTS)), kernel, tuple(scratch), out_shape)
            self.entries[key] = entry
            self.stale.pop(key, None)
            if kernel.choice["rule"] != "exact shape" and self.settings.tune_budget > 0:
                self.tuner.submit(key, operation, shape, ordinal)
            return entry

    def _scratch(self, ordinal: int, name: str, dtype: str, elements: int) -> Any:
        """A zeroed array of at least `elements`, shared by every shape's launches on the GPU (launches on one stream
        run one after the other; split-K counters are left at zero by each launch). A larger need replaces it; the
        smaller one stays allocated for the shapes (and CUDA graphs) that use it."""
        torch = self.torch
        found = self.scratch.get((ordinal, name))
        if found is None or found.numel() < elements * _BYTES.get(dtype, 1):
            if found is not None:
                self.kept.append(found)
            grown = max(elements, 2 * found.numel() // _BYTES.get(dtype, 1)) if found is not None else elements
            # Bytes: the kernels take the address only, and PyTorch has few operations on unsigned types.
            found = torch.zeros(grown * _BYTES.get(dtype, 1), dtype=torch.uint8, device=f"cuda:{ordinal}")
            # Zeroed before any stream's launch reads it (a first call, outside a capture, may wait).
            torch.cuda.current_stream(ordinal).synchronize()
            self.scratch[(ordinal, name)] = found
        return found

    def replace(self, ordinal: int, keys: List[Tuple[Any, ...]]) -> None:
        """After results were stored: a fresh Runtime for the GPU (a Runtime keeps what it chose per shape), and the
        shapes' next calls prepare again."""
        with self.lock:
            old = self.runtimes.pop(ordinal, None)
            if old is not None:
                self.kept.append(old)
            for key in keys:
                entry = self.entries.pop(key, None)
                if entry is not None:
                    self.stale[key] = entry


class OnDemandTuner:
    """Shapes met without a result of their own, tuned one at a time by the `tune` program in a process of its own
    (nice 10, half the cores for compiles) while the calls go on with the fallback; when it ends, the shape's next call
    launches what was stored."""

    def __init__(self, state: State):
        self.state = state
        self.queue: List[Tuple[Tuple[Any, ...], str, str, int]] = []
        self.queued: set = set()
        self.thread: Optional[threading.Thread] = None
        self.process: Optional[subprocess.Popen] = None
        self.idle = threading.Condition()
        self.failures: List[str] = []

    def program(self) -> str:
        for candidate in (os.environ.get("CUTUNE_TUNE"), Path(__file__).resolve().parent / "bin" / "tune"):
            if candidate and Path(candidate).is_file():
                return os.fspath(candidate)
        raise InputError("cutune.ops: tuning on demand needs the `tune` program: set CUTUNE_TUNE, or install the "
                         "package (it ships cutune/bin/tune)")

    def submit(self, key: Tuple[Any, ...], operation: str, shape: str, ordinal: int) -> None:
        with self.idle:
            if (operation, shape, ordinal) in self.queued:
                return
            self.queued.add((operation, shape, ordinal))
            self.queue.append((key, operation, shape, ordinal))
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="cutune.ops tuning", daemon=True)
                self.thread.start()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits until no shape is queued or being tuned; False when `timeout` seconds passed first."""
        with self.idle:
            return self.idle.wait_for(lambda: self.thread is None, timeout)

    def stop(self) -> None:
        with self.idle:
            self.queue.clear()
            process = self.process
        if process is not None and process.poll() is None:
            process.terminate()  # `tune` stores what it measured and ends
            process.wait()

    def _run(self) -> None:
        while True:
            with self.idle:
                if not self.queue:
                    self.thread = None
                    self.idle.notify_all()
                    return
                key, operation, shape, ordinal = self.queue.pop(0)
            try:
                tuned = self._tune(operation, shape, ordinal)
            except Exception as e:  # noqa: BLE001 -- the thread must go on to the next shape and end cleanly
                tuned = False
                self.failures.append(f"cutune.ops: tuning {operation} at {shape} failed: {e}")
            if tuned:
                self.state.replace(ordinal, [key])

    def _tune(self, operation: str, shape: str, ordinal: int) -> bool:
        s = self.state.settings
        command = [self.program(), "--kernel", operation, "--shapes", shape, "--budget", str(s.tune_budget),
                   "--db", os.fspath(s.db), "--device", str(ordinal), "--jobs", str(max(1, (os.cpu_count() or 2) // 2))]
        if s.flush:
            command += ["--flush", s.flush]
        if s.cache_dir:
            command += ["--cache-dir", os.fspath(s.cache_dir)]
        with self.idle:
            self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                            start_new_session=True)
            try:
                os.setpriority(os.PRIO_PROCESS, self.process.pid, 10)  # before it starts its workers, which inherit it
            except OSError:
                pass
        output, _ = self.process.communicate()
        with self.idle:
            rc, self.process = self.process.returncode, None
        if rc != 0:
            message = f"cutune.ops: tuning {operation} at {shape} failed (tune exited with {rc}): {output[-2000:]}"
            self.failures.append(message)
            print(message, file=sys.stderr)
            return False
        return True
