#!/usr/bin/env python3
"""Tunes the BF16 tensor-core GEMM at one shape, then launches the tuned kernel on PyTorch tensors and checks it
against torch.matmul. Needs a GPU, PyTorch and the cutune package (pip install . in the project's folder).

    python3 examples/python/tune_and_launch.py [--shape 2048x2048x2048] [--budget 40] [--db cutune.db]
"""

import argparse

import torch

import cutune


def main():
    parser = argparse.ArgumentParser(description="tune gemm_bf16 and launch it on PyTorch tensors")
    parser.add_argument("--shape", default="2048x2048x2048", help="MxNxK")
    parser.add_argument("--budget", type=int, default=40, help="configurations to measure")
    parser.add_argument("--db", default="cutune.db", help="the tuning database")
    args = parser.parse_args()

    result = cutune.tune("gemm_bf16", args.shape, budget=args.budget, db=args.db)
    best = result.best
    print(f"best of {result[0].evaluated + result[0].resumed}: {best.median_ms:.4f} ms, "
          f"{best.metric:.0f} {best.metric_unit}  {best.config_text}")

    m, n, k = map(int, args.shape.split("x"))
    gemm = cutune.Runtime(args.db).kernel("gemm_bf16", args.shape)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    # Left out: M, N, K, alpha = 1 and beta = 0 (the spec's values at the shape) and the tensor maps (over A, B, C).
    # The split-K scratch starts at zero, and every launch leaves it zero again.
    gemm(A=a, B=b, C=c, counters=gemm.zeros("counters"), workspace=gemm.zeros("workspace"))

    expected = torch.matmul(a.float(), b.float())
    error = ((c.float() - expected).abs() / (expected.abs() + 1)).max().item()
    print(f"launched from Python: largest relative error against torch.matmul {error:.2e} "
          f"({'ok' if error < 2 ** -6 else 'WRONG'})")


if __name__ == "__main__":
    main()
