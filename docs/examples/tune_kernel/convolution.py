"""A 2-D convolution tuned from Python with cutune.tune_kernel, written as a Kernel Tuner user writes the call:
2-D blocks with tiling in both dimensions, the grid from grid_div_x/y, a restriction, the filter in constant memory
and the answer from numpy. Run: python convolution.py [SIZE] (default 4096; SIZE is the image's width and height)."""

import sys
from collections import OrderedDict
from pathlib import Path

import numpy

import cutune

size = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
kernel_string = (Path(__file__).parent / "convolution.cu").read_text()

filter_size = (17, 17)
problem_size = (size, size)
border = (filter_size[0] - 1, filter_size[1] - 1)
input_size = (problem_size[0] + border[0]) * (problem_size[1] + border[1])

output = numpy.zeros(problem_size[0] * problem_size[1]).astype(numpy.float32)
input = numpy.random.randn(input_size).astype(numpy.float32)
filter = numpy.random.randn(filter_size[0] * filter_size[1]).astype(numpy.float32)
cmem_args = {"d_filter": filter}
args = [output, input, filter]

# The answer, from numpy: every output element is the filter's weighted sum of the input around it.
image = input.reshape(problem_size[1] + border[1], problem_size[0] + border[0]).astype(numpy.float64)
weights = filter.reshape(filter_size[1], filter_size[0])
expected = numpy.zeros((problem_size[1], problem_size[0]))
for fy in range(filter_size[1]):
    for fx in range(filter_size[0]):
        expected += weights[fy, fx] * image[fy:fy + problem_size[1], fx:fx + problem_size[0]]
answer = [expected.astype(numpy.float32).ravel(), None, None]

tune_params = OrderedDict()
tune_params["filter_width"] = [filter_size[0]]
tune_params["filter_height"] = [filter_size[1]]
tune_params["block_size_x"] = [16 * i for i in range(1, 9)]
tune_params["block_size_y"] = [2 ** i for i in range(1, 6)]
tune_params["tile_size_x"] = [1, 2, 4]
tune_params["tile_size_y"] = [1, 2, 4]
tune_params["use_padding"] = [0, 1]
tune_params["read_only"] = [0, 1]

grid_div_x = ["block_size_x", "tile_size_x"]
grid_div_y = ["block_size_y", "tile_size_y"]
# The tile and its border fit in the 48 KB of static shared memory a block may have.
restrict = ["(block_size_x*tile_size_x + filter_width - 1 + use_padding) * "
            "(block_size_y*tile_size_y + filter_height - 1) * 4 <= 48 * 1024"]

results = cutune.tune_kernel("convolution_kernel", kernel_string, problem_size, args, tune_params,
                             grid_div_y=grid_div_y, grid_div_x=grid_div_x, restrictions=restrict,
                             cmem_args=cmem_args, answer=answer, atol=1e-3, budget=60,
                             compiler_options=[f"-Dimage_width={size}", f"-Dimage_height={size}"])
print(results)
