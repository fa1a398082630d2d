#!/usr/bin/env python3
"""What a launch from Python costs on the host beyond the same launch from C++ (the target: at most 20 us).

The same kernel (transpose at a small shape, the spec's default configuration, no database) is launched in batches
short enough that the launch queue never fills, the stream synchronized between batches outside the timing: from
C++ through the runtime API (bench/launch_overhead, run here as a program), and from Python through cutune.Runtime
on PyTorch tensors (the current PyTorch stream), on CuPy arrays, and on raw addresses with an explicit stream.
Prints the median (and 90th percentile) microseconds per launch and each Python row's excess over C++.

Usage: python3 bench/python_launch_bench.py --cpp build/bench/launch_overhead [--shape 64x64] [--batches 200]
"""

import argparse
import re
import subprocess
import sys
import time


def per_launch_us(launch, sync, batches, batch):
    samples = []
    for b in range(-5, batches):
        start = time.perf_counter()
        for _ in range(batch):
            launch()
        elapsed = time.perf_counter() - start
        sync()
        if b >= 0:
            samples.append(elapsed * 1e6 / batch)
    samples.sort()
    return samples[len(samples) // 2], samples[len(samples) * 9 // 10]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpp", required=True, help="the launch_overhead program (C++ side)")
    parser.add_argument("--shape", default="64x64")
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()

    import cutune
    import torch

    cpp = subprocess.run([args.cpp, "--shape", args.shape, "--batches", str(args.batches), "--batch", str(args.batch)],
                         capture_output=True, text=True)
    if cpp.returncode != 0:
        sys.exit(f"launch_overhead failed: {cpp.stderr.strip()}")
    found = re.search(r"p50 ([0-9.]+) p90 ([0-9.]+)", cpp.stdout)
    rows = [("C++ RuntimeKernel::operator()", float(found.group(1)), float(found.group(2)))]

    m, n = map(int, args.shape.split("x"))
    kernel = cutune.Runtime(None).kernel("transpose", args.shape)
    inp = torch.randn(m, n, device="cuda")
    out = torch.empty(n, m, device="cuda")
    rows.append(("Python, PyTorch tensors (current stream)",
                 *per_launch_us(lambda: kernel(out, inp), torch.cuda.synchronize, args.batches, args.batch)))
    stream = torch.cuda.Stream()
    handle = stream.cuda_stream
    out_ptr, in_ptr = out.data_ptr(), inp.data_ptr()
    rows.append(("Python, addresses and a stream handle",
                 *per_launch_us(lambda: kernel(out_ptr, in_ptr, m, n, stream=handle), stream.synchronize,
                                args.batches, args.batch)))
    try:
        import cupy
        cin = cupy.random.standard_normal((m, n), dtype=cupy.float32)
        cout = cupy.empty((n, m), dtype=cupy.float32)
        rows.append(("Python, CuPy arrays (current stream)",
                     *per_launch_us(lambda: kernel(cout, cin), cupy.cuda.Device().synchronize, args.batches,
                                    args.batch)))
    except ImportError:
        pass

    device = torch.cuda.get_device_name()
    print(f"launch host time, transpose {args.shape}, {args.batches} batches of {args.batch}, {device}")
    print(f"{'launch':<44} {'p50 us':>8} {'p90 us':>8} {'- C++ p50':>10}")
    for what, p50, p90 in rows:
        print(f"{what:<44} {p50:8.2f} {p90:8.2f} {p50 - rows[0][1]:10.2f}")


if __name__ == "__main__":
    main()
