"""cutune.kernel_spec and cutune.tune_kernel without a GPU: a Kernel Tuner call becomes a spec that `tune` reads the
same way (launch rules, restrictions, the arrays' bytes, the answer), and what cannot be read is refused by name."""

import json
import os
from collections import OrderedDict
from pathlib import Path

import numpy
import pytest

import cutune

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "tune_kernel"
VECTOR_ADD = """
__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def vector_add_call(size=1000):
    a = numpy.arange(size, dtype=numpy.float32)
    b = numpy.full(size, 0.5, dtype=numpy.float32)
    args = [numpy.zeros_like(a), a, b, numpy.int32(size)]
    return args, {"block_size_x": [128 + 64 * i for i in range(15)]}


def test_vector_add_spec(tmp_path, tune_program):
    args, params = vector_add_call()
    path = cutune.kernel_spec("vector_add", VECTOR_ADD, 1000, args, params, folder=tmp_path,
                              answer=[args[1] + args[2], None, None, None])
    spec = json.loads(path.read_text())
    assert spec["kernel"] == "vector_add" and spec["shape"] == ["problem_size_x"]
    assert spec["block"] == ["block_size_x", 1, 1]
    assert spec["grid"] == ["ceil_div(problem_size_x, (block_size_x))", 1, 1]
    assert [a["type"] for a in spec["arguments"]] == ["float*", "float*", "float*", "int"]
    assert spec["arguments"][3]["value"] == 1000
    assert (tmp_path / "arg1.bin").read_bytes() == args[1].tobytes()
    assert (tmp_path / "arg0.expected.bin").read_bytes() == (args[1] + args[2]).tobytes()
    assert spec["arguments"][0]["output"] and "output" not in spec["arguments"][1]
    assert spec["tolerance"] == {"atol": 1e-6, "rtol": 1e-5}  # numpy.allclose's, as Kernel Tuner compares
    space = cutune.space(spec=path)
    assert len(space) == 15
    assert len(cutune.space(spec=path, shape=1000)) == 15  # a 1-D shape as a number
    out = tune_program("space", "--spec", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(space)


def test_arrays_already_written_are_not_written_again(tmp_path):
    args, params = vector_add_call(100_000)
    cutune.kernel_spec("vector_add", VECTOR_ADD, 100_000, args, params, folder=tmp_path)
    written = {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("*.bin")}
    os.utime(tmp_path / "arg1.bin", ns=(1, 1))  # a time no write leaves, to see whether it is written again
    os.utime(tmp_path / "arg2.bin", ns=(1, 1))
    args[2] = args[2].copy()
    args[2][-1] = 7.0  # the last element of b only: compared to the end, it is written
    cutune.kernel_spec("vector_add", VECTOR_ADD, 100_000, args, params, folder=tmp_path)
    assert (tmp_path / "arg1.bin").stat().st_mtime_ns == 1
    assert (tmp_path / "arg2.bin").stat().st_mtime_ns != 1
    assert (tmp_path / "arg2.bin").read_bytes() == args[2].tobytes()
    assert set(written) == {p.name for p in tmp_path.glob("*.bin")}
    cutune.kernel_spec("vector_add", VECTOR_ADD, 1000, [a[:1000] for a in args[:3]] + [numpy.int32(1000)], params,
                       folder=tmp_path)
    assert (tmp_path / "arg1.bin").read_bytes() == args[1][:1000].tobytes()  # another size: written


def test_no_answer_checks_nothing(tmp_path):
    args, params = vector_add_call()
    spec = json.loads(cutune.kernel_spec("vector_add", VECTOR_ADD, 1000, args, params, folder=tmp_path).read_text())
    assert spec["verify"] == {"mode": "none"}
    assert not any(a.get("output") for a in spec["arguments"])


def test_answer_from_a_function_of_the_arguments(tmp_path):
    args, params = vector_add_call()
    seen = []

    def answer(c, a, b, n):
        seen.append((c is not args[0], int(n)))
        return [a + b, None, None, None]

    cutune.kernel_spec("vector_add", VECTOR_ADD, 1000, args, params, folder=tmp_path, answer=answer)
    assert seen == [(True, 1000)]  # called once, on copies
    assert (tmp_path / "arg0.expected.bin").read_bytes() == (args[1] + args[2]).tobytes()


def test_convolution_example_space(tmp_path):
    """Kernel Tuner's 2-D launch rules (grid_div_x/y over two parameters each), a restriction, constant memory: the
    space holds what the restriction and the block's 1024 threads leave of the product."""
    size = 64
    params = OrderedDict(filter_width=[17], filter_height=[17], block_size_x=[16 * i for i in range(1, 9)],
                         block_size_y=[2 ** i for i in range(1, 6)], tile_size_x=[1, 2, 4], tile_size_y=[1, 2, 4],
                         use_padding=[0, 1], read_only=[0, 1])
    restrict = "(block_size_x*tile_size_x + filter_width - 1 + use_padding) * " \
               "(block_size_y*tile_size_y + filter_height - 1) * 4 <= 48 * 1024"
    filt = numpy.ones(17 * 17, dtype=numpy.float32)
    args = [numpy.zeros(size * size, numpy.float32), numpy.zeros((size + 16) ** 2, numpy.float32), filt]
    path = cutune.kernel_spec("convolution_kernel", (EXAMPLES / "convolution.cu").read_text(), (size, size), args,
                              params, folder=tmp_path, grid_div_x=["block_size_x", "tile_size_x"],
                              grid_div_y=["block_size_y", "tile_size_y"], restrictions=[restrict],
                              cmem_args={"d_filter": filt}, compiler_options=[f"-Dimage_width={size}"])
    spec = json.loads(path.read_text())
    assert spec["grid"][:2] == ["ceil_div(problem_size_x, (block_size_x) * (tile_size_x))",
                                "ceil_div(problem_size_y, (block_size_y) * (tile_size_y))"]
    assert spec["arguments"][3] == {"name": "d_filter", "type": "float", "size": 289, "memory": "constant",
                                    "symbol": "d_filter", "fill": {"file": "d_filter.constant.bin"}}
    expected = 0
    for bx in params["block_size_x"]:
        for by in params["block_size_y"]:
            for tx in params["tile_size_x"]:
                for ty in params["tile_size_y"]:
                    for pad in params["use_padding"]:
                        fits = (bx * tx + 16 + pad) * (by * ty + 16) * 4 <= 48 * 1024
                        expected += 2 * (fits and bx * by <= 1024)  # read_only 0, 1
    assert len(cutune.space(spec=path)) == expected > 100
    # The reference configuration is the first that meets the restriction.
    assert spec["reference"]["configuration"]["block_size_x"] == 16


