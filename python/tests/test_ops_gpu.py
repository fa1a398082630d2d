"""cutune.ops on a GPU: torch.ops.cutune.matmul against torch.matmul (bf16 and f16, tuned and untuned shapes, odd
ones), its errors, torch.compile(fullgraph=True) keeping it in the graph, CUDA graph capture and replay, tuning when
asked and on demand. Skipped without a GPU or PyTorch 2.4."""

import pytest

import cutune
from conftest import has_gpu

if not has_gpu():
    pytest.skip("no GPU on this machine (/dev/nvidia0 missing)", allow_module_level=True)
torch = pytest.importorskip("torch")
try:
    import cutune.ops as ops
except ImportError as e:
    pytest.skip(str(e), allow_module_level=True)

TUNED = [(384, 512, 256), (128, 1024, 4096)]
ODD = [(1, 4096, 1024), (77, 200, 136), (3, 5, 8), (1000, 24, 40)]


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    """A database with matmul_bf16 and matmul_f16 tuned at TUNED through cutune.ops.tune (every implementation)."""
    folder = tmp_path_factory.mktemp("ops")
    ops.configure(folder / "ops.db", cache_dir=folder / "cache")  # made by the first tuning below
    for dtype in (torch.bfloat16, torch.float16):
        result = ops.tune(TUNED, dtype, budget=4)
        stem = "gemm_bf16" if dtype == torch.bfloat16 else "gemm_f16"
        assert {r.kernel for r in result} == {stem, stem + "_cublaslt", stem + "_cublaslt_config"}
        assert all(r.best is not None for r in result), result
    return folder


@pytest.fixture
def configured(database):
    ops.configure(database / "ops.db", cache_dir=database / "cache")
    return database


def operands(m, n, k, dtype, batch=()):
    torch.manual_seed(m * 7 + n * 3 + k)
    return (torch.randn(*batch, m, k, device="cuda", dtype=dtype), torch.randn(k, n, device="cuda", dtype=dtype))


def check(out, a, b):
    """Within bf16/f16 rounding of the FP32 product, and no farther from it than twice torch.matmul's own result."""
    exact = torch.matmul(a.float(), b.float())
    theirs = (torch.matmul(a, b).float() - exact).abs().max().item()
    ours = (out.float() - exact).abs().max().item()
    assert out.shape == exact.shape and out.dtype == a.dtype
    assert ours <= 2 * theirs + 1e-3 * a.shape[-1] ** 0.5, (ours, theirs)
    torch.testing.assert_close(out.float(), exact, rtol=2 ** -6, atol=1e-2 * a.shape[-1] ** 0.5)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape", TUNED + ODD)
def test_matches_torch_matmul(configured, dtype, shape):
    a, b = operands(*shape, dtype)
    out = ops.matmul(a, b)
    again = torch.ops.cutune.matmul(a, b)  # the operator itself; the second call takes the prepared launch
    torch.cuda.synchronize()
    check(out, a, b)
    assert torch.equal(out, again)
    told = ops.describe(a, b)
    assert told["shape"] == "x".join(map(str, shape))
    assert told["kernel"].startswith("gemm_bf16" if dtype == torch.bfloat16 else "gemm_f16")
    assert (told["rule"] == "exact shape") == (shape in TUNED), told


def test_leading_dimensions_and_streams(configured):
    a, b = operands(192, 512, 256, torch.bfloat16, batch=(2,))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        out = ops.matmul(a, b)  # on the current stream
    stream.synchronize()
    assert out.shape == (2, 192, 512)
    check(out, a, b)
    assert ops.describe(a, b)["rule"] == "exact shape"  # 384x512x256: the two leading dimensions are M


def test_errors(configured):
    a, b = operands(64, 64, 64, torch.bfloat16)
    cases = [
        ((a, b.t()), "must be contiguous"),
        ((a.float(), b.float()), "takes bfloat16 or float16 tensors, a is float32"),
        ((a, b.half()), "one dtype, b is float16"),
        ((a, b[:32]), "last dimension \\(64\\) must be b's first \\(32\\)"),
        ((a.cpu(), b.cpu()), "must be on one GPU"),
        ((a, b.cpu()), "must be on one GPU"),
        ((a[0], b), "at least 2 dimensions"),
    ]
    for args, message in cases:
        with pytest.raises(cutune.InputError, match=message):
            torch.ops.cutune.matmul(*args)
    # A contiguous tensor whose data starts 2 bytes into its storage: TMA and cuBLASLt need 16.
    shifted = torch.empty(64 * 64 + 1, device="cuda", dtype=torch.bfloat16)[1:].view(64, 64).copy_(a)
    with pytest.raises(cutune.InputError, match="multiple of 16 bytes"):
        ops.matmul(shifted, b)
    # The prepared launch of a shape checks each call too.
    ops.matmul(a, b)
    with pytest.raises(cutune.InputError, match="must be contiguous"):
        ops.matmul(a.t(), b)


