// Host-only tests of the tensor-core GEMMs' wgmma + TMA path (PATH=1: gemm_wgmma.cu for gemm_bf16 and gemm_f16,
// gemm_wgmma_tf32.cu for gemm_tf32): its spaces and shape rules, its tensor maps, where it is pruned by target, and
// NVRTC compiles of a sample for sm_90a.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <set>
#include <stdexcept>

#include "cutune/compiler.hpp"
#include "cutune/space.hpp"
#include "cutune/target.hpp"
#include "cutune/templates.hpp"
#include "cutune/tensor_map.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

// The shape the samples compile at: configurations specialized for their shape (SHAPED=1) need one.
const Shape kOddShape{{1000, 1000, 1000}};

using Values = std::set<std::int64_t>;

// What each kernel's PATH 1 holds. The 16-bit kernels (SWAP=0): WG warpgroups share BM in m64 wgmma tiles of width
// BN. TF32 and the 16-bit SWAP=1 (C^T = B^T A^T): they share BN in 64-column chunks, and BM is the wgmma's width.
struct Path1 {
  std::string kernel;
  std::size_t configurations, swapped;  // pinned (all of PATH 1, and its SWAP=1): a change must be deliberate
  Values bm, bn, bk, stages, epi;
  std::int64_t chunk;  // elements per 16 bytes: K and N must be multiples (TMA's row strides)
  bool transposed(bool swap) const { return kernel == "gemm_tf32" || swap; }
  std::int64_t width(std::int64_t bm, std::int64_t bn, bool swap) const { return transposed(swap) ? bm : bn; }
  std::int64_t shared(std::int64_t bm, std::int64_t bn, bool swap) const { return transposed(swap) ? bn : bm; }
};
// The 16-bit kernels' tile widths: multiples of 16 up to 256 but 240 (untransposed tiles; SWAP=1 keeps 64, 128, 192).
const Values kWidths16 = {64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 256};
// TF32's (BM): every multiple of 16 from 64 to 256.
const Values kWidthsTf32 = {64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256};
// The counts include SHAPED 0 and 1 (each configuration for every shape and for its own): twice those without it; and
// RASTER 0 and 1 of the untransposed tiles (SWAP=0; every TF32 tile), which double again. KSUM=1 (split-K summed
// through the cluster's shared memory) adds 1128 to TF32 and 3880 to each 16-bit kernel, 936 of them SWAP=1. TF32's
// widths (BM) that are not multiples of 64 add 46992, less 2792 for the 80- and 96-row tiles of two warpgroups of two
// chunks each, which the spec leaves out.
const std::vector<Path1> kPaths = {
    {"gemm_tf32", 4 * 5348 + 1128 + 46992 - 2792, 0, kWidthsTf32, {64, 128, 256}, {32}, {2, 3, 4, 5, 6}, {1, 4, 64},
     4},
    {"gemm_bf16", 4 * 25730 - 2 * 7080 + 3880, 2 * 7080 + 936, {16, 32, 64, 128, 256}, kWidths16, {64}, {2, 3, 4, 5, 6, 8}, {2, 8, 64}, 8},
    {"gemm_f16", 4 * 25730 - 2 * 7080 + 3880, 2 * 7080 + 936, {16, 32, 64, 128, 256}, kWidths16, {64}, {2, 3, 4, 5, 6, 8}, {2, 8, 64}, 8}};
// The parameters PATH 1 tunes (and the 16-bit kernels' multicast and epilogue slices); the others are pinned to one
// value for it.
const std::vector<std::string> kTuned = {"BM", "BN", "STAGES",  "SPLITK",  "GROUP_M", "EPI_VEC", "WG",
                                         "CM", "CN", "PERSIST", "STREAMK", "PINGPONG", "SHAPED", "RASTER", "KSUM"};
std::vector<std::string> tuned(const KernelSpec& spec) {
  std::vector<std::string> names = kTuned;
  if (spec.name != "gemm_tf32") names.insert(names.end(), {"MC", "EPI_SLICE"});
  return names;
}
// The 16-bit kernels' SWAP=1 alone (for the compile sample: every value it takes, not only those SWAP=0 lacks).
std::vector<Config> swapped_configs(const KernelSpec& spec, const std::vector<Config>& all);

using testing::value;

