"""cutune.kernel_tuner.accuracy: Kernel Tuner's tunable precision and accuracy observers have no counterpart in
cutune (its arguments have one element type, its outputs are compared with an answer); importing them says so."""

from ..errors import InputError

raise InputError("kernel_tuner.accuracy (TunablePrecision, AccuracyObserver) has no counterpart in cutune: an "
                 "argument has one element type, and outputs are checked against an answer or a verify function")
