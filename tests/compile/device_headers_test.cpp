// Host-only tests of the standard headers that device code includes under NVRTC: each compiles and declares what
// kernels use of it, with the values the host's C library gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "compile/device_headers.hpp"
#include "cutune/compiler.hpp"
#include "spec_json_support.hpp"

namespace cutune {
namespace {

CompileOutput compile_source(const std::string& source, const std::vector<std::string>& options = {}) {
  const auto spec = testing::spec_from_json(testing::SpecJson::parse(R"json({
    "name": "headers", "source": "headers.cu", "kernel": "k", "shape": ["N"], "parameters": {"X": [1]},
    "block": [32], "grid": [1], "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}],
    "reference": {"configuration": {"X": 1}}})json"),
                                            source);
  return compile(spec, "k", options, "sm_90");
}

bool has_cccl() {
  const auto& options = detail::device_headers().include_options;
  return std::any_of(options.begin(), options.end(),
                     [](const std::string& o) { return o.find("cccl") != std::string::npos; });
}

// The host's values, written into the kernel's static_asserts: the device headers must agree with the C library.
std::string host_values() {
  return "#define HOST_INT64_MAX " + std::to_string(INT64_MAX) + "LL\n#define HOST_UINT32_MAX " +
         std::to_string(UINT32_MAX) + "U\n#define HOST_LONG_MIN_PLUS_1 (" + std::to_string(LONG_MIN + 1) +
         "L)\n#define HOST_FLT_MAX_EXP " + std::to_string(FLT_MAX_EXP) + "\n#define HOST_DBL_DIG " +
         std::to_string(DBL_DIG) + "\n";
}

struct HeaderUse {
  const char* header;
  const char* use;  ///< kernel body and declarations that need what the header declares
};

class EachHeader : public ::testing::TestWithParam<HeaderUse> {};

TEST_P(EachHeader, CompilesAloneAndDeclaresItsNames) {
  const HeaderUse& h = GetParam();
  const std::string source = host_values() + "#include <" + h.header + ">\n" + h.use;
  const CompileOutput out = compile_source(source);
  EXPECT_TRUE(out.ok) << h.header << ":\n" << out.log;
  EXPECT_EQ(out.log.find("warning"), std::string::npos) << out.log;
}

constexpr const char* kStdint = R"(
static_assert(INT32_MAX == 2147483647 && INT32_MIN == -INT32_MAX - 1 && INT64_MAX == HOST_INT64_MAX, "");
static_assert(UINT32_MAX == HOST_UINT32_MAX && UINT64_MAX == ~0ULL && SIZE_MAX == ~size_t(0), "");
static_assert(sizeof(int8_t) == 1 && sizeof(uint16_t) == 2 && sizeof(int32_t) == 4 && sizeof(uint64_t) == 8, "");
static_assert(sizeof(intptr_t) == sizeof(void*) && UINT64_C(1) << 63 == 0x8000000000000000ULL, "");
static_assert(static_cast<int8_t>(INT8_MIN) == -128 && UINT8_MAX == 255 && INT16_MAX == 32767, "");
extern "C" __global__ void k(float* out) { uint64_t x = UINT64_MAX; out[0] = static_cast<float>(x >> 40); }
)";

constexpr const char* kCstdint = R"(
static_assert(sizeof(std::int64_t) == 8 && sizeof(std::uint8_t) == 1 && sizeof(std::uintptr_t) == 8, "");
extern "C" __global__ void k(float* out) { std::uint32_t x = UINT32_MAX; out[0] = static_cast<float>(x); }
)";

constexpr const char* kLimits = R"(
static_assert(CHAR_BIT == 8 && INT_MAX == 2147483647 && INT_MIN == -INT_MAX - 1 && UINT_MAX == HOST_UINT32_MAX, "");
static_assert(LONG_MIN + 1 == HOST_LONG_MIN_PLUS_1 && LLONG_MAX == HOST_INT64_MAX && SCHAR_MIN == -128, "");
static_assert(CHAR_MIN == (static_cast<char>(-1) < 0 ? SCHAR_MIN : 0) && USHRT_MAX == 65535, "");
extern "C" __global__ void k(float* out) { out[0] = static_cast<float>(SHRT_MAX); }
)";