std::vector<Config> wgmma_configs(const KernelSpec& spec, const char* shape, const DeviceLimits& limits = {}) {
  const Space space = Space::enumerate(spec, shape ? std::optional(spec.parse_shape(shape)) : std::nullopt, limits);
  return testing::configs_with(spec, space, "PATH", 1);
}

bool swapped(const KernelSpec& spec, const Config& c) { return spec.name != "gemm_tf32" && value(spec, c, "SWAP") == 1; }
// Consumer warpgroups that share each tile: WG, or one with ping-pong (each warpgroup takes whole tiles in turns).
std::int64_t readers(const KernelSpec& spec, const Config& c) {
  return value(spec, c, "WG") - value(spec, c, "PINGPONG");
}
std::vector<Config> swapped_configs(const KernelSpec& spec, const std::vector<Config>& all) {
  std::vector<Config> out;
  for (const Config& c : all)
    if (swapped(spec, c)) out.push_back(c);
  return out;
}

// What every PATH 1 configuration of `path`'s kernel must be: its tile shared among its consumers in whole m64 tiles of
// at most 128 accumulators, its target, its launch.
void expect_path1_configuration(const Path1& path, const KernelSpec& spec, const Config& c) {
  const std::int64_t bm = value(spec, c, "BM"), bn = value(spec, c, "BN"), wg = value(spec, c, "WG");
  const bool swap = swapped(spec, c);
  const std::int64_t share = readers(spec, c);
  EXPECT_EQ(path.shared(bm, bn, swap) % (64 * share), 0);
  EXPECT_LE(path.shared(bm, bn, swap) / (64 * share) * path.width(bm, bn, swap), 256);  // <= 128 accumulators
  // Ping-pong: two persistent consumer warpgroups, whole tiles each.
  if (share < wg) EXPECT_TRUE(wg == 2 && value(spec, c, "PERSIST") == 1 && !swap && value(spec, c, "STREAMK") == 0)
      << spec.format(c);
  // SWAP=1: wgmma n16..n128; the deeper pipelines are its own; SWAP=0 keeps the m64 tiles it had.
  if (swap) EXPECT_TRUE(bm <= 128 && bm % 16 == 0) << spec.format(c);
  if (!swap && spec.name != "gemm_tf32") EXPECT_TRUE(bm >= 64 && value(spec, c, "STAGES") <= 5) << spec.format(c);
  EXPECT_EQ(required_targets(spec, c), std::vector<std::string>{"sm_90a"});
  const Launch l = spec.resolve(spec.launch, c, spec.parse_shape("4096x4096x4096"), 132);
  EXPECT_EQ(l.threads(), 128 * (wg + 1));
  EXPECT_LE(l.shared_memory, 227 * 1024);
  // A cluster of CM x CN tiles, or (KSUM=1) of the SPLITK slices of one tile.
  EXPECT_EQ(l.cluster_size(), value(spec, c, "CM") * value(spec, c, "CN") *
                                  (value(spec, c, "KSUM") == 1 ? value(spec, c, "SPLITK") : 1));
  EXPECT_EQ(l.grid[0] % l.cluster_size(), 0);
  // Persistent blocks: PERSIST per SM of the 132 given, in whole clusters (4096 x 4096 has more tiles).
  const std::int64_t persist = value(spec, c, "PERSIST");
  if (persist > 0) EXPECT_EQ(l.grid[0], persist * 132 / l.cluster_size() * l.cluster_size()) << spec.format(c);
  // Stream-K: persistent blocks of one-block clusters.
  if (value(spec, c, "STREAMK") > 0) EXPECT_TRUE(persist > 0 && l.cluster_size() == 1) << spec.format(c);
  if (persist > 0) EXPECT_TRUE(!swap && value(spec, c, "SPLITK") == 1) << spec.format(c);
  // Multicast of B: two tiles along M share it.
  if (spec.name != "gemm_tf32" && value(spec, c, "MC") == 1)
    EXPECT_TRUE(!swap && l.cluster_size() == 2 && value(spec, c, "CM") == 2) << spec.format(c);
}

