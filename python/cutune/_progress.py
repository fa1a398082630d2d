"""The progress bar of cutune.tune: tqdm's where it is installed and someone watches, else lines on stderr."""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, Optional

ProgressCallback = Callable[[str, int, int, int, float, Optional[float]], None]


class _TextBar:
    """One rewritten line on a terminal; a line per tenth of the work otherwise (as `tune` prints progress)."""

    def __init__(self, kernel: str, stream: Any = None):
        self.kernel = kernel
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.shape: Optional[str] = None
        self.tenth = -1
        self.last_draw = 0.0

    def __call__(self, shape: str, done: int, total: int, resumed: int, elapsed: float, best_ms: Optional[float]):
        if shape != self.shape:
            self.close()
            self.shape, self.tenth = shape, -1
        best = f"  best {best_ms:.4g} ms" if best_ms is not None else ""
        text = f"{self.kernel} {shape}: {done}/{total}" + (f" ({resumed} stored)" if resumed else "") + \
               f"  {elapsed:.1f} s{best}"
        if self.tty:
            width = 24
            filled = width * done // total if total else width
            now = time.monotonic()
            if done < total and now - self.last_draw < 0.1:
                return
            self.last_draw = now
            self.stream.write("\r[" + "#" * filled + "." * (width - filled) + "] " + text + "\x1b[K")
            self.stream.flush()
        else:
            tenth = 10 * done // total if total else 10
            if tenth != self.tenth:
                self.tenth = tenth
                self.stream.write(text + "\n")
                self.stream.flush()

    def close(self) -> None:
        if self.tty and self.shape is not None:
            self.stream.write("\n")
            self.stream.flush()
        self.shape = None


class _TqdmBar:
    def __init__(self, kernel: str, tqdm: Any):
        self.kernel, self.tqdm = kernel, tqdm
        self.bar: Any = None
        self.shape: Optional[str] = None

    def __call__(self, shape: str, done: int, total: int, resumed: int, elapsed: float, best_ms: Optional[float]):
        if shape != self.shape:
            self.close()
            self.shape = shape
            self.bar = self.tqdm(total=total, desc=f"{self.kernel} {shape}", unit="config", leave=True)
        self.bar.n = done
        if best_ms is not None:
            self.bar.set_postfix_str(f"best {best_ms:.4g} ms", refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        self.bar, self.shape = None, None


def progress_bar(kernel: str) -> Any:
    """tqdm's bar on a terminal or in a notebook, where it is installed; lines per tenth of the work in a log."""
    if sys.stderr.isatty() or "ipykernel" in sys.modules:
        try:
            from tqdm.auto import tqdm  # type: ignore
        except ImportError:
            return _TextBar(kernel)
        return _TqdmBar(kernel, tqdm)
    return _TextBar(kernel)
