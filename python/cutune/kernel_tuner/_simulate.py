"""simulation_mode: a tuning run replayed from a Kernel Tuner cache, with no GPU: each configuration the strategy
visits takes its record from the cache, and the time the run would have taken (its records' compile, verification
and benchmark times) is the environment's simulated_time. Brute force and random sampling are replayed here;
`tune replay` replays cutune's own strategies on a cache."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .._tune import space
from ..errors import InputError
from . import _cache, _records


def replay(cache_file: str, spec: Path, shape: str, kernel_name: str, problem_size: Any, keys: List[str],
           strategy: Any, budget: int, seed: Optional[int]) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
    if strategy not in (None, "brute_force", "random_sample"):
        raise InputError(f"simulation_mode replays brute_force and random_sample, not '{strategy}': `tune replay "
                         f"--cache {cache_file}` replays cutune's strategies on a Kernel Tuner cache")
    doc = _cache.read_cache(cache_file)
    _cache.check_cache(doc, cache_file, None, kernel_name, problem_size, keys)
    configs = list(space(spec=spec, shape=shape))
    if budget:
        configs = random.Random(seed or 0).sample(configs, budget)
    cached = doc["cache"]
    results = []
    simulated = 0.0
    for config in configs:
        key = _cache.config_key(config, keys)
        if key not in cached:
            raise ValueError(f"kernel configuration {key} not in cache - in simulation mode, all configurations must "
                             f"be present in the cache")
        record = dict(cached[key])
        simulated += sum(float(record.get(n, 0) or 0) for n in ("compile_time", "verification_time", "benchmark_time"))
        results.append(record)
    env = {"device_name": doc.get("device_name", ""), "kernel_name": kernel_name,
           "problem_size": _records.plain(problem_size),
           "simulation": True, "simulated_time": simulated}
    return results, env