TEST(GemmWgmmaSpace, EveryValueOfEveryParameterAppears) {
  for (const Path1& path : kPaths) {
    const std::string& name = path.kernel;
    const KernelSpec spec = load_kernel(name);
    const std::vector<Config> all = wgmma_configs(spec, nullptr);
    EXPECT_EQ(all.size(), path.configurations) << name;
    std::map<std::string, Values> seen;
    std::size_t swaps = 0;
    for (const Config& c : all) {
      for (const auto& p : spec.parameters) seen[p.name].insert(value(spec, c, p.name));
      swaps += swapped(spec, c);
      expect_path1_configuration(path, spec, c);
    }
    EXPECT_EQ(swaps, path.swapped) << name;
    EXPECT_EQ(seen["BM"], path.bm) << name;
    EXPECT_EQ(seen["BN"], path.bn) << name;
    EXPECT_EQ(seen["BK"], path.bk) << name;
    EXPECT_EQ(seen["STAGES"], path.stages) << name;
    EXPECT_EQ(seen["SPLITK"], (Values{1, 2, 4, 8, 16})) << name;
    EXPECT_EQ(seen["GROUP_M"], (Values{1, 8})) << name;
    EXPECT_EQ(seen["WG"], (Values{1, 2})) << name;
    EXPECT_EQ(seen["CM"], (Values{1, 2})) << name;
    EXPECT_EQ(seen["CN"], (Values{1, 2})) << name;
    EXPECT_EQ(seen["EPI_VEC"], path.epi) << name;
    EXPECT_EQ(seen["PERSIST"], (name == "gemm_tf32" ? Values{0, 1} : Values{0, 1, 2})) << name;
    EXPECT_EQ(seen["STREAMK"], (Values{0, 1, 2})) << name;
    if (name != "gemm_tf32") EXPECT_EQ(seen["MC"], (Values{0, 1})) << name;
    if (name != "gemm_tf32") EXPECT_EQ(seen["EPI_SLICE"], (Values{0, 1, 2})) << name;
    EXPECT_EQ(seen["PINGPONG"], (Values{0, 1})) << name;
    EXPECT_EQ(seen["RASTER"], (Values{0, 1})) << name;
    for (const char* pinned : {"WARPS_M", "WARPS_N", "SWIZZLE", "PREFETCH", "ALIGNED"}) {
      EXPECT_EQ(seen[pinned].size(), 1u) << name << " " << pinned;
    }
  }
}

// Stream-K keeps two partial tiles per block in the workspace (min(16 M N, 2^25) + 2^20 floats) and counts a shared
// tile's slabs in counters (ceil(M/16) ceil(N/32) + 1024): its grid never outgrows either, on GPUs of any SM count, at
// skinny shapes (where the workspace is smallest) too.
TEST(GemmWgmmaSpace, StreamKFitsItsWorkspace) {
  for (const char* name : {"gemm_bf16", "gemm_f16"}) {
    const KernelSpec spec = load_kernel(name);
    std::size_t checked = 0;
    for (const char* text : {"16x4096x4096", "64x4096x4096", "1000x1000x1000", "8192x8192x256", "130x520x4096"}) {
      const Shape shape = spec.parse_shape(text);
      const std::int64_t M = shape.dims[0], N = shape.dims[1];
      const std::int64_t floats = std::min<std::int64_t>(16 * M * N, 33554432) + 1048576;
      const std::int64_t counters = (M + 15) / 16 * ((N + 31) / 32) + 1024;
      const Space space = Space::enumerate(spec, shape, DeviceLimits{});
      std::vector<Config> streamk = testing::configs_with(spec, space, "STREAMK", 1);
      for (const Config& c : testing::configs_with(spec, space, "STREAMK", 2)) streamk.push_back(c);
      for (const Config& c : streamk) {
        for (const int sms : {78, 114, 132, 1000}) {
          const Launch l = spec.resolve(spec.launch, c, shape, sms);
          const std::int64_t tile = value(spec, c, "BM") * value(spec, c, "BN");
          EXPECT_LE(l.grid[0] * 2 * tile, floats) << name << " " << text << " " << sms << " SMs " << spec.format(c);
          EXPECT_LE(l.grid[0], counters) << name << " " << text << " " << spec.format(c);
          EXPECT_GE(l.grid[0], 1) << name << " " << text << " " << spec.format(c);
          ++checked;
        }
      }
    }
    EXPECT_GT(checked, 100u) << name;
  }
}