def test_what_cannot_be_read_is_refused(tmp_path):
    args, params = vector_add_call()
    call = dict(kernel_name="vector_add", kernel_source=VECTOR_ADD, problem_size=1000, tune_params=params)
    with pytest.raises(cutune.InputError, match="Python numbers carry no C type"):
        cutune.kernel_spec(arguments=args[:3] + [1000], folder=tmp_path, **call)
    with pytest.raises(cutune.InputError, match="Python function"):
        cutune.kernel_spec(arguments=args, folder=tmp_path, restrictions=[lambda p: all(v > 0 for v in p.values())], **call)
    with pytest.raises(cutune.InputError, match="2 entries for 4 arguments"):
        cutune.kernel_spec(arguments=args, folder=tmp_path, answer=[None, None], **call)
    with pytest.raises(cutune.InputError, match="no configuration"):
        cutune.kernel_spec(arguments=args, folder=tmp_path, restrictions=["block_size_x > 4096"], **call)
    with pytest.raises(cutune.InputError, match="'metrics' has no counterpart"):
        cutune.tune_kernel(arguments=args, folder=tmp_path, metrics={"GB/s": None}, **call)
    with pytest.raises(cutune.InputError, match="CUDA"):
        cutune.tune_kernel(arguments=args, folder=tmp_path, lang="OpenCL", **call)
    with pytest.raises(cutune.InputError, match="smem_args"):
        cutune.kernel_spec(arguments=args, folder=tmp_path, smem_args={"size": lambda p: 4 * p["block_size_x"]}, **call)
    with pytest.raises(cutune.InputError, match="bool"):
        cutune.kernel_spec(arguments=[numpy.zeros(4, numpy.complex64)], folder=tmp_path, **call)


