#!/usr/bin/env python3
"""cutune.ops.matmul against torch.matmul at tuned shapes: host time per call and GPU time per call.

Each shape is tuned first (cutune.ops.tune: cutune's template and cuBLASLt under one budget) unless --budget 0.

Host time: calls in batches short enough that the launch queue never fills, the stream synchronized between batches
outside the timing; the median (and 90th percentile) microseconds per call over the batches. Each call allocates its
output, as torch.matmul's does. The first table: torch.matmul(a, b); torch.ops.cutune.matmul(a, b) (the dispatcher,
then cutune.ops' Python implementation); cutune.ops.matmul(a, b) (eager calls on plain tensors skip the dispatcher);
their excess over torch.matmul. The second says where cutune's time goes: the Python implementation alone, the output
allocation alone, the prepared launch alone on a preallocated output, and the same for the template's kernel at the
shape (gemm_bf16 / gemm_f16, whichever implementation won: a cuLaunchKernel instead of a cublasLtMatmul).

GPU time: a CUDA graph of --graph-calls calls replayed, CUDA events around each replay (no host work between the
kernels, no L2 flush: operands that fit stay in L2), median over replays per call, and torch's over cutune's.

Usage: python3 bench/torch_ops_bench.py [--db ops.db] [--shapes 2048x1024x1024,...] [--dtype bf16] [--budget 40]
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_launch_bench import per_launch_us as host_us  # noqa: E402 -- the same batches as the launch bench


def graph_us(torch, call, calls, replays):
    """GPU microseconds per call: `calls` calls captured in one CUDA graph, replayed."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        call()  # warm-up outside the capture
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            call()
    samples = []
    for r in range(-3, replays):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        if r >= 0:
            samples.append(start.elapsed_time(end) * 1e3 / calls)
    return statistics.median(samples)


def cell(row):
    return f"{row[0]:6.2f} ({row[1]:5.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="ops.db", help="the tuning database (made when missing)")
    parser.add_argument("--shapes", default="2048x1024x1024,2048x4096x1024,2048x1024x4096,128x4096x4096",
                        help="MxNxK, comma-separated")
    parser.add_argument("--dtype", choices=("bf16", "f16"), default="bf16")
    parser.add_argument("--budget", type=int, default=40, help="configurations per shape to tune first; 0: none")
    parser.add_argument("--batches", type=int, default=50)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--graph-calls", type=int, default=20)
    parser.add_argument("--replays", type=int, default=20)
    args = parser.parse_args()

    import torch

    import cutune
    import cutune.ops
    from cutune.ops import _matmul_cuda, _state

    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    shapes = [tuple(int(d) for d in s.split("x")) for s in args.shapes.split(",")]
    cutune.ops.configure(args.db)
    if args.budget:
        cutune.ops.tune(shapes, dtype, budget=args.budget)
    sync = torch.cuda.synchronize
    ours = torch.ops.cutune.matmul.default
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, {args.dtype}; host: median (p90) us per call "
          f"over {args.batches} batches of {args.batch}; GPU: us per call in a CUDA graph of {args.graph_calls}, "
          f"median of {args.replays} replays, no L2 flush")
    print(f"{'MxNxK':16s} {'implementation':20s} {'rule':12s} {'torch.matmul':>14s} {'torch.ops':>14s} "
          f"{'ops.matmul':>14s} {'+torch.ops':>10s} {'+ops.matmul':>11s} {'GPU torch':>9s} {'GPU ours':>9s} "
          f"{'torch/ours':>10s}")
    breakdown = []
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        told = cutune.ops.describe(a, b)
        torch.testing.assert_close(ours(a, b).float(), torch.matmul(a, b).float(), rtol=2 ** -6, atol=1e-2 * k ** 0.5)
        rows = {
            "torch": host_us(lambda: torch.matmul(a, b), sync, args.batches, args.batch),
            "op": host_us(lambda: ours(a, b), sync, args.batches, args.batch),
            "wrapper": host_us(lambda: cutune.ops.matmul(a, b), sync, args.batches, args.batch),
        }
        gpu_torch = graph_us(torch, lambda: torch.matmul(a, b), args.graph_calls, args.replays)
        gpu_ours = graph_us(torch, lambda: ours(a, b), args.graph_calls, args.replays)
        print(f"{told['shape']:16s} {told['kernel']:20s} {told['rule']:12s} {cell(rows['torch'])} {cell(rows['op'])} "
              f"{cell(rows['wrapper'])} {rows['op'][0] - rows['torch'][0]:+10.2f} "
              f"{rows['wrapper'][0] - rows['torch'][0]:+11.2f} {gpu_torch:9.2f} {gpu_ours:9.2f} "
              f"{gpu_torch / gpu_ours:10.3f}")

        entry = _state.entries[(a.shape, b.shape, dtype, dtype, a.get_device(), b.get_device())]
        out = torch.empty(m, n, device="cuda", dtype=dtype)
        stream = torch.cuda.current_stream().cuda_stream
        pointers = (a.data_ptr(), b.data_ptr(), out.data_ptr())
        template = "gemm_bf16" if dtype == torch.bfloat16 else "gemm_f16"
        kernel = cutune.Runtime(args.db).kernel(template, told["shape"])
        held = {x["name"]: kernel.zeros(x["name"]) for x in kernel.arguments if x["name"] in ("counters", "workspace")}
        values = [x["value"] if x["kind"] == "scalar" else held[x["name"]].data_ptr() if x["name"] in held else 0
                  for x in kernel.arguments]
        launch = kernel._native.prepare(values, ["A", "B", "C"])
        breakdown.append((told["shape"], told["kernel"], {
            "impl": host_us(lambda: _matmul_cuda(a, b), sync, args.batches, args.batch),
            "alloc": host_us(lambda: a.new_empty((m, n)), sync, args.batches, args.batch),
            "launch": host_us(lambda: entry.launch(stream, *pointers), sync, args.batches, args.batch),
            "template": host_us(lambda: launch(stream, *pointers), sync, args.batches, args.batch),
        }))
    print(f"\nwhere cutune's host time goes, median (p90) us per call\n{'MxNxK':16s} {'implementation':20s} "
          f"{'Python impl':>14s} {'new_empty':>14s} {'launch only':>14s} {'template launch':>15s}")
    for shape, kernel_name, rows in breakdown:
        print(f"{shape:16s} {kernel_name:20s} " + " ".join(cell(r) for r in rows.values()))


if __name__ == "__main__":
    main()
