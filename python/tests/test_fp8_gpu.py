"""The FP8 GEMMs tuned and launched from Python on a Hopper GPU: PyTorch's float8_e4m3fn / float8_e5m2 tensors and the
same codes as uint8 bytes (frameworks without an FP8 type), checked against the scaled product computed by PyTorch in
FP32. Skipped without a GPU of compute capability 9.0, or without PyTorch's FP8 types."""

import pytest

import cutune
from conftest import has_gpu

if not has_gpu():
    pytest.skip("no GPU on this machine (/dev/nvidia0 missing)", allow_module_level=True)
torch = pytest.importorskip("torch")
if not hasattr(torch, "float8_e4m3fn") or not torch.cuda.is_available():
    pytest.skip("this PyTorch has no FP8 types or no CUDA", allow_module_level=True)
if torch.cuda.get_device_capability() < (9, 0):
    pytest.skip("the FP8 GEMMs need wgmma (compute capability 9.0)", allow_module_level=True)

SHAPE = (256, 384, 512)  # M, N, K: K a multiple of 16, as TMA needs
KERNELS = {"gemm_fp8": torch.float8_e4m3fn, "gemm_fp8_e5m2": torch.float8_e5m2}


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fp8")
    db = folder / "cutune.db"
    for kernel in KERNELS:
        result = cutune.tune(kernel, [SHAPE], budget=3, db=db, cache_dir=folder / "cache", progress=False)
        assert result[0].best is not None and result[0].best.ok, result
    return cutune.Runtime(db, cache_dir=folder / "cache")


def operands(b_type, seed):
    m, n, k = SHAPE
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda", generator=g).to(b_type)  # N x K: "TN", as cuBLASLt takes FP8
    bias = torch.randn(n, device="cuda", generator=g).to(torch.bfloat16)
    return a, b, bias


def expected(a, b, alpha, scale_a, scale_b, bias, beta=0.0, c=None):
    out = alpha * scale_a * scale_b * (a.float() @ b.float().t()) + bias.float()
    return out + beta * c.float() if c is not None else out


def close(c, want, a, b, scale):
    """C rounded once to BF16 (half a unit in the last place: 2^-9 relative, allowed 2^-7) after sums whose error
    grows with the sum of the products' magnitudes: the tensor cores add FP8 products with fewer bits than FP32 keeps
    between promotions (allowed 2^-10 of that sum, about 2^-3 of its mantissa; the spec's fill keeps verification's
    sums small enough for its absolute tolerance, PyTorch's randn here does not)."""
    magnitude = scale * (a.float().abs() @ b.float().abs().t())
    error = (c.float() - want).abs()
    assert bool((error <= 2 ** -7 * want.abs() + 2 ** -10 * magnitude + 1e-3).all()), error.max()


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_fp8_tensors(runtime, kernel):
    m, n, _ = SHAPE
    gemm = runtime.kernel(kernel, SHAPE)
    a, b, bias = operands(KERNELS[kernel], seed=1)
    scale_a = torch.tensor([0.5], device="cuda")
    scale_b = torch.tensor([1.75], device="cuda")
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    gemm(A=a, B=b, scale_a=scale_a, scale_b=scale_b, bias=bias, C=c, alpha=1.5, counters=gemm.zeros("counters"),
         workspace=gemm.zeros("workspace"))
    torch.cuda.synchronize()
    close(c, expected(a, b, 1.5, 0.5, 1.75, bias), a, b, 1.5 * 0.5 * 1.75)


def test_fp8_codes_as_bytes_and_beta(runtime):
    """The same codes as uint8 arrays give the same bits; beta adds the C already there; bias may be left out (0)."""
    m, n, _ = SHAPE
    gemm = runtime.kernel("gemm_fp8", SHAPE)
    a, b, bias = operands(torch.float8_e4m3fn, seed=2)
    ones = torch.ones(1, device="cuda")
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    gemm(A=a, B=b, scale_a=ones, scale_b=ones, bias=bias, C=c, counters=gemm.zeros("counters"),
         workspace=gemm.zeros("workspace"))
    c_bytes = torch.empty_like(c)
    gemm(A=a.view(torch.uint8), B=b.view(torch.uint8), scale_a=ones, scale_b=ones, bias=bias, C=c_bytes,
         counters=gemm.zeros("counters"), workspace=gemm.zeros("workspace"))
    torch.cuda.synchronize()
    assert torch.equal(c, c_bytes)

    before = torch.randn(m, n, device="cuda").to(torch.bfloat16)
    c2 = before.clone()
    gemm(A=a, B=b, scale_a=ones, scale_b=ones, bias=0, C=c2, beta=-0.5, counters=gemm.zeros("counters"),
         workspace=gemm.zeros("workspace"))
    torch.cuda.synchronize()
    close(c2, expected(a, b, 1.0, 1.0, 1.0, torch.zeros(n, device="cuda"), beta=-0.5, c=before), a, b, 1.0)

    with pytest.raises(cutune.InputError, match="got float16"):
        gemm(A=a.view(torch.float16), B=b, scale_a=ones, scale_b=ones, bias=bias, C=c)