// TMA needs rows of a multiple of 16 bytes: K and N multiples of 8 (16-bit) or 4 (TF32). Elsewhere PATH 0 is left,
// and PATH 1 is present at every shape that allows it, however small.
TEST(GemmWgmmaSpace, ShapesFollowTmaAlignment) {
  struct Case {
    const char* kernel;
    std::vector<const char*> without, with;
  };
  for (const Case& k : {Case{"gemm_bf16",
                             {"1x1x1", "127x257x511", "33x4096x7", "4096x4097x4096", "5x7x9", "8x8x9", "1x4x4"},
                             {"1x8x8", "127x256x512", "33x4096x8", "4096x16x4096", "16x4096x4096", "64x4096x4096",
                              "4096x4096x64", "4096x4096x4096", "8192x8192x8192"}},
                        Case{"gemm_tf32",
                             {"1x1x1", "127x257x511", "33x4096x7", "4096x4098x4096", "5x7x9", "4x4x6", "4x6x4"},
                             {"1x4x4", "127x256x512", "33x4096x8", "4096x16x4096", "1000x1000x1000", "16x4096x4096",
                              "64x4096x4096", "4096x4096x64", "4096x4096x4096", "4096x11008x4096"}}}) {
    const KernelSpec spec = load_kernel(k.kernel);
    for (const char* shape : k.without) {
      EXPECT_TRUE(wgmma_configs(spec, shape).empty()) << k.kernel << " " << shape;
      EXPECT_GT(Space::enumerate(spec, spec.parse_shape(shape), DeviceLimits{}).size(), 100u) << shape;
    }
    for (const char* shape : k.with) EXPECT_FALSE(wgmma_configs(spec, shape).empty()) << k.kernel << " " << shape;
    // Clusters only where C has two tiles along their direction; split-K only with enough slabs.
    for (const Config& c : wgmma_configs(spec, "64x4096x4096"))
      EXPECT_TRUE(value(spec, c, "CM") == 1 || 64 / value(spec, c, "BM") >= 2) << spec.format(c);
    for (const Config& c : wgmma_configs(spec, k.with.front())) EXPECT_EQ(value(spec, c, "SPLITK"), 1);
    Values split;
    for (const Config& c : wgmma_configs(spec, "64x4096x4096")) split.insert(value(spec, c, "SPLITK"));
    EXPECT_EQ(split.size(), 5u) << k.kernel;
  }
}

// PATH 1 compiles for sm_90a and runs on compute capability 9.0 only; PATH 0 everywhere.
TEST(GemmWgmmaSpace, PrunedByTargetElsewhere) {
  for (const char* name : {"gemm_f16", "gemm_tf32"}) {
    const KernelSpec spec = load_kernel(name);
    const Shape shape = spec.parse_shape("4096x4096x4096");
    const Space hopper = Space::enumerate(spec, shape, limits_of_compute_capability(90));
    const std::size_t wgmma = testing::configs_with(spec, hopper, "PATH", 1).size();
    EXPECT_GT(wgmma, 100u) << name;
    EXPECT_EQ(hopper.removed_by_target(), 0u) << name;
    // Elsewhere every PATH 1 configuration goes "by target", before the launch limits are looked at.
    KernelSpec path1 = spec;
    path1.restrict_to("PATH == 1");
    const Space hopper1 = Space::enumerate(path1, shape, limits_of_compute_capability(90));
    EXPECT_EQ(hopper1.size(), wgmma) << name;
    for (int cc : {80, 89, 100}) {
      const Space other = Space::enumerate(spec, shape, limits_of_compute_capability(cc));
      EXPECT_TRUE(testing::configs_with(spec, other, "PATH", 1).empty()) << name << " " << cc;
      EXPECT_EQ(other.size(), hopper.size() - wgmma) << name << " " << cc;
      EXPECT_EQ(other.removed_by_target(), wgmma + hopper1.removed_by_device()) << name << " " << cc;
    }
    const Config c = wgmma_configs(spec, "4096x4096x4096").front();
    EXPECT_EQ(compile_arch(spec, c, "sm_90"), "sm_90a");
    EXPECT_EQ(compile_arch(spec, spec.default_config(), "sm_90"), "sm_90");
  }
}