constexpr const char* kFloat = R"(
static_assert(FLT_MAX > 3.4e38f && FLT_MAX < 3.41e38 && DBL_MAX > 1.79e308 && FLT_MANT_DIG == 24, "");
static_assert(FLT_EPSILON == 1.0f / 8388608.0f && DBL_EPSILON == 1.0 / 4503599627370496.0, "");
static_assert(FLT_MIN == 1.0f / 85070591730234615865843651857942052864.0f && FLT_MAX_EXP == HOST_FLT_MAX_EXP, "");
static_assert(DBL_DIG == HOST_DBL_DIG && FLT_TRUE_MIN < FLT_MIN && FLT_TRUE_MIN > 0.0f && FLT_RADIX == 2, "");
extern "C" __global__ void k(float* out) { out[0] = FLT_MAX; }
)";

constexpr const char* kStddef = R"(
struct Pair { int a; double b; };
static_assert(offsetof(Pair, b) == 8 && sizeof(size_t) == 8 && sizeof(ptrdiff_t) == 8, "");
extern "C" __global__ void k(float* out) { float* p = NULL; out[0] = p == nullptr ? 1.0f : 0.0f; }
)";

constexpr const char* kCstddef = R"(
static_assert(sizeof(std::size_t) == 8 && sizeof(std::ptrdiff_t) == 8 && sizeof(std::nullptr_t) == 8, "");
extern "C" __global__ void k(float* out) { std::size_t n = 3; out[0] = static_cast<float>(n); }
)";

// The kernel's own M_SQRT1_2 is the way BAT's FFT defines it: the same tokens, so no warning.
constexpr const char* kMath = R"(
#define M_SQRT1_2 0.70710678118654752440
static_assert(M_PI > 3.14159265358979 && M_PI < 3.1415926535898 && M_E > 2.718281828 && M_SQRT2 * M_SQRT1_2 > 0.99, "");
static_assert(INFINITY > 3.4e38f && HUGE_VAL > 1.79e308 && NAN != NAN && HUGE_VALF == INFINITY, "");
__device__ constexpr float kInf = INFINITY;
extern "C" __global__ void k(float* out) {
  double r = sqrt(4) + floor(7 / 2) + fabs(-3);  // integer arguments call the double functions
  static_assert(sizeof(sqrt(4)) == 8 && sizeof(sqrtf(4.0f)) == 4, "");
  out[0] = sqrtf(out[1]) + fabsf(out[2]) + static_cast<float>(r) + __sinf(out[3]) + static_cast<float>(M_PI);
  out[4] = fpclassify(out[5]) == FP_NORMAL && isnormal(1.0) && !isnormal(0.0f) && isless(1.0f, 2.0f) &&
           isunordered(NAN, 1.0f) && !isgreater(NAN, 0.0f) && fpclassify(kInf) == FP_INFINITE;
}
)";

constexpr const char* kCmath = R"(
extern "C" __global__ void k(float* out) {
  static_assert(sizeof(std::sqrt(2.0f)) == 4 && sizeof(std::abs(-2.0f)) == 4 && sizeof(std::floor(2)) == 8, "");
  out[0] = std::sqrt(out[1]) + std::abs(out[2]) + std::fmax(out[3], 1.0f) + std::pow(out[4], 2) + std::exp(out[5]);
  out[6] = std::isnan(out[7]) || std::isinf(out[8]) || std::isnormal(out[9]) || std::signbit(out[10]);
}
)";

constexpr const char* kStdio = R"(
extern "C" __global__ void k(float* out) { if (threadIdx.x == 0) printf("out[0] = %f\n", out[0]); }
)";

constexpr const char* kCstdio = R"(
extern "C" __global__ void k(float* out) { if (threadIdx.x == 0) std::printf("%d\n", static_cast<int>(out[0])); }
)";

constexpr const char* kAssert = R"(
extern "C" __global__ void k(float* out) { assert(out != nullptr); out[0] = 1.0f; }
)";