def test_empty_operands(configured):
    a, b = operands(16, 32, 0, torch.bfloat16)
    out = ops.matmul(a, b)
    assert out.shape == (16, 32) and torch.count_nonzero(out).item() == 0


def test_modes_and_fake_tensors_see_the_operator(configured):
    """cutune.ops.matmul goes through the dispatcher whenever something watches: a dispatch mode records the operator,
    fake tensors get their shape and dtype from its fake implementation, inputs that need gradients reach it too."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class Record(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.seen = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.seen.append(str(func))
            return func(*args, **(kwargs or {}))

    a, b = operands(384, 512, 256, torch.bfloat16, batch=(1,))
    with Record() as record:
        out = ops.matmul(a, b)
    assert "cutune.matmul.default" in record.seen, record.seen
    check(out, a, b)
    with FakeTensorMode() as mode:
        fake = ops.matmul(mode.from_tensor(a), mode.from_tensor(b))
    assert fake.shape == (1, 384, 512) and fake.dtype == torch.bfloat16 and fake.device == a.device
    a32, b32 = a.float(), b.float()
    with pytest.raises(Exception, match="takes bfloat16 or float16"):
        with FakeTensorMode() as mode:
            ops.matmul(mode.from_tensor(a32), mode.from_tensor(b32))
    check(ops.matmul(a.requires_grad_(), b), a.detach(), b)


def test_torch_compile_keeps_the_operator(configured):
    seen = []

    def record(gm, example_inputs):
        seen.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
        return gm.forward

    def block(x, w1, w2):
        return ops.matmul(torch.nn.functional.gelu(ops.matmul(x, w1)), w2)

    x, w1 = operands(384, 512, 256, torch.bfloat16)
    w2 = torch.randn(512, 256, device="cuda", dtype=torch.bfloat16)
    eager = block(x, w1, w2)
    torch._dynamo.reset()
    traced = torch.compile(block, backend=record, fullgraph=True)(x, w1, w2)
    assert seen.count("cutune.matmul.default") == 2, seen
    assert torch.equal(traced, eager)
    torch._dynamo.reset()
    inductor = torch.compile(block, fullgraph=True)(x, w1, w2)  # Inductor, the operator as an extern call
    torch.testing.assert_close(inductor.float(), eager.float(), rtol=2 ** -6, atol=2e-2)
    torch._dynamo.reset()


def test_cuda_graph_capture_and_replay(configured):
    a, b = operands(384, 512, 256, torch.float16)
    static_a, static_b = a.clone(), b.clone()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        ops.matmul(static_a, static_b)  # warm-up: the shape's launch is prepared outside the capture
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = ops.matmul(static_a, static_b)
    new_a, new_b = operands(384, 512, 256, torch.float16)
    new_a.mul_(0.5)
    static_a.copy_(new_a)
    static_b.copy_(new_b)
    static_out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(static_out, ops.matmul(new_a, new_b))
    check(static_out, new_a, new_b)


def test_first_call_inside_a_capture_is_refused(configured):
    a, b = operands(40, 48, 56, torch.bfloat16)
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(cutune.InputError, match="before the capture"):
        with torch.cuda.graph(graph):
            ops.matmul(a, b)


def test_tuning_when_asked(configured):
    """cutune.ops.tune: a shape that ran the untuned implementation launches the tuned winner afterwards."""
    a, b = operands(200, 384, 512, torch.bfloat16)
    before = ops.describe(a, b)
    assert before["rule"] != "exact shape"
    ops.tune((200, 384, 512), torch.bfloat16, budget=3)
    after = ops.describe(a, b)
    assert after["rule"] == "exact shape", after
    check(ops.matmul(a, b), a, b)


def test_tuning_on_demand(tmp_path):
    """configure(tune_budget=...): a new shape runs at once and is tuned behind the calls by the `tune` program; after
    wait() its calls launch the stored winner."""
    ops.configure(tmp_path / "od.db", tune_budget=3, cache_dir=tmp_path / "cache")
    a, b = operands(96, 640, 320, torch.float16)
    check(ops.matmul(a, b), a, b)
    assert ops.describe(a, b)["rule"] != "exact shape"
    assert ops.wait(timeout=600)
    assert not ops.tuning_failures()
    check(ops.matmul(a, b), a, b)
    assert ops.describe(a, b)["rule"] == "exact shape"


def test_configure_errors(tmp_path):
    with pytest.raises(cutune.InputError, match="needs a database"):
        ops.configure(None, tune_budget=5)
    with pytest.raises(cutune.InputError, match="tune_budget must be 0"):
        ops.configure(tmp_path / "x.db", tune_budget=-1)
