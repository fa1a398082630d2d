"""Kernel Tuner's first example, vector_add, tuned with cutune.tune_kernel: the call reads as a Kernel Tuner user
writes it, with an answer to check every configuration against. Then the best configuration is launched through
cutune.Runtime on PyTorch tensors (when PyTorch is there)."""

import numpy

import cutune

kernel_string = """
__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
"""

size = 10000000

a = numpy.random.randn(size).astype(numpy.float32)
b = numpy.random.randn(size).astype(numpy.float32)
c = numpy.zeros_like(b)
n = numpy.int32(size)

args = [c, a, b, n]

tune_params = dict()
tune_params["block_size_x"] = [128 + 64 * i for i in range(15)]

result = cutune.tune_kernel("vector_add", kernel_string, size, args, tune_params, answer=[a + b, None, None, None])
print(result)

try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    kernel = cutune.Runtime("cutune.db").kernel(result.spec, size)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    tc = torch.empty_like(ta)
    kernel(tc, ta, tb, size)
    torch.cuda.synchronize()
    print("launched", kernel.config, "max error", (tc - (ta + tb)).abs().max().item())
