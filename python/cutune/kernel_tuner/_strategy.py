"""Kernel Tuner's strategy and strategy_options, read as cutune's search: which strategy, how many configurations
(budget) and how many seconds (time budget)."""

from __future__ import annotations

import math
import sys
from typing import Any, Dict, Optional, Tuple

from .. import _cutune
from ..errors import InputError

# Kernel Tuner's strategies that have a cutune strategy of the same kind.
_SAME_KIND = {
    "brute_force": "exhaustive", "random_sample": "random", "simulated_annealing": "annealing",
    "dual_annealing": "annealing", "genetic_algorithm": "genetic", "mls": "local_search", "greedy_mls": "local_search",
    "greedy_ils": "local_search", "ordered_greedy_mls": "local_search", "bayes_opt": "bayes",
}
# Kernel Tuner's other search strategies: cutune searches with its default instead.
_OTHER_SEARCHES = ("basinhopping", "diff_evo", "firefly_algorithm", "minimize", "pso", "skopt", "random_walk",
                   "HybridVNDX", "AdaptiveTabuGreyWolf")
# strategy_options cutune reads; the others tune a Kernel Tuner strategy's own workings.
_READ = ("max_fevals", "time_limit", "fraction")


def choose(strategy: Any, strategy_options: Optional[Dict[str, Any]], space_size: int,
           say: bool = True) -> Tuple[str, int, float]:
    """(cutune strategy, budget in configurations (0: the whole space), time budget in seconds (0: none))."""
    if strategy is not None and not isinstance(strategy, str):
        raise InputError("strategy: a name; a strategy module or object of Kernel Tuner's has no counterpart in cutune "
                         "(its search runs in C++: pick one of its names)")
    options = dict(strategy_options or {})
    for key in options:
        if key not in _READ:
            raise InputError(f"strategy_options['{key}'] has no counterpart in cutune: it tunes a Kernel Tuner "
                             f"strategy's own workings; cutune reads {', '.join(_READ)}")
    name = strategy or "brute_force"
    ours = _cutune.strategies()
    if name in ours:
        chosen = name
    elif name in _SAME_KIND:
        chosen = _SAME_KIND[name]
    elif name in _OTHER_SEARCHES:
        chosen = _cutune.default_strategy()
        if say:
            print(f"cutune: strategy '{name}' searches with cutune's '{chosen}'", file=sys.stderr)
    else:
        raise ValueError(f"Unkown strategy {name}, must be one of: {', '.join(list(_SAME_KIND) + list(_OTHER_SEARCHES))}"
                         f" (or cutune's {', '.join(ours)})")
    budget = 0
    if name == "random_sample":
        fraction = float(options.get("fraction", 0.1))
        if not 0 <= fraction <= 1:
            raise InputError(f"strategy_options['fraction']: between 0 and 1, not {fraction}")
        budget = max(1, math.ceil(space_size * fraction))
    elif "fraction" in options:
        raise InputError("strategy_options['fraction'] is random_sample's")
    if "max_fevals" in options:
        fevals = options["max_fevals"]
        if isinstance(fevals, bool) or not isinstance(fevals, int) or fevals < 1:
            raise InputError(f"strategy_options['max_fevals']: a positive integer, not {fevals!r}")
        budget = min(fevals, space_size)
    if budget >= space_size:
        budget = 0
    time_limit = float(options.get("time_limit", 0.0))
    if time_limit < 0:
        raise InputError(f"strategy_options['time_limit']: seconds, not {time_limit}")
    return chosen, budget, time_limit
