"""cutune.kernel_tuner.strategies: Kernel Tuner's strategy modules by name (kernel_tuner.strategies.minimize), each
standing for its name: passed as tune_kernel's strategy, it searches as the name does there (a strategy of the same
kind, or cutune's default)."""

from .._strategy import _OTHER_SEARCHES, _SAME_KIND

_NAMES = tuple(_SAME_KIND) + _OTHER_SEARCHES


def __getattr__(name: str) -> str:
    if name in _NAMES:
        return name
    raise AttributeError(f"Kernel Tuner has no strategy '{name}' that cutune knows (known: {', '.join(_NAMES)})")


def __dir__() -> list:
    return list(_NAMES)
