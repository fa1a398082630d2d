"""cutune.kernel_tuner.observers: Kernel Tuner's observers (NVML power and clocks, Nsight Compute counters, PMT,
Tegra, registers) have no counterpart in cutune, which measures kernel time only; importing them says so."""

from ...errors import InputError

raise InputError("kernel_tuner.observers has no counterpart in cutune: it measures kernel time only (no power, "
                 "clocks, counters or custom observers); leave the observers out")
