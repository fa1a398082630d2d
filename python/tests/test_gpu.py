"""Tuned kernels launched from Python on a GPU: transpose and gemm_bf16 on PyTorch tensors, transpose and gemm_f16 on
CuPy arrays, checked against PyTorch (and CuPy). Skipped without a GPU, PyTorch or CuPy."""

import gc
import time

import pytest

import cutune
from conftest import has_gpu

if not has_gpu():
    pytest.skip("no GPU on this machine (/dev/nvidia0 missing)", allow_module_level=True)
torch = pytest.importorskip("torch")

TRANSPOSE = "1000x2048"   # not a multiple of the tiles: the edges count
GEMM = "384x512x256"


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """One database with transpose, gemm_bf16 and gemm_f16 tuned at a few configurations each."""
    folder = tmp_path_factory.mktemp("gpu")
    db = folder / "cutune.db"
    seen = []
    result = cutune.tune("transpose", TRANSPOSE, budget=8, db=db, cache_dir=folder / "cache",
                         progress=lambda *p: seen.append(p))
    assert len(result) == 1 and result.best is not None and result.best.ok, result
    assert seen and seen[-1][0] == TRANSPOSE and seen[-1][1] == seen[-1][2] == 8
    for kernel in ("gemm_bf16", "gemm_f16"):
        result = cutune.tune(kernel, [(384, 512, 256)], budget=6, db=db, cache_dir=folder / "cache", progress=False)
        assert result[GEMM].best is not None, result
    again = cutune.tune("transpose", TRANSPOSE, budget=8, db=db, cache_dir=folder / "cache", progress=False)
    assert again[0].resumed == 8 and again[0].evaluated == 0  # resumed from the database
    return db, folder / "cache"


@pytest.fixture(scope="module")
def runtime(tuned):
    db, cache = tuned
    return cutune.Runtime(db, cache_dir=cache)


def gemm_scratch(kernel, zeros):
    sizes = {a["name"]: a["elements"] for a in kernel.arguments}
    return zeros(sizes["counters"], "uint32"), zeros(sizes["workspace"], "float32")


def test_best_is_the_tuned_one(tuned, runtime):
    db, _ = tuned
    best = cutune.best("transpose", TRANSPOSE, db=db)
    assert best.rule == "exact shape" and best.result.ok
    kernel = runtime.kernel("transpose", TRANSPOSE)
    assert kernel.config == best.config and kernel.choice["rule"] == "exact shape"


def test_transpose_on_torch(runtime):
    m, n = map(int, TRANSPOSE.split("x"))
    kernel = runtime.kernel("transpose", TRANSPOSE)
    inp = torch.randn(m, n, device="cuda")
    out = torch.empty(n, m, device="cuda")
    kernel(out, inp)  # M and N: the spec's values at the shape
    torch.cuda.synchronize()
    assert torch.equal(out, inp.t())

    stream = torch.cuda.Stream()
    out2 = torch.zeros(n, m, device="cuda")
    with torch.cuda.stream(stream):
        kernel(out2, inp)  # on the current PyTorch stream
    stream.synchronize()
    assert torch.equal(out2, inp.t())
    out3 = torch.zeros(n, m, device="cuda")
    kernel(out3, inp, stream=stream)
    stream.synchronize()
    assert torch.equal(out3, inp.t())


def test_gemm_bf16_on_torch(runtime):
    m, n, k = map(int, GEMM.split("x"))
    gemm = runtime.kernel("gemm_bf16", GEMM)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    gemm(A=a, B=b, C=c, counters=gemm.zeros("counters"), workspace=gemm.zeros("workspace"))
    torch.cuda.synchronize()
    expected = torch.matmul(a.float(), b.float())
    assert torch.allclose(c.float(), expected, rtol=2 ** -7, atol=1e-2 * k ** 0.5)


def test_torch_arguments_are_checked(runtime):
    m, n = map(int, TRANSPOSE.split("x"))
    kernel = runtime.kernel("transpose", TRANSPOSE)
    inp = torch.randn(m, n, device="cuda")
    with pytest.raises(cutune.InputError, match="'out' .* got float64"):
        kernel(torch.empty(n, m, device="cuda", dtype=torch.float64), inp)
    with pytest.raises(cutune.InputError, match="in host memory"):
        kernel(torch.empty(n, m), inp)
    with pytest.raises(cutune.InputError, match="has 100 elements"):
        kernel(torch.empty(100, device="cuda"), inp)
    with pytest.raises(cutune.InputError, match="not contiguous"):
        kernel(torch.empty(m, n, device="cuda").t(), inp)
    with pytest.raises(cutune.InputError, match="'M' .* expected an integer"):
        kernel(torch.empty(n, m, device="cuda"), inp, 1000.0)
    with pytest.raises(cutune.InputError, match="'M' .* out of range"):
        kernel(torch.empty(n, m, device="cuda"), inp, 2 ** 40)


