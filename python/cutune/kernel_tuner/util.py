"""cutune.kernel_tuner.util: the helpers of kernel_tuner.util that tuning scripts call on tune_kernel's results —
the failure markers, get_best_config, get_config_string, the objectives' default directions and the metrics."""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, Dict, Iterable, List, Optional, Tuple

import numpy as np


class ErrorConfig(str):
    """A configuration that has no time: the value of a result's "__error__", printed as its class's name."""

    def __new__(cls) -> "ErrorConfig":
        return super().__new__(cls, cls.__name__)

    def __str__(self) -> str:
        return self.__class__.__name__

    def __repr__(self) -> str:
        return self.__class__.__name__


class InvalidConfig(ErrorConfig):
    """Outside the space: a restriction or the device's limits rule it out."""


class CompilationFailedConfig(ErrorConfig):
    """The kernel did not compile at this configuration."""


class RuntimeFailedConfig(ErrorConfig):
    """The kernel did not launch or run at this configuration (resources, a fault, a time-out)."""


ERROR_CONFIGS = {c.__name__: c for c in (ErrorConfig, InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig)}


class NpEncoder(json.JSONEncoder):
    """json's encoder for results holding numpy numbers and arrays."""

    def default(self, obj: Any) -> Any:
        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            return float(obj)
        if isinstance(obj, np.ndarray):
            return obj.tolist()
        return super().default(obj)


# The objectives whose direction Kernel Tuner knows (True: higher is better).
objective_default_map = {
    "time": False, "energy": False, "fitness": True, "cost": False, "loss": False, "GFLOP/s": True, "TFLOP/s": True,
    "GB/s": True, "TB/s": True, "GFLOPS/W": True, "TFLOPS/W": True, "GFLOP/J": True, "TFLOP/J": True,
}


def get_objective_defaults(objective: Optional[str], objective_higher_is_better: Optional[bool]) -> Tuple[str, bool]:
    """"time" unless another objective is named; its direction from objective_default_map unless given."""
    objective = objective or "time"
    if objective_higher_is_better is None:
        if objective not in objective_default_map:
            raise ValueError(f"Please specify objective_higher_is_better for objective {objective}")
        objective_higher_is_better = objective_default_map[objective]
    return objective, bool(objective_higher_is_better)


def get_best_config(results: List[Dict[str, Any]], objective: str, objective_higher_is_better: bool = False) -> Dict[str, Any]:
    """The result with the best value of `objective`; failed results (with "__error__") and results whose value is not
    a float count as the worst."""
    worst = -sys.float_info.max if objective_higher_is_better else sys.float_info.max

    def value(r: Dict[str, Any]) -> float:
        v = r.get(objective)
        return v if "__error__" not in r and isinstance(v, float) else worst

    return (max if objective_higher_is_better else min)(results, key=value)


def get_config_string(params: Dict[str, Any], keys: Optional[Iterable[str]] = None,
                      units: Optional[Dict[str, str]] = None) -> str:
    """"name=value, ..." of `params` (those in `keys` when given), floats with three decimals."""
    keys = list(params) if not keys else list(keys)
    items = []
    for k, v in params.items():
        if k not in keys:
            continue
        text = f"{round(v, 3):.3f}" if isinstance(v, float) else str(v)
        unit = units.get(k, "") if isinstance(units, dict) and not isinstance(v, ErrorConfig) else ""
        items.append(f"{k}={text}{unit}")
    return ", ".join(items)


def get_instance_string(params: Dict[str, Any]) -> str:
    return "_".join(str(v) for v in params.values())


def _substitute(expression: str, values: Dict[str, Any]) -> str:
    """`expression` with every name of `values` replaced by its value (longest names first, whole words only)."""
    for name in sorted(values, key=len, reverse=True):
        value = values[name]
        if isinstance(value, (str, bytes)) or isinstance(value, (list, tuple, dict)):
            continue
        expression = re.sub(r"(?<![\w.])" + re.escape(name) + r"(?![\w])", "(" + repr(value) + ")", expression)
    return expression


def evaluate(expression: str, values: Dict[str, Any]) -> Any:
    """An expression of parameter and result names, as Kernel Tuner evaluates metrics and problem sizes."""
    names = {"math": math, "np": np, "numpy": np, "ceil": math.ceil, "floor": math.floor, "min": min, "max": max,
             "int": int, "float": float, "abs": abs}
    return eval(_substitute(expression, values), {"__builtins__": {}}, names)  # noqa: S307 - the script's own text


def process_metrics(params: Dict[str, Any], metrics: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """Adds each metric to `params` in order, so that a later one sees the earlier ones: a function of the result
    dict, or an expression of its names as text ("(n*4*2/1e9) / (time/1000)")."""
    if metrics is None:
        return params
    if not isinstance(metrics, dict):
        raise ValueError("metrics should be a dictionary to preserve order and support composability")
    for name, metric in metrics.items():
        if isinstance(metric, str):
            params[name] = evaluate(metric, params)
        elif callable(metric):
            params[name] = metric(params)
        else:
            raise ValueError("metric dicts values should be strings or callable")
    return params