# A source written for Kernel Tuner: stand-alone values under #ifndef kernel_tuner, the untuned block dimensions and
# the grid read as names. Each compile must see Kernel Tuner's values, or a static_assert fails.
KERNEL_TUNER_NAMES = """
#ifndef kernel_tuner
#define tile 7
#define block_size_y 3
#endif
static_assert(kernel_tuner == 1 && (tile == 1 || tile == 2), "the configuration's tile");
static_assert(block_size_y == 1 && block_size_z == 1, "untuned block dimensions are 1");
static_assert(grid_size_x == (1000 + block_size_x * tile - 1) / (block_size_x * tile), "the launch's grid");
static_assert(grid_size_y == 30 && grid_size_z == 1, "no grid_div_y: the problem size itself");
extern "C" __global__ void k(float *out, int n) {
    int i = blockIdx.x * block_size_x * tile + threadIdx.x;
    if (i < n) out[i] = grid_size_x;
}
"""


def test_kernel_tuner_names_are_defined(tmp_path, tune_program):
    """Every compile gets kernel_tuner=1, block_size_x/y/z and grid_size_x/y/z as Kernel Tuner defines them, besides
    the parameters; a name the compiler options define keeps the option's value."""
    args = [numpy.zeros(1000 * 30, numpy.float32), numpy.int32(1000)]
    params = {"block_size_x": [64, 128, 256], "tile": [1, 2]}
    path = cutune.kernel_spec("k", KERNEL_TUNER_NAMES, (1000, 30), args, params, folder=tmp_path,
                              grid_div_x=["block_size_x", "tile"], grid_div_y=[])
    spec = json.loads(path.read_text())
    assert spec["defines"] == {"block_size_y": 1, "block_size_z": 1, "kernel_tuner": 1,
                               "grid_size_x": "ceil_div(1000, (block_size_x) * (tile))", "grid_size_y": 30,
                               "grid_size_z": 1}
    out = tune_program("compile", "--spec", path, "--jobs", 1)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "6 of 6 configurations" in out.stdout

    # The options' own -Dblock_size_z wins (no second definition); a wrong value fails the compile, which shows that
    # the static_asserts are checked.
    for options, ok in (["-Dblock_size_z=1"], True), (["-D", "block_size_z=2"], False):
        folder = tmp_path / str(ok)
        path = cutune.kernel_spec("k", KERNEL_TUNER_NAMES, (1000, 30), args, params, folder=folder,
                                  grid_div_x=["block_size_x", "tile"], grid_div_y=[], compiler_options=options)
        assert "block_size_z" not in json.loads(path.read_text())["defines"]
        out = tune_program("compile", "--spec", path, "--jobs", 1)
        assert (out.returncode == 0) == ok, out.stdout + out.stderr


def test_kernel_tuner_names_follow_block_size_names(tmp_path):
    """With block_size_names, Kernel Tuner defines those names (the tuned one a parameter, the others 1)."""
    args = [numpy.zeros(100, numpy.float32)]
    params = {"nthreads": [32, 64], "kernel_tuner": [1]}
    path = cutune.kernel_spec("k", "extern \"C\" __global__ void k(float *o) {}", "nthreads * 2", args, params,
                              folder=tmp_path, block_size_names=["nthreads", "ny", "nz"])
    spec = json.loads(path.read_text())
    assert spec["block"] == ["nthreads", 1, 1]
    assert spec["defines"] == {"ny": 1, "nz": 1, "grid_size_x": "ceil_div((nthreads * 2), (nthreads))",
                               "grid_size_y": 1, "grid_size_z": 1}