constexpr const char* kStdlib = R"(
extern "C" __global__ void k(float* out) {
  int* p = static_cast<int*>(malloc(4 * sizeof(int)));
  if (p != NULL) { p[0] = abs(-2) + EXIT_SUCCESS; out[0] = static_cast<float>(p[0] + llabs(-3LL)); free(p); }
}
)";

constexpr const char* kCstdlib = R"(
extern "C" __global__ void k(float* out) {
  void* p = std::malloc(16);
  out[0] = static_cast<float>(std::abs(-2) + std::labs(-3L));
  std::free(p);
}
)";

constexpr const char* kString = R"(
extern "C" __global__ void k(float* out) { float x[2]; memset(x, 0, sizeof x); memcpy(out, x, sizeof x); }
)";

constexpr const char* kCstring = R"(
extern "C" __global__ void k(float* out) { float x[2]; std::memset(x, 0, sizeof x); std::memcpy(out, x, sizeof x); }
)";

INSTANTIATE_TEST_SUITE_P(DeviceHeaders, EachHeader,
                         ::testing::Values(HeaderUse{"stdint.h", kStdint}, HeaderUse{"cstdint", kCstdint},
                                           HeaderUse{"limits.h", kLimits}, HeaderUse{"climits", kLimits},
                                           HeaderUse{"float.h", kFloat}, HeaderUse{"cfloat", kFloat},
                                           HeaderUse{"stddef.h", kStddef}, HeaderUse{"cstddef", kCstddef},
                                           HeaderUse{"math.h", kMath}, HeaderUse{"cmath", kCmath},
                                           HeaderUse{"stdio.h", kStdio}, HeaderUse{"cstdio", kCstdio},
                                           HeaderUse{"assert.h", kAssert}, HeaderUse{"cassert", kAssert},
                                           HeaderUse{"stdlib.h", kStdlib}, HeaderUse{"cstdlib", kCstdlib},
                                           HeaderUse{"string.h", kString}, HeaderUse{"cstring", kCstring}),
                         [](const auto& info) {
                           std::string name = info.param.header;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

// Without the headers, NVRTC has none of these: the first include is a catastrophic error.
TEST(DeviceHeaders, EveryCHeaderHasItsCxxTwinAndNvrtcHasNeither) {
  const auto& headers = detail::device_headers();
  for (const char* name : {"stdint.h", "limits.h", "float.h", "stddef.h", "math.h", "stdio.h", "assert.h",
                           "stdlib.h", "string.h"}) {
    const std::string c(name);
    const std::string cxx = "c" + c.substr(0, c.size() - 2);
    EXPECT_NE(std::find(headers.names.begin(), headers.names.end(), c), headers.names.end()) << c;
    EXPECT_NE(std::find(headers.names.begin(), headers.names.end(), cxx), headers.names.end()) << cxx;
  }
  const CompileOutput out = compile_source("#include <no_such_header.h>\nextern \"C\" __global__ void k(float*) {}\n");
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("no_such_header.h"), std::string::npos) << out.log;
  EXPECT_EQ(headers.key.size(), 16u);
}

// All of them at once, as a real kernel includes them, under the C++ standard BAT's files ask for (-std=c++11 after
// cutune's -std=c++17: NVRTC takes the last).
TEST(DeviceHeaders, AllTogetherUnderCxx11) {
  std::string source = host_values();
  for (const char* name : {"math.h", "cmath", "stdint.h", "cstdint", "stdio.h", "cstdio", "float.h", "cfloat",
                           "limits.h", "climits", "stddef.h", "cstddef", "assert.h", "cassert", "stdlib.h", "cstdlib",
                           "string.h", "cstring"}) {
    source += "#include <" + std::string(name) + ">\n";
  }
  source += kMath;
  const CompileOutput out = compile_source(source, {"-std=c++11"});
  EXPECT_TRUE(out.ok) << out.log;
}

// assert() follows NDEBUG where <assert.h> is included: defined, the condition is not even compiled.
TEST(DeviceHeaders, AssertFollowsNdebug) {
  const std::string body = "extern \"C\" __global__ void k(float* out) { assert(no_such_name > 0); }\n";
  EXPECT_TRUE(compile_source("#define NDEBUG\n#include <assert.h>\n" + body).ok);
  const CompileOutput checked = compile_source("#include <cassert>\n" + body);
  EXPECT_FALSE(checked.ok);
  EXPECT_NE(checked.log.find("no_such_name"), std::string::npos) << checked.log;
}

// The C++ headers are libcu++'s (the toolkit's include/cccl), their names in std; with cutune's C headers in either
// order, without warnings.
TEST(DeviceHeaders, CxxHeadersAreLibcudacxxInStd) {
  if (!has_cccl()) GTEST_SKIP() << "no CUDA toolkit with libcu++ (include/cccl) found";
  std::string source = "#include <limits.h>\n#include <cstdint>\n";
  for (const auto& name : detail::libcudacxx_header_names()) source += "#include <" + name + ">\n";
  source += R"(#include <float.h>
#include <cmath>
static_assert(std::is_same<std::int64_t, long long>::value && std::is_floating_point<float>::value, "");
static_assert(std::numeric_limits<float>::max() == FLT_MAX && std::numeric_limits<int>::max() == INT_MAX, "");
static_assert(std::tuple_size<std::tuple<int, float>>::value == 2 && std::array<int, 3>{}.size() == 3, "");
extern "C" __global__ void k(float* out) {
  std::pair<float, int> p = std::make_pair(out[0], 2);
  float a = out[1], b = out[2];
  std::swap(a, b);
  out[3] = p.first + a + std::sqrt(b) + std::numeric_limits<float>::epsilon();
}
)";
  const CompileOutput out = compile_source(source);
  EXPECT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.log.find("warning"), std::string::npos) << out.log;

  // libcu++ needs C++17: an older -std (T1 files often ask for C++11) is refused by name.
  const CompileOutput old = compile_source("#include <utility>\nextern \"C\" __global__ void k(float*) {}\n",
                                           {"-std=c++11"});
  EXPECT_FALSE(old.ok);
  EXPECT_NE(old.log.find("<utility> under NVRTC is libcu++'s <cuda/std/utility>, which needs C++17"), std::string::npos)
      << old.log;
}

