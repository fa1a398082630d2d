#!/usr/bin/env python3
"""cutune.ops.matmul against torch.matmul at tuned shapes: host time per call and GPU time per call.

Each shape is tuned first (cutune.ops.tune: cutune's template and cuBLASLt under one budget) unless --budget 0. Host
time: calls in batches short enough that the launch queue never fills, the stream synchronized between batches outside
the timing, median (and 90th percentile) microseconds per call over the batches; each call allocates its output, as
torch.matmul's does. Rows: torch.matmul(a, b); torch.ops.cutune.matmul(a, b) (the dispatcher, then cutune.ops' Python
implementation); cutune.ops.matmul(a, b) (the same through the Python wrapper); and the prepared launch alone on a
preallocated output (what cutune.ops adds on top of the dispatcher). GPU time: CUDA events around a batch of calls
back to back (no L2 flush: the operands stay in L2 when they fit), median over batches, and torch's over cutune's.

Usage: python3 bench/torch_ops_bench.py [--db ops.db] [--shapes 2048x1024x1024,...] [--dtype bf16] [--budget 40]
"""

import argparse
import statistics
import time


def host_us(call, sync, batches, batch):
    samples = []
    for b in range(-5, batches):
        start = time.perf_counter()
        for _ in range(batch):
            call()
        elapsed = time.perf_counter() - start
        sync()
        if b >= 0:
            samples.append(elapsed * 1e6 / batch)
    samples.sort()
    return samples[len(samples) // 2], samples[len(samples) * 9 // 10]


def gpu_us(torch, call, batches, batch):
    samples = []
    for b in range(-2, batches):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(batch):
            call()
        end.record()
        end.synchronize()
        if b >= 0:
            samples.append(start.elapsed_time(end) * 1e3 / batch)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="ops.db", help="the tuning database (made when missing)")
    parser.add_argument("--shapes", default="2048x1024x1024,2048x4096x1024,2048x1024x4096,128x4096x4096",
                        help="MxNxK, comma-separated")
    parser.add_argument("--dtype", choices=("bf16", "f16"), default="bf16")
    parser.add_argument("--budget", type=int, default=40, help="configurations per shape to tune first; 0: none")
    parser.add_argument("--batches", type=int, default=50)
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()

    import torch

    import cutune.ops

    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    shapes = [tuple(int(d) for d in s.split("x")) for s in args.shapes.split(",")]
    cutune.ops.configure(args.db)
    if args.budget:
        cutune.ops.tune(shapes, dtype, budget=args.budget)
    sync = torch.cuda.synchronize
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, {args.dtype}; host: median (p90) us per call "
          f"over {args.batches} batches of {args.batch}; GPU: us per call back to back, no L2 flush")
    print(f"{'MxNxK':16s} {'implementation':20s} {'rule':12s} {'torch.matmul':>14s} {'torch.ops':>14s} "
          f"{'ops.matmul':>14s} {'launch only':>14s} {'host diff':>9s} {'GPU torch':>9s} {'GPU ours':>9s} "
          f"{'torch/ours':>10s}")
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        told = cutune.ops.describe(a, b)
        ours = torch.ops.cutune.matmul.default
        torch.testing.assert_close(ours(a, b).float(), torch.matmul(a, b).float(), rtol=2 ** -6, atol=1e-2 * k ** 0.5)
        entry = cutune.ops._state.entries[(a.shape, b.shape, dtype, dtype, a.get_device(), b.get_device())]
        out = torch.empty(m, n, device="cuda", dtype=dtype)
        stream = torch.cuda.current_stream().cuda_stream
        a_ptr, b_ptr, out_ptr = a.data_ptr(), b.data_ptr(), out.data_ptr()
        rows = {
            "torch": host_us(lambda: torch.matmul(a, b), sync, args.batches, args.batch),
            "op": host_us(lambda: ours(a, b), sync, args.batches, args.batch),
            "wrapper": host_us(lambda: cutune.ops.matmul(a, b), sync, args.batches, args.batch),
            "launch": host_us(lambda: entry.launch(stream, a_ptr, b_ptr, out_ptr), sync, args.batches, args.batch),
        }
        gpu_torch = gpu_us(torch, lambda: torch.matmul(a, b), 10, 20)
        gpu_ours = gpu_us(torch, lambda: ours(a, b), 10, 20)
        cells = " ".join(f"{p50:6.2f} ({p90:5.2f})" for p50, p90 in rows.values())
        print(f"{told['shape']:16s} {told['kernel']:20s} {told['rule']:12s} {cells} "
              f"{rows['op'][0] - rows['torch'][0]:+9.2f} {gpu_torch:9.2f} {gpu_ours:9.2f} {gpu_torch / gpu_ours:10.3f}")


if __name__ == "__main__":
    main()
