"""A Kernel's argument checks, over a stand-in for the native kernel (no GPU): what each array must be, which
arguments may be left out, which stream a launch goes on."""

import pytest

import cutune
from cutune import Kernel

np = pytest.importorskip("numpy")


class FakeNative:
    """Describes its arguments as cutune._Kernel does and records launches instead of making them."""

    name = "scale"
    shape = "64x32"
    ordinal = 0
    config = {"BLOCK": 128}

    def __init__(self):
        self.launches = []

    def arguments(self):
        def arg(name, kind, dtype="float32", elements=0, output=False, buffer="", value=None):
            return dict(name=name, kind=kind, dtype=dtype, elements=elements, output=output, buffer=buffer, value=value)
        return [arg("out", "buffer", elements=2048, output=True), arg("in", "buffer", elements=2048),
                arg("M", "scalar", "int32", value=64), arg("alpha", "scalar", value=1.0),
                arg("in_map", "tensor_map", buffer="in"), arg("table", "constant", "int32", elements=16)]

    def launch(self, stream, values):
        self.launches.append((stream, list(values)))


@pytest.fixture
def kernel():
    return Kernel(FakeNative())


def launched(kernel):
    return kernel._native.launches[-1]


def test_positional_and_defaults(kernel):
    kernel(4096, 8192, table=1024)
    assert launched(kernel) == (0, [4096, 8192, 64, 1.0, 8192, 1024])
    kernel(4096, 8192, 7, 2.5, 16, 32, stream=77)
    assert launched(kernel) == (77, [4096, 8192, 7, 2.5, 16, 32])


def test_by_name(kernel):
    kernel(out=4096, table=1024, alpha=0.5, **{"in": 8192})
    assert launched(kernel) == (0, [4096, 8192, 64, 0.5, 8192, 1024])


def test_argument_list_errors(kernel):
    with pytest.raises(cutune.InputError, match="needs its array arguments in, table"):
        kernel(4096)
    with pytest.raises(cutune.InputError, match="takes 6 arguments, got 7"):
        kernel(1, 2, 3, 4, 5, 6, 7)
    with pytest.raises(cutune.InputError, match="has no argument 'beta'"):
        kernel(1, 2, table=3, beta=1.0)
    with pytest.raises(cutune.InputError, match="'out' of scale given twice"):
        kernel(1, 2, table=3, out=4)
    with pytest.raises(cutune.InputError, match="16-byte aligned"):
        kernel(4096, 8200, table=1024)
    with pytest.raises(cutune.InputError, match="address -1 is negative"):
        kernel(-1, 8192, table=1024)
    with pytest.raises(cutune.InputError, match="expected a PyTorch tensor.*got str"):
        kernel("out", 8192, table=1024)
    assert kernel._native.launches == []


def test_arrays_are_checked_against_the_spec(kernel):
    table = np.arange(16, dtype=np.int32)
    with pytest.raises(cutune.InputError, match=r"argument 'out' of scale at 64x32 \(float32 array\): in host memory, "
                                                r"the kernel runs on GPU 0"):
        kernel(np.zeros(2048, np.float32), 8192, table=table)
    with pytest.raises(cutune.InputError, match="'out' .* got float64"):
        kernel(np.zeros(2048), 8192, table=table)
    with pytest.raises(cutune.InputError, match="has 2000 elements, the kernel uses 2048"):
        kernel(np.zeros(2000, np.float32), 8192, table=table)
    with pytest.raises(cutune.InputError, match="not contiguous"):
        kernel(np.zeros((64, 64), np.float32)[:, ::2], 8192, table=table)
    with pytest.raises(cutune.InputError, match="'table' .* got int64"):
        kernel(4096, 8192, table=np.arange(16))
    assert kernel._native.launches == []
    # Constant memory is copied from wherever its data is: host memory will do.
    kernel(4096, 8192, table=table)
    assert launched(kernel)[1][5] == table.ctypes.data


def test_streams(kernel):
    class TorchLikeStream:
        cuda_stream = 1234

    class ProtocolStream:
        def __cuda_stream__(self):
            return (0, 99)

    kernel(1024, 8192, table=2048, stream=TorchLikeStream())
    assert launched(kernel)[0] == 1234
    kernel(1024, 8192, table=2048, stream=ProtocolStream())
    assert launched(kernel)[0] == 99
    with pytest.raises(cutune.InputError, match="stream: expected a CUDA stream"):
        kernel(1024, 8192, table=2048, stream="default")


def test_description(kernel):
    assert [a["name"] for a in kernel.arguments] == ["out", "in", "M", "alpha", "in_map", "table"]
    assert kernel.config == {"BLOCK": 128}
    assert repr(kernel) == "<cutune.Kernel scale at 64x32: BLOCK=128>"


class FakeFp8Native(FakeNative):
    """An FP8 GEMM's arguments, as the native kernel describes them."""

    name = "gemm_fp8"

    def arguments(self):
        def arg(name, dtype, elements):
            return dict(name=name, kind="buffer", dtype=dtype, elements=elements, output=False, buffer="", value=None)
        return [arg("A", "float8_e4m3", 64), arg("B", "float8_e5m2", 64)]


class DeviceArray:
    """A stand-in for a GPU array of another framework (__cuda_array_interface__ at address 0: no memory behind it)."""

    def __init__(self, typestr, count):
        self.__cuda_array_interface__ = dict(typestr=typestr, data=(0, False), shape=(count,), version=3)


def test_float8_takes_its_codes_as_bytes_and_nothing_wider():
    fp8 = Kernel(FakeFp8Native())
    fp8(DeviceArray("|u1", 64), DeviceArray("|u1", 64))  # frameworks without an FP8 type: the raw codes
    assert launched(fp8) == (0, [0, 0])
    with pytest.raises(cutune.InputError, match=r"argument 'A' of gemm_fp8 at 64x32 \(float8_e4m3 array\): got int8"):
        fp8(DeviceArray("|i1", 64), DeviceArray("|u1", 64))
    with pytest.raises(cutune.InputError, match=r"argument 'B' .*: got float16"):
        fp8(DeviceArray("|u1", 64), DeviceArray("<f2", 64))
    with pytest.raises(cutune.InputError, match="has 63 elements, the kernel uses 64"):
        fp8(DeviceArray("|u1", 63), DeviceArray("|u1", 64))
