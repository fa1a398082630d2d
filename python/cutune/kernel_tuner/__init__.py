"""cutune.kernel_tuner: Kernel Tuner's interface over cutune, so that a Kernel Tuner script switches with one line:

    import cutune.kernel_tuner as kernel_tuner        # in place of: import kernel_tuner
    from cutune.kernel_tuner import tune_kernel, run_kernel
    from cutune.kernel_tuner.util import get_best_config
    from cutune.kernel_tuner.file_utils import store_output_file, store_metadata_file

tune_kernel returns Kernel Tuner's (results, env) and stores every measurement in cutune's database as well; what
Kernel Tuner has and cutune cannot do is refused by name with the reason. See docs/python.md, "Coming from Kernel
Tuner"."""

from . import file_utils, strategies, util
from .interface import run_kernel, tune_kernel

__all__ = ["tune_kernel", "run_kernel", "util", "file_utils", "strategies"]
