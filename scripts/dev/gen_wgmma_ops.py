#!/usr/bin/env python3
# Writes templates/gemm_wgmma_ops.cu: one wgmma.mma_async wrapper per tile width N, whose inline assembly must name
# each of its N / 2 accumulator registers (too many to keep in step by hand). Run from the repository root.
WIDTHS = (64, 128, 192, 256)

HEAD = """// The wgmma.mma_async instructions of the tensor-core GEMM's PATH=1 (gemm_wgmma.cu), one per tile width: generated
// by scripts/dev/gen_wgmma_ops.py (the inline assembly names every accumulator register); edit the script, not this.
#if PATH == 1
#if TYPE == 1
#define GEMM_WGMMA_TYPE "bf16"
#else
#define GEMM_WGMMA_TYPE "f16"
#endif
namespace gemm_wgmma_ops {

// D (64 x N, FP32, this thread's N / 2 registers) += A (64 x 16, K-major, from desc_a) * B (16 x N, N-major: the
// transpose bit, which 16-bit types allow, from desc_b). scale_d 0 ignores D's old contents.
template <int N>
struct Mma;
"""


def wrapper(n):
    regs = n // 2
    lines = [f"template <>", f"struct Mma<{n}> {{",
             f"  static __device__ __forceinline__ void run(float (&d)[{regs}], unsigned long long desc_a,",
             f"                                             unsigned long long desc_b, int scale_d) {{",
             "    asm volatile(",
             '        "{\\n.reg .pred p;\\nsetp.ne.b32 p, %' + str(regs + 2) + ', 0;\\n"',
             f'        "wgmma.mma_async.sync.aligned.m64n{n}k16.f32." GEMM_WGMMA_TYPE "." GEMM_WGMMA_TYPE " {{"']
    per = 16
    for start in range(0, regs, per):
        names = ", ".join(f"%{i}" for i in range(start, min(regs, start + per)))
        tail = ", " if start + per < regs else ""
        lines.append(f'        "{names}{tail}"')
    lines.append(f'        "}}, %{regs}, %{regs + 1}, p, 1, 1, 0, 1;\\n}}\\n"')
    outs = []
    for start in range(0, regs, 8):
        outs.append(", ".join(f'"+f"(d[{i}])' for i in range(start, min(regs, start + 8))))
    lines.append("        : " + (",\n          ".join(outs)))
    lines.append('        : "l"(desc_a), "l"(desc_b), "r"(scale_d));')
    lines.append("  }")
    lines.append("};")
    return "\n".join(lines) + "\n"


def main():
    text = HEAD
    for n in WIDTHS:
        text += "\n" + wrapper(n)
    text += "\n}  // namespace gemm_wgmma_ops\n#endif\n"
    with open("templates/gemm_wgmma_ops.cu", "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
