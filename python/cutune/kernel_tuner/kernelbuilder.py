"""cutune.kernel_tuner.kernelbuilder: Kernel Tuner's PythonKernel has no counterpart here; importing it says what
does the same in cutune."""

from ..errors import InputError

raise InputError("kernel_tuner.kernelbuilder (PythonKernel) has no counterpart in cutune.kernel_tuner: run a "
                 "configuration with run_kernel, or launch the tuned best with cutune.Runtime(db).kernel(spec, shape)")