// <cub/cub.cuh> is the toolkit's CUB (include/cccl) without its host-only parts: a 2-D block's BlockReduce with warp
// reductions (Kernel Tuner's expdist example) and a WarpReduce compile, in double, with the block size from -D.
TEST(DeviceHeaders, CubBlockAndWarpCollectives) {
  if (!has_cccl()) GTEST_SKIP() << "no CUDA toolkit with CUB (include/cccl) found";
  const std::string source = R"(#include <cub/cub.cuh>
extern "C" __global__ void k(float* out) {
  typedef cub::BlockReduce<double, block_size_x, cub::BLOCK_REDUCE_WARP_REDUCTIONS, block_size_y> BlockReduce;
  __shared__ typename BlockReduce::TempStorage block_storage;
  __shared__ typename cub::WarpReduce<int>::TempStorage warp_storage;
  const int t = threadIdx.x + threadIdx.y * block_size_x;
  const double sum = BlockReduce(block_storage).Sum(static_cast<double>(out[t]));
  const int most = cub::WarpReduce<int>(warp_storage).Reduce(t, cuda::maximum<>{});
  if (t == 0) out[0] = static_cast<float>(sum) + static_cast<float>(most);
}
)";
  const CompileOutput out = compile_source(source, {"-Dblock_size_x=32", "-Dblock_size_y=4"});
  EXPECT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.log.find("warning"), std::string::npos) << out.log;

  // CUB needs C++17: an older -std is refused by name, before any of CUB's headers is read.
  const CompileOutput old = compile_source("#include <cub/cub.cuh>\nextern \"C\" __global__ void k(float*) {}\n",
                                           {"-std=c++11"});
  EXPECT_FALSE(old.ok);
  EXPECT_NE(old.log.find("<cub/cub.cuh> needs C++17"), std::string::npos) << old.log;
  EXPECT_EQ(old.log.find("cub/config.cuh"), std::string::npos) << old.log;
}

}  // namespace
}  // namespace cutune
