"""cutune.kernel_tuner on a GPU: Kernel Tuner's tune_kernel returning (results, env) with metrics, an answer, a
verify function and a cache that a second call resumes; run_kernel returning the outputs; a reduction whose problem
size names a parameter. Skipped without a GPU."""

import json

import numpy
import pytest

import cutune.kernel_tuner as kernel_tuner
from conftest import has_gpu

if not has_gpu():
    pytest.skip("no GPU on this machine (/dev/nvidia0 missing)", allow_module_level=True)

VECTOR_ADD = """
__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""
# Kernel Tuner's reduction example in small: each of num_blocks blocks writes one partial sum.
PARTIAL_SUM = """
__global__ void sum_floats(float *sum_global, const float *x, int n) {
    __shared__ float sh[block_size_x];
    float s = 0.0f;
    for (int i = blockIdx.x * block_size_x + threadIdx.x; i < n; i += num_blocks * block_size_x) s += x[i];
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int k = block_size_x / 2; k > 0; k /= 2) {
        if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) sum_global[blockIdx.x] = sh[0];
}
"""
SIZE = 1 << 20
SIZES = [128 + 64 * i for i in range(15)]


def vector_add_args():
    rng = numpy.random.default_rng(5)
    a = rng.standard_normal(SIZE).astype(numpy.float32)
    b = rng.standard_normal(SIZE).astype(numpy.float32)
    return [numpy.zeros_like(a), a, b, numpy.int32(SIZE)]


def test_results_env_metrics_and_cache(tmp_path, capsys):
    args = vector_add_args()
    metrics = {"GB/s": lambda p: SIZE * 12 / 1e9 / (p["time"] / 1e3), "TB/s": "GB/s / 1000"}
    call = dict(answer=[args[1] + args[2], None, None, None], metrics=metrics, iterations=5,
                cache=str(tmp_path / "vector_add"), db=tmp_path / "k.db")
    results, env = kernel_tuner.tune_kernel("vector_add", VECTOR_ADD, SIZE, args, {"block_size_x": SIZES}, **call)
    assert sorted(r["block_size_x"] for r in results) == SIZES
    for r in results:
        assert "__error__" not in r and len(r["times"]) == 5
        assert r["time"] == pytest.approx(sum(r["times"]) / 5)
        assert r["TB/s"] == pytest.approx(r["GB/s"] / 1000) and r["GB/s"] > 0
    assert env["device_name"] and env["iterations"] == 5 and env["problem_size"] == SIZE
    assert env["best_config"] == min(results, key=lambda r: r["time"])
    json.dumps([results, env])
    doc = json.loads((tmp_path / "vector_add.json").read_text())
    assert doc["device_name"] == env["device_name"] and len(doc["cache"]) == len(SIZES)
    assert doc["cache"]["512"]["GB/s"] == next(r["GB/s"] for r in results if r["block_size_x"] == 512)
    # Again with the cache: nothing measured, the cache's records come back.
    again, env2 = kernel_tuner.tune_kernel("vector_add", VECTOR_ADD, SIZE, args, {"block_size_x": SIZES}, **call)
    assert env2["cutune_evaluated"] == 0
    assert {r["block_size_x"]: r["time"] for r in again} == {r["block_size_x"]: r["time"] for r in results}
    assert "BEST PERFORMING CONFIGURATION FOR OBJECTIVE time:" in capsys.readouterr().out


def test_wrong_answer_raises_kernel_tuners_error(tmp_path):
    args = vector_add_args()
    with pytest.raises(RuntimeError, match="Kernel result verification failed for: block_size_x="):
        kernel_tuner.tune_kernel("vector_add", VECTOR_ADD, SIZE, args, {"block_size_x": SIZES[:3]},
                                 answer=[args[1] - args[2], None, None, None], db=tmp_path / "k.db", quiet=True)


def test_run_kernel_returns_the_arguments(tmp_path):
    args = vector_add_args()
    out = kernel_tuner.run_kernel("vector_add", VECTOR_ADD, (SIZE, 1), args, {"block_size_x": 256})
    assert len(out) == 4 and out[3] == SIZE
    assert numpy.array_equal(out[0], args[1] + args[2]) and numpy.array_equal(out[1], args[1])
    assert not args[0].any()  # the caller's arrays are left as they were


# What the kernel sees of Kernel Tuner's names: the stand-alone values under #ifndef kernel_tuner must not apply.
NAMES = """
#ifndef kernel_tuner
#define kernel_tuner 0
#define block_size_y 5
#endif
extern "C" __global__ void names(int *out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = kernel_tuner; out[1] = block_size_x; out[2] = block_size_y; out[3] = block_size_z;
        out[4] = grid_size_x; out[5] = grid_size_y; out[6] = gridDim.x; out[7] = blockDim.y;
    }
}
"""


def test_run_kernel_defines_kernel_tuners_names(tmp_path):
    """kernel_tuner=1, the untuned block size 1 and the launch's grid, as Kernel Tuner defines them."""
    out = numpy.full(8, -1, numpy.int32)
    got = kernel_tuner.run_kernel("names", NAMES, (1000, 3), [out], {"block_size_x": 64}, grid_div_y=[])
    assert got[0].tolist() == [1, 64, 1, 1, 16, 3, 16, 1]


def test_reduction_with_a_verify_function(tmp_path):
    """problem_size "num_blocks" with grid_div_x=[]: num_blocks blocks; the partial sums checked by a function."""
    x = numpy.random.default_rng(7).random(SIZE).astype(numpy.float32)
    params = {"block_size_x": [64, 256], "num_blocks": [32, 128, 1024]}
    args = [numpy.zeros(1024, numpy.float32), x, numpy.int32(SIZE)]
    seen = []

    def verify(answer, result, atol=None):
        seen.append(result[1] is None and result[2] is None)
        return numpy.isclose(answer[0], numpy.sum(result[0]), rtol=1e-4)

    results, _ = kernel_tuner.tune_kernel("sum_floats", PARTIAL_SUM, "num_blocks", args, params, grid_div_x=[],
                                          answer=[numpy.sum(x, dtype=numpy.float64), None, None], verify=verify,
                                          db=tmp_path / "k.db", quiet=True)
    assert len(results) == 6 and len(seen) == 6 and all(seen)
    with pytest.raises(RuntimeError, match="verification failed"):
        kernel_tuner.tune_kernel("sum_floats", PARTIAL_SUM, "num_blocks", args, params, grid_div_x=[],
                                 answer=[1.0, None, None], verify=lambda a, r, atol=None: False,
                                 db=tmp_path / "k.db", quiet=True)
    out = kernel_tuner.run_kernel("sum_floats", PARTIAL_SUM, "num_blocks", args,
                                  {"block_size_x": 256, "num_blocks": 128}, grid_div_x=[])
    assert numpy.isclose(out[0][:128].sum(), x.sum(dtype=numpy.float64), rtol=1e-4) and not out[0][128:].any()


def test_random_sample_narrows_the_run(tmp_path):
    args = vector_add_args()
    results, env = kernel_tuner.tune_kernel("vector_add", VECTOR_ADD, SIZE, args, {"block_size_x": SIZES},
                                            strategy="random_sample", strategy_options={"max_fevals": 4},
                                            db=tmp_path / "k.db", quiet=True)
    assert len(results) == 4 and env["cutune_strategy"] == "random"
