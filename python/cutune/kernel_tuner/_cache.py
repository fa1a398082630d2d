"""Kernel Tuner's cache file, read and written as Kernel Tuner does (kernel_tuner.util's process_cache, read_cache,
store_cache and close_cache): a JSON object with device_name, kernel_name, problem_size, tune_params_keys,
tune_params, objective and cache, one record per configuration keyed by its values joined by commas (Python's str()
of each). An open file (written by a run that was cut short) ends in "," or in the header's "{" without the closing
braces; it is read as if closed."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

from ..errors import InputError
from .util import ERROR_CONFIGS, ErrorConfig, NpEncoder


def cache_path(cache: Any) -> str:
    """Kernel Tuner's file name for `cache`: ".json" appended when missing."""
    path = os.fspath(cache)
    return path if path.endswith(".json") else path + ".json"


def config_key(config: Dict[str, Any], keys: List[str]) -> str:
    return ",".join(str(config[k]) for k in keys)


def _closed_text(text: str) -> str:
    text = text.strip()
    if text and text[-3:] not in ("}\n}", "}}}") and not text.endswith("}\n}"):
        if text.endswith(","):
            text = text[:-1]
        text += "}\n}"
    return text


def read_cache(path: str) -> Dict[str, Any]:
    """The document of a cache file, closed or open; each record of a failed configuration holds "__error__" (an
    ErrorConfig), as Kernel Tuner reads it, from either the "__error__" field or a failure name in place of "time"."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"cache {path}: {e.strerror}") from e
    try:
        doc = json.loads(_closed_text(text))
    except json.JSONDecodeError as e:
        raise InputError(f"cache {path}: not a Kernel Tuner cache file ({e})") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("cache"), dict) or \
            not isinstance(doc.get("tune_params_keys"), list):
        raise InputError(f"cache {path}: not a Kernel Tuner cache file (no tune_params_keys and cache)")
    for key, record in doc["cache"].items():
        if not isinstance(record, dict):
            raise InputError(f"cache {path}: the record of {key} is not an object")
        for value in list(record.values()):
            if isinstance(value, str) and value in ERROR_CONFIGS:
                record["__error__"] = ERROR_CONFIGS[value]()
    return doc


def check_cache(doc: Dict[str, Any], path: str, device_name: Optional[str], kernel_name: str, problem_size: Any,
                keys: List[str]) -> None:
    """Kernel Tuner's checks before a cache is resumed: same device (unless `device_name` is None), kernel, problem
    size and parameters in the same order."""
    if device_name is not None and doc.get("device_name") != device_name:
        raise ValueError(f"Cannot load cache which contains results for different device (cache: "
                         f"{doc.get('device_name')}, actual: {device_name})")
    if doc.get("kernel_name") != kernel_name:
        raise ValueError(f"Cannot load cache which contains results for different kernel (cache: "
                         f"{doc.get('kernel_name')}, actual: {kernel_name})")
    if "problem_size" in doc and _sizes(doc["problem_size"]) != _sizes(problem_size):
        raise ValueError(f"Cannot load cache which contains results for different problem_size, cache: "
                         f"{doc['problem_size']}, requested: {problem_size}")
    if doc["tune_params_keys"] != keys:
        if sorted(doc["tune_params_keys"]) == sorted(keys):
            raise ValueError(f"All tunable parameters are present, but the order is wrong. Cache has order: "
                             f"{doc['tune_params_keys']}, tuning_options has: {keys}")
        raise ValueError(f"Cannot load cache which contains results obtained with different tunable parameters. "
                         f"Cache at '{path}' has: {doc['tune_params_keys']}, tuning_options has: {keys}")


def _sizes(problem_size: Any) -> List[Any]:
    items = list(problem_size) if isinstance(problem_size, (list, tuple)) else [problem_size]
    return [int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v for v in
            (x.item() if hasattr(x, "item") else x for x in items)]


def _record_text(key: str, record: Dict[str, Any]) -> str:
    out = {k: (str(v) if isinstance(v, ErrorConfig) else v) for k, v in record.items()}
    return "\n" + json.dumps({key: out}, cls=NpEncoder)[1:-1] + ","


def write_cache(path: str, header: Dict[str, Any], records: Dict[str, Dict[str, Any]],
                existing: Optional[Dict[str, Any]]) -> None:
    """Writes the cache as Kernel Tuner leaves it after a run: the header (kept from `existing` when resuming), every
    record of `existing` and then the new ones, one line each, and the closing braces."""
    head = dict(existing) if existing is not None else dict(header)
    old = head.pop("cache", {})
    text = json.dumps({**head, "cache": {}}, cls=NpEncoder, indent="")[:-3]
    for key, record in old.items():
        text += _record_text(key, record)
    for key, record in records.items():
        if key not in old:
            text += _record_text(key, record)
    if text.endswith(","):
        text = text[:-1]
    text += "}\n}"
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