// The tensor maps follow the tile, both with the 128-byte swizzle: A's box is BK x BM (one 128-byte row of K by the
// tile's rows); B's is 64 x BK for the 16-bit kernels, BN / 64 of them per stage, and 32 x BK for TF32, BN / 32 of
// them (wgmma reads B^T from registers, which each thread loads from these boxes). PATH 0 reads none. C's map is read
// only where EPI_VEC 64 stages C for TMA stores: boxes of 128-byte rows, each consumer warpgroup's rows (16-bit) or
// all BM rows (TF32, whose warpgroups own columns).
TEST(GemmWgmmaSpace, TensorMapsFollowTheTile) {
  struct Case {
    const char* kernel;
    const char* config;
    ElementType type;
    unsigned k, n, bk, bm, bn, b_columns, c_columns, c_rows;
    std::int64_t staged;  // EPI_VEC 64's shared memory after the stages
  };
  for (const Case& k :
       {Case{"gemm_bf16", "PATH=1,BM=256,BN=128,BK=64,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=1,"
                          "GROUP_M=1,EPI_VEC=8,ALIGNED=1,WG=2,CM=1,CN=1,SWAP=0,PERSIST=0,MC=0,STREAMK=0,EPI_SLICE=0,"
                          "PINGPONG=0,SHAPED=0,RASTER=0,KSUM=0",
             ElementType::BFloat16, 520, 1024, 64, 256, 128, 64, 64, 128, std::int64_t{2} * 256 * 128},
        Case{"gemm_tf32", "PATH=1,BM=192,BN=128,BK=32,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=1,"
                          "GROUP_M=1,EPI_VEC=4,ALIGNED=1,WG=2,CM=1,CN=1,PERSIST=0,STREAMK=0,PINGPONG=0,SHAPED=0,RASTER=0,KSUM=0",
             ElementType::Float32, 520, 1028, 32, 192, 128, 32, 32, 192, std::int64_t{2} * 192 * 256}}) {
    const KernelSpec spec = load_kernel(k.kernel);
    const std::vector<std::size_t> maps = tensor_map_arguments(spec);
    ASSERT_EQ(maps.size(), 3u);
    EXPECT_EQ(spec.arguments[maps[0]].name, "a_map");
    EXPECT_EQ(spec.arguments[maps[1]].name, "b_map");
    const Shape shape = spec.parse_shape("300x" + std::to_string(k.n) + "x" + std::to_string(k.k));
    const Config c = spec.parse_config(k.config);
    const std::size_t element = element_size(k.type);
    const TensorMapLayout a = tensor_map_layout(spec, spec.arguments[maps[0]], c, shape);
    EXPECT_EQ(a.type, k.type) << k.kernel;
    EXPECT_EQ(a.dims[0], k.k);  // K, innermost
    EXPECT_EQ(a.dims[1], 300u);
    EXPECT_EQ(a.strides[0], k.k * element);
    EXPECT_EQ(a.box[0], k.bk);
    EXPECT_EQ(a.box[0] * element, 128u);
    EXPECT_EQ(a.box[1], k.bm);
    EXPECT_EQ(a.swizzle, 128);
    EXPECT_EQ(spec.arguments[a.buffer_index].name, "A");
    const TensorMapLayout b = tensor_map_layout(spec, spec.arguments[maps[1]], c, shape);
    EXPECT_EQ(b.dims[0], k.n);  // N, innermost
    EXPECT_EQ(b.dims[1], k.k);
    EXPECT_EQ(b.strides[0], k.n * element);
    EXPECT_EQ(b.box[0], k.b_columns);
    EXPECT_EQ(b.box[1], k.bk);
    EXPECT_EQ(b.swizzle, 128);
    EXPECT_EQ(spec.arguments[b.buffer_index].name, "B");
    // What the producer expects per stage (the kernels' kStage): one A box and BN / b_columns B boxes.
    EXPECT_EQ(a.box_bytes() + k.bn / k.b_columns * b.box_bytes(), (k.bm + k.bn) * 128u) << k.kernel;
    EXPECT_EQ(spec.resolve(spec.launch, c, shape, 132).shared_memory, std::int64_t{4} * (k.bm + k.bn) * 128 + 1024 + 128)
        << k.kernel;
    EXPECT_TRUE(tensor_map_used(spec, spec.arguments[maps[0]], c));
    EXPECT_FALSE(tensor_map_used(spec, spec.arguments[maps[0]], spec.default_config()));
    EXPECT_EQ(spec.arguments[maps[2]].name, "c_map");
    EXPECT_FALSE(tensor_map_used(spec, spec.arguments[maps[2]], c));
    const std::string epi = k.kernel == "gemm_tf32" ? "EPI_VEC=4" : "EPI_VEC=8";
    const Config staged =
        spec.parse_config(std::string(k.config).replace(std::string(k.config).find(epi), epi.size(), "EPI_VEC=64"));
    EXPECT_TRUE(tensor_map_used(spec, spec.arguments[maps[2]], staged));
    const TensorMapLayout cm = tensor_map_layout(spec, spec.arguments[maps[2]], staged, shape);
    EXPECT_EQ(cm.dims[0], k.n);
    EXPECT_EQ(cm.dims[1], 300u);
    EXPECT_EQ(cm.box[0], k.c_columns);
    EXPECT_EQ(cm.box[0] * element, 128u);
    EXPECT_EQ(cm.box[1], k.c_rows);
    EXPECT_EQ(cm.swizzle, 128);
    EXPECT_EQ(spec.arguments[cm.buffer_index].name, "C");
    EXPECT_EQ(spec.resolve(spec.launch, staged, shape, 132).shared_memory,
              std::int64_t{4} * (k.bm + k.bn) * 128 + k.staged + 1024 + 128)
        << k.kernel;
    if (k.kernel == "gemm_tf32") continue;
    // EPI_SLICE 1: two boxes of 64 columns per warpgroup instead of its whole rows.
    const Config sliced = spec.parse_config(spec.format(staged).replace(spec.format(staged).find("EPI_SLICE=0"), 11,
                                                                        "EPI_SLICE=1"));
    EXPECT_EQ(spec.resolve(spec.launch, sliced, shape, 132).shared_memory,
              std::int64_t{4} * (k.bm + k.bn) * 128 + std::int64_t{2} * k.bm * 128 + 1024 + 128);
  }
  // TF32's EPI_VEC 4 stages the tile in the ring, which grows where the tile is larger than the stages.
  const KernelSpec tf32 = load_kernel("gemm_tf32");
  const Config staged = tf32.parse_config("PATH=1,BM=256,BN=128,BK=32,WARPS_M=2,WARPS_N=2,STAGES=2,PREFETCH=1,"
                                          "SWIZZLE=1,SPLITK=1,GROUP_M=1,EPI_VEC=4,ALIGNED=1,WG=2,CM=1,CN=1,PERSIST=0,STREAMK=0,PINGPONG=0,SHAPED=0,RASTER=0,KSUM=0");
  EXPECT_EQ(tf32.resolve(tf32.launch, staged, tf32.parse_shape("300x1028x520"), 132).shared_memory,
            256 * (128 + 4) * 4 + 1024 + 128);
}

