#!/usr/bin/env python3
# Emulates one slab of gemm_wgmma_tf32.cu on the CPU, to check its index arithmetic end to end without a GPU: TMA's
# 128-byte swizzle, the B^T fragment loads (chunk_col, b_offset, fragment_offset as in the kernel), wgmma with its A
# fragments from registers (PTX ISA / CUTLASS ALayout_64x8) and B K-major through the descriptor, the D layout and the
# transposed epilogue; prints the largest difference from A @ B per tile (about 1e-14 when the mappings agree).
# Needs numpy (python3-numpy). The hardware's side is modelled from the documentation; the GPU tests check it.
import numpy as np
rng = np.random.default_rng(1)
kRow = 128
def chunk_col(row):
    q, h, g = row // 16, row % 16 // 8, row % 8
    return 32 * (q // 2) + 4 * (2 * (q % 2) + h + 4 * (g // 4)) + g % 4
def acc_row(t, r): return 16 * (t // 32) + (t % 32) // 4 + 8 * (r % 4 // 2)
def acc_col(t, r): return 8 * (r // 4) + 2 * (t % 4) + r % 2
for BM, BN, WG in [(64,64,1),(128,128,2),(256,128,2),(128,256,2),(192,128,2),(64,256,2),(128,128,1)]:
    BK = 32
    kNR = BN // (64 * WG)
    kBoxB = BK * kRow
    kStageA = BM * kRow
    def b_offset(k, n): return (n // 32) * kBoxB + k * kRow + (((n % 32) // 4) ^ (k % 8)) * 16 + (n % 4) * 4
    def fragment_offset(q, lane, e, ks):
        return b_offset(8 * ks + lane % 4 + 4 * (e // 2), chunk_col(16 * q + lane // 4 + 8 * (e % 2)))
    A = rng.standard_normal((BM, BK)).astype(np.float32)
    B = rng.standard_normal((BK, BN)).astype(np.float32)
    smem = np.zeros((kStageA + BN // 32 * kBoxB) // 4, dtype=np.float32)
    # TMA, hardware model: 16-byte chunk c of 128-byte row r (from a 1024-byte aligned base) lands at chunk c ^ (r % 8)
    def put(base, r, byte, v):
        addr = base + r * 128 + (((byte // 16) ^ (r % 8)) * 16) + byte % 16
        smem[addr // 4] = v
    for m in range(BM):
        for k in range(BK): put(0, m, 4 * k, A[m, k])
    for j in range(BN // 32):
        for k in range(BK):
            for x in range(32): put(kStageA + j * kBoxB, k, 4 * x, B[k, 32 * j + x])
    C = np.zeros((BM, BN), dtype=np.float64)
    for c in range(WG):
        chunks = kStageA + c * kNR * 2 * kBoxB
        acc = np.zeros((kNR, 128, BM // 2))
        for nr in range(kNR):
            for ks in range(BK // 8):
                # registers of every thread: wgmma's A fragment per PTX/CUTLASS ALayout_64x8
                Aw = np.full((64, 8), np.nan)
                for t in range(128):
                    q, lane = t // 32, t % 32
                    for e in range(4):
                        val = smem[(chunks + nr * 2 * kBoxB + ks * 8 * kRow + fragment_offset(q, lane, e, 0)) // 4]
                        Aw[16 * q + lane // 4 + 8 * (e % 2), lane % 4 + 4 * (e // 2)] = val
                assert not np.isnan(Aw).any()
                # wgmma's B operand (8 x BM) through the K-major 128B-swizzle descriptor at stage + 32 ks
                Bw = np.zeros((8, BM))
                for j in range(BM):
                    for kk in range(8):
                        byte = 32 * ks + 4 * kk
                        addr = (j // 8) * 1024 + (j % 8) * 128 + (((byte // 16) ^ (j % 8)) * 16) + byte % 16
                        Bw[kk, j] = smem[addr // 4]
                D = Aw @ Bw
                for t in range(128):
                    for r in range(BM // 2): acc[nr, t, r] += D[acc_row(t, r), acc_col(t, r)]
        for nr in range(kNR):
            for t in range(128):
                for r in range(BM // 2):
                    C[acc_col(t, r), c * kNR * 64 + 64 * nr + chunk_col(acc_row(t, r))] += acc[nr, t, r]
    ref = A.astype(np.float64) @ B.astype(np.float64)
    print(BM, BN, WG, "max error", np.abs(C - ref).max())
