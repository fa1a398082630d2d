#!/usr/bin/env python3
"""A transformer block whose projections (Q, K, V, O, the MLP's up and down) run through cutune.ops.matmul, compared
with the same block on torch.matmul. Tunes the block's four GEMM shapes first (each implementation of the operation,
cutune's template and cuBLASLt, under one budget), then runs both blocks on the same input and prints each
projection's implementation and its difference from torch.matmul. Needs a GPU, PyTorch 2.4 or later and the cutune
package. Exits 1 when an output does not match.

    python3 examples/python/torch_transformer_block.py [--tokens 2048] [--dim 1024] [--heads 16] [--budget 20]
                                                       [--db cutune.db] [--dtype bf16] [--compile]
"""

import argparse
import sys

import torch
import torch.nn.functional as F

import cutune.ops


def make_weights(dim, dtype, seed=0):
    """Each projection's weight stored (in, out), contiguous: the B of x @ B (nn.Linear keeps (out, in): transpose it
    once, not per call)."""
    g = torch.Generator(device="cuda").manual_seed(seed)

    def w(k, n):
        return (torch.randn(k, n, device="cuda", generator=g) / k ** 0.5).to(dtype)
    return {"q": w(dim, dim), "k": w(dim, dim), "v": w(dim, dim), "o": w(dim, dim),
            "up": w(dim, 4 * dim), "down": w(4 * dim, dim)}


def block(x, weights, heads, project, seen):
    """Pre-norm attention and MLP. `project(x, w)` is every projection; `seen` collects each one's input and output."""
    def proj(name, inp):
        out = project(inp, weights[name])
        seen[name] = (inp, out)
        return out

    tokens, dim = x.shape[-2], x.shape[-1]
    h = F.layer_norm(x, (dim,))
    q, k, v = (proj(n, h).view(-1, tokens, heads, dim // heads).transpose(1, 2) for n in ("q", "k", "v"))
    attention = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    x = x + proj("o", attention.transpose(1, 2).reshape(x.shape))  # reshape: contiguous (batch, tokens, dim)
    h = F.layer_norm(x, (dim,))
    return x + proj("down", F.gelu(proj("up", h)))


def ulp(dtype):
    return 2.0 ** -(8 if dtype == torch.bfloat16 else 11)


def main():
    parser = argparse.ArgumentParser(description="a transformer block's projections through cutune.ops.matmul")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=512, help="tokens per sequence")
    parser.add_argument("--dim", type=int, default=1024, help="model width")
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--dtype", choices=("bf16", "f16"), default="bf16")
    parser.add_argument("--budget", type=int, default=20, help="configurations per shape to tune; 0: no tuning")
    parser.add_argument("--db", default="cutune.db", help="the tuning database")
    parser.add_argument("--compile", action="store_true", help="also run the cutune block under torch.compile")
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    m, d = args.batch * args.tokens, args.dim

    cutune.ops.configure(args.db)
    if args.budget:
        shapes = [(m, d, d), (m, 4 * d, d), (m, d, 4 * d)]  # q, k, v, o; up; down
        for r in cutune.ops.tune(shapes, dtype, budget=args.budget):
            best = f"{r.best.median_ms * 1e3:8.1f} us" if r.best else "nothing correct"
            print(f"tuned {r.kernel:22s} {r.shape:16s} best {best}")

    weights = make_weights(d, dtype)
    x = torch.randn(args.batch, args.tokens, d, device="cuda", dtype=dtype)
    seen = {}
    out = block(x, weights, args.heads, cutune.ops.matmul, seen)
    reference = block(x, weights, args.heads, torch.matmul, {})
    print(f"\n{'projection':14s} {'MxNxK':16s} {'implementation':20s} {'rule':12s} {'max |diff|':>10s} "
          f"{'max |ref|':>9s}")
    ok = True
    # Each projection against torch.matmul on the very input it had: both round FP32 sums to bf16/f16, so they
    # differ by at most a unit in the last place or two of the largest value.
    for name, (inp, got) in seen.items():
        told = cutune.ops.describe(inp, weights[name])
        ok &= report(name, got, torch.matmul(inp, weights[name]), 2 * ulp(dtype), told)
    # The whole block: the projections' rounding differences go on through softmax, layer norms and GELU.
    ok &= report("block output", out, reference, 16 * ulp(dtype))
    if args.compile:
        compiled = torch.compile(lambda t: block(t, weights, args.heads, cutune.ops.matmul, {}), fullgraph=True)
        ok &= report("compiled", compiled(x), reference, 16 * ulp(dtype))
    print("outputs match torch.matmul's" if ok else "OUTPUTS DIFFER from torch.matmul's")
    return 0 if ok else 1


def report(name, got, expected, tolerance, told=None):
    """A line of the table; whether the largest difference is within `tolerance` of the largest value (at least 1)."""
    diff = (got.float() - expected.float()).abs().max().item()
    scale = expected.float().abs().max().item()
    good = got.shape == expected.shape and diff <= tolerance * max(scale, 1.0)
    shape, kernel, rule = (told["shape"], told["kernel"], told["rule"]) if told else ("", "", "")
    print(f"{name:14s} {shape:16s} {kernel:20s} {rule:12s} {diff:10.4f} {scale:9.3f} {'ok' if good else 'DIFFERS'}")
    return good


if __name__ == "__main__":
    sys.exit(main())