// Ping-pong (persistent, 128 x 128 tiles): each warpgroup stores whole tiles, BM rows, and stages them apart.
TEST(GemmWgmmaSpace, PingPongStagesWholeTilesPerWarpgroup) {
  for (const char* name : {"gemm_bf16", "gemm_f16"}) {
    const KernelSpec spec = load_kernel(name);
    const Shape shape = spec.parse_shape("4096x4096x4096");
    const Config pingpong = spec.parse_config(
        "PATH=1,BM=128,BN=128,BK=64,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=1,GROUP_M=1,EPI_VEC=64,"
        "ALIGNED=1,WG=2,CM=1,CN=1,SWAP=0,PERSIST=1,MC=0,STREAMK=0,EPI_SLICE=0,PINGPONG=1,SHAPED=0,RASTER=0,KSUM=0");
    const auto c_map = std::find_if(spec.arguments.begin(), spec.arguments.end(), [](const auto& a) { return a.name == "c_map"; });
    ASSERT_NE(c_map, spec.arguments.end()) << name;
    EXPECT_EQ(tensor_map_layout(spec, *c_map, pingpong, shape).box[1], 128u) << name;
    EXPECT_EQ(spec.resolve(spec.launch, pingpong, shape, 132).shared_memory,
              std::int64_t{4} * 256 * 128 + 2 * std::int64_t{2} * 128 * 128 + 1024 + 128)
        << name;
  }
}

