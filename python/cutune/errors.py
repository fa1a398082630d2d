"""cutune's exceptions. Their messages are those of the `tune` command."""


class Error(RuntimeError):
    """Anything cutune reports as an error."""


class InputError(Error, ValueError):
    """A bad argument, option, shape or file (what `tune` reports as a usage error)."""


class SpecError(Error, ValueError):
    """A kernel spec (or T1 file) that cannot be used; the message names the field at fault."""


class DatabaseError(Error):
    """A tuning database that cannot be read or written."""


class CudaError(Error):
    """The CUDA driver failed: a kernel that does not compile or load, a failed launch."""


class NoDeviceError(CudaError):
    """There is no usable GPU (no driver, or no device)."""
