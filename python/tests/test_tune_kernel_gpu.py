"""cutune.tune_kernel on a GPU: Kernel Tuner's vector_add and a 2-D convolution tuned on numpy arrays against their
answers, a wrong answer failing every configuration, and the best launched through cutune.Runtime on PyTorch
tensors. Skipped without a GPU or PyTorch."""

from collections import OrderedDict
from pathlib import Path

import numpy
import pytest

import cutune
from conftest import has_gpu

if not has_gpu():
    pytest.skip("no GPU on this machine (/dev/nvidia0 missing)", allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "tune_kernel"
VECTOR_ADD = """
__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""
SIZE = 1 << 20


def vector_add(tmp_path, answer):
    rng = numpy.random.default_rng(3)
    a = rng.standard_normal(SIZE).astype(numpy.float32)
    b = rng.standard_normal(SIZE).astype(numpy.float32)
    args = [numpy.zeros_like(a), a, b, numpy.int32(SIZE)]
    params = {"block_size_x": [128 + 64 * i for i in range(15)]}
    result = cutune.tune_kernel("vector_add", VECTOR_ADD, SIZE, args, params, answer=answer(a, b),
                                db=tmp_path / "cutune.db", cache_dir=tmp_path / "cache", progress=False)
    return result, a, b


def test_vector_add_tunes_and_launches(tmp_path):
    result, a, b = vector_add(tmp_path, lambda a, b: [a + b, None, None, None])
    assert result.best is not None and result.best.ok, result
    assert result[0].evaluated == 15
    torch = pytest.importorskip("torch")
    kernel = cutune.Runtime(tmp_path / "cutune.db", cache_dir=tmp_path / "cache").kernel(result.spec, SIZE)
    assert kernel.choice["rule"] == "exact shape" and kernel.config == result.best.config
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    tc = torch.full_like(ta, float("nan"))
    kernel(tc, ta, tb)  # n left out: the spec's value
    torch.cuda.synchronize()
    assert torch.equal(tc, ta + tb)


def test_a_wrong_answer_fails_every_configuration(tmp_path):
    result, _, _ = vector_add(tmp_path, lambda a, b: [a - b, None, None, None])
    assert result.best is None, result


def test_convolution_example(tmp_path):
    size = 256
    rng = numpy.random.default_rng(5)
    image = rng.standard_normal((size + 16) ** 2).astype(numpy.float32)
    filt = rng.standard_normal(17 * 17).astype(numpy.float32)
    expected = numpy.zeros((size, size))
    wide = image.reshape(size + 16, size + 16).astype(numpy.float64)
    for fy in range(17):
        for fx in range(17):
            expected += filt[fy * 17 + fx] * wide[fy:fy + size, fx:fx + size]
    params = OrderedDict(filter_width=[17], filter_height=[17], block_size_x=[16, 32, 64], block_size_y=[2, 4, 8],
                         tile_size_x=[1, 2], tile_size_y=[1, 2], use_padding=[0, 1], read_only=[0, 1])
    args = [numpy.zeros(size * size, numpy.float32), image, filt]
    result = cutune.tune_kernel("convolution_kernel", (EXAMPLES / "convolution.cu").read_text(), (size, size), args,
                                params, grid_div_x=["block_size_x", "tile_size_x"],
                                grid_div_y=["block_size_y", "tile_size_y"], cmem_args={"d_filter": filt},
                                answer=[expected.astype(numpy.float32).ravel(), None, None], atol=1e-3, budget=24,
                                compiler_options=[f"-Dimage_width={size}", f"-Dimage_height={size}"],
                                db=tmp_path / "cutune.db", cache_dir=tmp_path / "cache", progress=False)
    assert result.best is not None and result.best.ok, result
    assert result[0].evaluated == 24