// A sample of PATH 1 holding every value of every tuned parameter compiles for sm_90a through NVRTC, without spills
// (the largest two-consumer tiles rely on setmaxnreg, and on the register count it needs at launch); the kernels'
// static_asserts check the descriptor encoding, that the accumulator layout covers each tile once and (TF32) that the
// fragment loads undo the swizzle without bank conflicts. About 30 configurations per kernel, a second or two each.
TEST(GemmWgmmaCompile, SampleCompilesForSm90a) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<KernelSpec> specs;
  for (const Path1& path : kPaths) specs.push_back(load_kernel(path.kernel));
  CompilePool pool;
  struct Job {
    const Path1* path;
    const KernelSpec* spec;
    Config config;
    std::future<CompileOutput> out;
  };
  std::vector<Job> jobs;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const KernelSpec& spec = specs[k];
    // PATH 1 as a whole, then (16-bit) SWAP=1 alone: each sample holds every value its configurations take.
    const std::vector<Config> path1 = wgmma_configs(spec, nullptr), swaps = swapped_configs(spec, path1);
    for (const std::vector<Config>* part : {&path1, &swaps}) {
      if (part->empty()) continue;
      std::map<std::string, Values> seen, all;
      for (const Config& c : testing::sample_configs(spec, *part, 16)) {
        for (const auto& p : tuned(spec)) seen[p].insert(value(spec, c, p));
        jobs.push_back({&kPaths[k], &spec, c,
                        pool.submit([&spec, c] { return compile_config(spec, c, "sm_90", &kOddShape); })});
      }
      for (const Config& c : *part)
        for (const auto& p : tuned(spec)) all[p].insert(value(spec, c, p));
      for (const auto& p : tuned(spec)) EXPECT_EQ(seen[p], all[p]) << spec.name << " " << p;
    }
  }
  std::size_t reallocating = 0;
  for (auto& job : jobs) {
    const CompileOutput out = job.out.get();
    ASSERT_TRUE(out.ok) << job.spec->name << " " << job.spec->format(job.config) << "\n" << out.log;
    EXPECT_EQ(out.lowered_name, "gemm_tc");
    // Stream-K's fixup keeps a few more values live beside the accumulators: the largest tiles spill a register or
    // two (outside the main loop's slabs), nothing more.
    const bool streamk = value(*job.spec, job.config, "STREAMK") > 0;
    EXPECT_LE(out.spill_bytes, streamk ? 64 : 0) << job.spec->name << " " << job.spec->format(job.config);
    // Two consumer warpgroups that need more than 168 registers (16-bit: 128 accumulators; TF32: accumulators and two
    // fragment buffers above 128) reallocate registers (setmaxnreg), which only works from an allocation of exactly
    // 168 per thread at launch: fewer, and the consumers would wait forever for registers.
    const std::int64_t wg = value(*job.spec, job.config, "WG");
    const std::int64_t bm = value(*job.spec, job.config, "BM"), bn = value(*job.spec, job.config, "BN");
    const bool swap = swapped(*job.spec, job.config);
    // m64 tiles or 64-column chunks of each consumer warpgroup
    const std::int64_t per_warpgroup = job.path->shared(bm, bn, swap) / (64 * readers(*job.spec, job.config));
    const bool tf32 = job.path->kernel == "gemm_tf32";
    const std::int64_t registers =
        per_warpgroup * job.path->width(bm, bn, swap) / 2 + (tf32 ? 2 * per_warpgroup * 16 : 0);
    // TF32's persistent blocks keep more live across tiles: they reallocate from 112 on, with ping-pong from 120.
    const std::int64_t persist = value(*job.spec, job.config, "PERSIST");
    const std::int64_t from = persist == 0 ? 129 : value(*job.spec, job.config, "PINGPONG") == 0 ? 112 : 120;
    if (wg == 2 && (tf32 ? registers >= from : registers == 128)) {
      EXPECT_EQ(out.registers, 168) << job.spec->name << " " << job.spec->format(job.config);
      ++reallocating;
    } else {
      EXPECT_LE(out.registers, wg == 2 ? 168 : 255);
    }
    // ptxas says so when it must serialize the wgmmas (accumulators touched while they are in flight): slow.
    EXPECT_EQ(out.log.find("wgmma"), std::string::npos) << job.spec->format(job.config) << "\n" << out.log;
    EXPECT_NE(out.cubin.find("gemm_tc"), std::string::npos);
  }
  EXPECT_GT(reallocating, 0u);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("%zu PATH 1 compiles for sm_90a on %u threads in %.0f s\n", jobs.size(), pool.threads(), seconds);
}

