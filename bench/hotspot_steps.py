"""hotspot_milo.cu at temporal_tiling_factor k against k launches at k = 1 (each fed the last one's output, padded as
the kernel reads it), through cutune.kernel_tuner.run_kernel: whether the kernel at k > 1 computes k time steps, as
Kernel Tuner's own hotspot script checks k = 2. Inputs like the T1 file's (power uniform in [0, 1), temp in [0, 324),
its scalars), but of the (N + 2 max_tfactor)^2 elements the kernel reads.

    python3 bench/hotspot_steps.py PATH/hotspot_milo.cu     (benchmark_hub's kernels/hotspot_milo.cu; needs a GPU)
"""
import sys

import numpy as np

import cutune.kernel_tuner as kt

N, M = 4096, 10           # the grid and max_tfactor: the inputs are (N + 2M)^2, as the kernel reads them
W = N + 2 * M
rng = np.random.default_rng(1)
power = rng.random(W * W, dtype=np.float32)
temp = (rng.random(W * W, dtype=np.float32) * 324).astype(np.float32)
scalars = [np.float32(0.1), np.float32(0.1), np.float32(3.0517578579), np.float32(21.845333099365234)]
src = open(sys.argv[1] if len(sys.argv) > 1 else "hotspot_milo.cu").read()


def launch(t, k, bx=16, by=16, tx=1, ty=1, unroll=1, sh=0):
    params = dict(grid_width=N, grid_height=N, block_size_x=bx, block_size_y=by, tile_size_x=tx, tile_size_y=ty,
                  temporal_tiling_factor=k, max_tfactor=M, loop_unroll_factor_t=unroll, sh_power=sh)
    out = kt.run_kernel("calculate_temp", src, (N, N), [power, t, np.zeros(N * N, np.float32)] + scalars, params,
                        grid_div_x=["block_size_x", "tile_size_x"], grid_div_y=["block_size_y", "tile_size_y"],
                        compiler_options=["-std=c++11"], quiet=True)
    return out[2].reshape(N, N)


for k, config in ((2, dict(bx=32, by=8, tx=2, ty=2, unroll=2, sh=1)), (4, dict(bx=64, by=4, tx=1, ty=3, unroll=4)),
                  (10, dict(bx=32, by=4, tx=2, ty=1, unroll=5, sh=1))):
    t = temp.copy()
    for step in range(k):  # k launches of one step; the ring outside the grid keeps its inputs
        one = launch(t, 1)
        t = t.reshape(W, W).copy()
        t[M:M + N, M:M + N] = one
        t = t.reshape(-1)
    many = launch(temp, k, **config)
    inner = slice(k, N - k)  # the outermost k - 1 rings read the ring the k = 1 launches do not advance
    a, b = many[inner, inner], one[inner, inner]
    rel = np.abs(a - b) / np.maximum(np.abs(b), 1e-30)
    print(f"k={k:2d} {config}: |values| up to {np.abs(b).max():.3g}; interior max relative difference "
          f"{rel.max():.3g}, elements over 1e-3: {(rel > 1e-3).sum()} of {a.size}; "
          f"whole grid over 1e-3: {(np.abs(many - one) > 1e-3 * np.abs(one) + 1e-3).sum()}")