def test_raw_addresses(runtime):
    m, n = map(int, TRANSPOSE.split("x"))
    kernel = runtime.kernel("transpose", TRANSPOSE)
    inp = torch.randn(m, n, device="cuda")
    out = torch.empty(n, m, device="cuda")
    kernel(out.data_ptr(), inp.data_ptr(), m, n, stream=torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    assert torch.equal(out, inp.t())


def test_cupy(runtime):
    cupy = pytest.importorskip("cupy")
    m, n = map(int, TRANSPOSE.split("x"))
    inp = cupy.random.standard_normal((m, n), dtype=cupy.float32)
    out = cupy.empty((n, m), dtype=cupy.float32)
    runtime.kernel("transpose", TRANSPOSE)(out, inp)
    cupy.cuda.get_current_stream().synchronize()
    assert bool((out == inp.T).all())

    m, n, k = map(int, GEMM.split("x"))
    gemm = runtime.kernel("gemm_f16", GEMM)
    a = cupy.random.standard_normal((m, k)).astype(cupy.float16)
    b = cupy.random.standard_normal((k, n)).astype(cupy.float16)
    c = cupy.empty((m, n), dtype=cupy.float16)
    counters, workspace = gemm_scratch(gemm, lambda size, t: cupy.zeros(size, dtype=t))
    assert counters.size == gemm.zeros("counters", "cupy").size
    gemm(A=a, B=b, C=c, counters=counters, workspace=workspace)
    cupy.cuda.get_current_stream().synchronize()
    expected = torch.matmul(torch.as_tensor(a, device="cuda").float(), torch.as_tensor(b, device="cuda").float())
    assert torch.allclose(torch.as_tensor(c, device="cuda").float(), expected, rtol=2 ** -9, atol=1e-2 * k ** 0.5)


def test_dlpack(runtime):
    """An object that offers only __dlpack__ (here a PyTorch tensor behind a wrapper)."""
    class OnlyDlpack:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, **kwargs):
            return self.t.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    m, n = map(int, TRANSPOSE.split("x"))
    inp = torch.randn(m, n, device="cuda")
    out = torch.empty(n, m, device="cuda")
    runtime.kernel("transpose", TRANSPOSE)(OnlyDlpack(out), OnlyDlpack(inp))
    torch.cuda.synchronize()
    assert torch.equal(out, inp.t())


def test_untuned_shapes_are_wanted(tuned, tune_program):
    """A Runtime records the shapes it had no result of their own for, with how often each was asked for; the
    database lists them for `tune wanted` and `tune --wanted`."""
    db, cache = tuned
    rt = cutune.Runtime(db, cache_dir=cache)
    assert rt.kernel("transpose", TRANSPOSE).choice["rule"] == "exact shape"
    for _ in range(3):
        assert rt.kernel("transpose", "999x777").choice["rule"] == "predicted"
    wanted = rt.wanted()
    assert [(w["kernel"], w["shape"], w["count"]) for w in wanted] == [("transpose", "999x777", 3)]
    path = db.parent / "wanted.json"
    rt.save_wanted(path)
    assert "999x777" in path.read_text()
    del rt  # the counts of repeated requests reach the database when the Runtime ends
    gc.collect()
    out = tune_program("wanted", "--db", db)
    assert out.returncode == 0, out.stderr
    assert "999x777" in out.stdout and " 3 " in out.stdout, out.stdout


def test_tuning_on_demand(tmp_path):
    """Runtime(tune_budget=...): an untuned shape runs the fallback at once and is tuned in the background (the
    package's `tune`); a later kernel() returns the tuned kernel, whose output is right, and the first one still
    launches; a new Runtime finds the shape tuned and tunes nothing."""
    db = tmp_path / "od.db"
    cutune.tune("transpose", "64x64", budget=1, db=db, cache_dir=tmp_path / "cache", progress=False)  # another shape
    rt = cutune.Runtime(db, cache_dir=tmp_path / "cache", tune_budget=4)
    shape = "1000x700"
    first = rt.kernel("transpose", shape)
    assert first.choice["rule"] != "exact shape"
    inp = torch.randn(1000, 700, device="cuda")
    out = torch.empty(700, 1000, device="cuda")
    kernel = first
    for _ in range(3600):
        out.fill_(-1)
        kernel(out, inp)
        torch.cuda.synchronize()
        assert torch.equal(out, inp.t())
        if kernel.choice["rule"] == "exact shape":
            break
        time.sleep(0.05)
        kernel = rt.kernel("transpose", shape)
    assert kernel.choice["rule"] == "exact shape", "not tuned within 180 s"
    assert kernel is not first and rt.kernel("transpose", shape) is kernel
    out.fill_(-1)
    first(out, inp)
    torch.cuda.synchronize()
    assert torch.equal(out, inp.t())
    again = cutune.Runtime(db, cache_dir=tmp_path / "cache", tune_budget=4)
    assert again.kernel("transpose", shape).choice["rule"] == "exact shape"
    assert again.wanted() == []