// Every persistent TF32 tile (BM x BN, consumer warpgroups, ping-pong) compiles for sm_90a in its heaviest variant
// (TMA stores, and stream-K's fixup where ping-pong allows it; two warpgroups sharing a tile without it too, where the
// reallocation rule differs) without serialized wgmmas, spilling at most what the fixup may: the sample above draws a
// few configurations of the whole path and could miss a tile that ptxas cannot fit once the walk across tiles stays
// live (as 128 x 256 with two warpgroups, which the spec leaves out for that reason).
TEST(GemmWgmmaCompile, EveryPersistentTf32TileCompilesForSm90a) {
  const KernelSpec spec = load_kernel("gemm_tf32");
  std::map<std::vector<std::int64_t>, Config> tiles;
  for (const Config& c : wgmma_configs(spec, "4096x4096x4096")) {
    const std::int64_t pingpong = value(spec, c, "PINGPONG"), wg = value(spec, c, "WG");
    const std::int64_t streamk = value(spec, c, "STREAMK");
    if (value(spec, c, "PERSIST") == 0 || value(spec, c, "EPI_VEC") != 64) continue;
    if (streamk != (pingpong ? 0 : 1) && !(streamk == 0 && wg == 2)) continue;
    tiles.emplace(std::vector<std::int64_t>{value(spec, c, "BM"), value(spec, c, "BN"), wg, pingpong, streamk}, c);
  }
  // BM 64-256 in steps of 16 (13) by 64 (one warpgroup), by 128 (two, with and without stream-K), by 64 (two,
  // ping-pong).
  EXPECT_EQ(tiles.size(), 13u * 4);
  CompilePool pool;
  std::vector<std::pair<Config, std::future<CompileOutput>>> jobs;
  for (const auto& [tile, c] : tiles) {
    jobs.emplace_back(c, pool.submit([&spec, c] { return compile_config(spec, c, "sm_90", &kOddShape); }));
  }
  for (auto& [c, future] : jobs) {
    const CompileOutput out = future.get();
    ASSERT_TRUE(out.ok) << spec.format(c) << "\n" << out.log;
    EXPECT_LE(out.spill_bytes, value(spec, c, "STREAMK") > 0 ? 64 : 0) << spec.format(c);
    EXPECT_EQ(out.log.find("wgmma"), std::string::npos) << spec.format(c) << "\n" << out.log;
  }
}

// Ping-pong's tiles compile for sm_90a without spills or serialized wgmmas, and those of 128 accumulators a thread
// (128 x 128, 64 x 256) from the 168 registers that setmaxnreg needs at launch.
TEST(GemmWgmmaCompile, PingPongCompilesForSm90a) {
  const KernelSpec spec = load_kernel("gemm_bf16"), tf32 = load_kernel("gemm_tf32");
  CompilePool pool;
  std::vector<std::pair<std::string, std::future<CompileOutput>>> jobs;
  const auto add = [&](const KernelSpec& kernel, const std::string& text) {
    const Config c = kernel.parse_config(text);
    ASSERT_EQ(invalid_config(kernel, text, "8192x8192x256"), std::nullopt) << text;
    jobs.emplace_back(text, pool.submit([&kernel, c] { return compile_config(kernel, c, "sm_90", &kOddShape); }));
  };
  for (const char* tile : {"BM=128,BN=128", "BM=64,BN=256", "BM=64,BN=128", "BM=128,BN=64"}) {
    add(spec, std::string("PATH=1,") + tile +
                  ",BK=64,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=1,GROUP_M=8,EPI_VEC=64,"
                  "ALIGNED=1,WG=2,CM=1,CN=1,SWAP=0,PERSIST=1,MC=0,STREAMK=0,EPI_SLICE=0,PINGPONG=1,SHAPED=0,RASTER=0,KSUM=0");
  }
  // TF32: whole BM x 64 tiles per warpgroup; 256 x 64 (128 accumulators and 32 fragment registers) reallocates.
  for (const char* tile : {"BM=256,BN=64", "BM=128,BN=64"}) {
    add(tf32, std::string("PATH=1,") + tile +
                  ",BK=32,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=1,GROUP_M=8,EPI_VEC=64,"
                  "ALIGNED=1,WG=2,CM=1,CN=1,PERSIST=1,STREAMK=0,PINGPONG=1,SHAPED=0,RASTER=0,KSUM=0");
  }
  for (auto& [text, future] : jobs) {
    const CompileOutput out = future.get();
    ASSERT_TRUE(out.ok) << text << "\n" << out.log;
    EXPECT_EQ(out.spill_bytes, 0) << text;
    EXPECT_EQ(out.log.find("wgmma"), std::string::npos) << text << "\n" << out.log;
    const bool full = text.find("BM=128,BN=128") != std::string::npos || text.find("BN=256") != std::string::npos ||
                      text.find("BM=256,BN=64") != std::string::npos;
    if (full) EXPECT_EQ(out.registers, 168) << text;
    else EXPECT_LE(out.registers, 168) << text;
  }
}

}  // namespace
}  // namespace cutune
