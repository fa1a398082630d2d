// Tests of CUtensorMap arguments: parsing, errors, the constraints they imply, and the encoding for a configuration.
#include "cutune/tensor_map.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "spec_json_support.hpp"

#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "driver/tensor_map_encode.hpp"

namespace cutune {
namespace {

using Json = testing::SpecJson;

Json mapped_spec() {
  return Json::parse(R"json({
    "name": "mapped", "source": "m.cu", "kernel": "k", "shape": ["M", "N"],
    "parameters": {"BX": [4, 8, 32, 64], "BY": [16, 512], "SW": [0, 128]},
    "block": [128], "grid": ["ceil_div(N, BX)", "ceil_div(M, BY)"],
    "arguments": [
      {"name": "out", "type": "float*", "size": "M * N", "output": true},
      {"name": "map", "type": "CUtensorMap", "buffer": "in", "dims": ["N", "M"], "box": ["BX", "BY"], "swizzle": "SW"},
      {"name": "in", "type": "const __nv_bfloat16*", "size": "M * N", "fill": "random"}
    ],
    "reference": {"configuration": {"BX": 8}},
    "metric": {"bytes": "4 * M * N"}
  })json");
}

TEST(TensorMap, ReadsTheArgument) {
  const KernelSpec spec = testing::spec_from_json(mapped_spec());
  const Argument& a = spec.arguments[1];
  ASSERT_TRUE(a.tensor_map);
  EXPECT_FALSE(a.is_buffer);
  EXPECT_EQ(a.tensor_map->buffer, "in");
  EXPECT_EQ(a.tensor_map->buffer_index, 2u);  // a buffer later in the list
  EXPECT_EQ(a.type, ElementType::BFloat16);
  EXPECT_EQ(a.tensor_map->l2_promotion, 128);
  EXPECT_FALSE(a.tensor_map->oob_nan);
  EXPECT_EQ(tensor_map_arguments(spec), std::vector<std::size_t>{1});
}

// The layout for one configuration: what cuTensorMapEncodeTiled gets, computed without a driver.
TEST(TensorMap, LayoutForAConfiguration) {
  const KernelSpec spec = testing::spec_from_json(mapped_spec());
  const TensorMapLayout l =
      tensor_map_layout(spec, spec.arguments[1], spec.parse_config("BX=64,BY=16,SW=128"), spec.parse_shape("300x1024"));
  EXPECT_EQ(l.type, ElementType::BFloat16);
  EXPECT_EQ(l.rank, 2u);
  EXPECT_EQ(l.dims[0], 1024u);
  EXPECT_EQ(l.dims[1], 300u);
  EXPECT_EQ(l.strides[0], 2048u);  // bytes per row of 1024 bf16
  EXPECT_EQ(l.box[0], 64u);
  EXPECT_EQ(l.box[1], 16u);
  EXPECT_EQ(l.swizzle, 128);
  EXPECT_EQ(l.buffer_index, 2u);
  EXPECT_EQ(l.box_bytes(), 64u * 16u * 2u);
  const detail::TensorMapEncoding e = detail::tensor_map_encoding(l);
  EXPECT_EQ(e.type, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(e.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(e.l2_promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(e.oob_fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  // Given directly, a configuration the driver would refuse is an error naming the limit.
  try {
    tensor_map_layout(spec, spec.arguments[1], spec.parse_config("BX=4,BY=16,SW=0"), spec.parse_shape("300x1024"));
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()), "tensor map map of mapped at BX=4,BY=16,SW=0, shape 300x1024: the box's inner "
                                         "extent of 8 bytes is not a multiple of 16");
  }
}

TEST(TensorMap, ExplicitStridesAndOptions) {
  Json j = mapped_spec();
  j["arguments"][1]["dims"] = {"N", "M", 2};
  j["arguments"][1]["strides"] = {"N + 8", "(N + 8) * M"};
  j["arguments"][1]["box"] = {"BX", "BY", 1};
  j["arguments"][1]["l2_promotion"] = 256;
  j["arguments"][1]["oob_fill"] = "nan";
  j["arguments"][2]["size"] = "2 * (N + 8) * M";
  const KernelSpec spec = testing::spec_from_json(j);
  const TensorMapLayout l =
      tensor_map_layout(spec, spec.arguments[1], spec.parse_config("BX=8,BY=16,SW=0"), spec.parse_shape("10x56"));
  EXPECT_EQ(l.rank, 3u);
  EXPECT_EQ(l.strides[0], 64u * 2);
  EXPECT_EQ(l.strides[1], 64u * 10 * 2);
  EXPECT_EQ(l.dims[2], 2u);
  const detail::TensorMapEncoding e = detail::tensor_map_encoding(l);
  EXPECT_EQ(e.l2_promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  EXPECT_EQ(e.oob_fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
}

// The driver's limits become constraints: boxes over 256 or under 16 bytes wide, a swizzle narrower than the box,
// rows that are not multiples of 16 bytes are removed from the space, not failed at run time.
TEST(TensorMap, ImpliedConstraintsPruneTheSpace) {
  const KernelSpec spec = testing::spec_from_json(mapped_spec());
  const Space space = Space::enumerate(spec, spec.parse_shape("64x1024"), DeviceLimits{});
  // BX = 4 (8 bytes) and BY = 512 go; SW = 128 keeps BX <= 64 (128 bytes): BX 8, 32, 64 x BY 16 x SW 0, 128.
  EXPECT_EQ(space.size(), 6u);
  EXPECT_EQ(space.removed_by_constraints(), 16u - 6u);
  // N = 1028: rows of 2056 bytes, not a multiple of 16: nothing runs at that shape.
  EXPECT_EQ(Space::enumerate(spec, spec.parse_shape("64x1028"), DeviceLimits{}).size(), 0u);
  // A tensor larger than its buffer is refused too.
  Json j = mapped_spec();
  j["arguments"][2]["size"] = "N";
  const KernelSpec small = testing::spec_from_json(j);
  EXPECT_EQ(Space::enumerate(small, small.parse_shape("64x1024"), DeviceLimits{}).size(), 0u);
  EXPECT_EQ(Space::enumerate(small, small.parse_shape("1x1024"), DeviceLimits{}).size(), 6u);
  // Before compute capability 9.0 there are no tensor maps.
  const Space ampere = Space::enumerate(spec, spec.parse_shape("64x1024"), limits_of_compute_capability(80));
  EXPECT_EQ(ampere.size(), 0u);
  EXPECT_EQ(ampere.removed_by_target(), 6u);
}

TEST(TensorMap, ErrorsNameTheField) {
  auto with = [](const char* key, const Json& value) {
    Json j = mapped_spec();
    j["arguments"][1][key] = value;
    return testing::spec_error(j);
  };
  EXPECT_EQ(with("buffer", "nothing"), "spec mapped: arguments.map.buffer: 'nothing' is not a buffer argument of mapped");
  EXPECT_EQ(with("buffer", "map"), "spec mapped: arguments.map.buffer: 'map' is not a buffer argument of mapped");
  EXPECT_EQ(with("box", {"BX"}), "spec mapped: arguments.map.box: must have one entry per dimension (2)");
  EXPECT_EQ(with("dims", {"N", "BX"}), "spec mapped: arguments.map.dims[1]: may use shape names only, not BX");
  EXPECT_EQ(with("dims", Json::array()), "spec mapped: arguments.map.dims: must be a list of 1 to 5 expressions");
  EXPECT_EQ(with("strides", {"N", "N"}), "spec mapped: arguments.map.strides: must have one entry per dimension after "
                                         "the first (1)");
  EXPECT_EQ(with("l2_promotion", 100), "spec mapped: arguments.map.l2_promotion: must be 0 (none), 64, 128 or 256 bytes");
  EXPECT_EQ(with("oob_fill", "ones"), "spec mapped: arguments.map.oob_fill: must be \"zero\" or \"nan\"");
  EXPECT_EQ(with("interleave", 0), "spec mapped: arguments.map: unknown field 'interleave' (allowed: name, type, buffer, "
                                   "dims, strides, box, swizzle, l2_promotion, oob_fill, when)");
  // What can never hold is the spec's mistake, said at once.
  EXPECT_EQ(with("box", {512, "BY"}), "spec mapped: arguments.map.box[0]: box extents must be 1 to 256: '1 <= (512) <= "
                                      "256' holds for no configuration");
  EXPECT_EQ(with("swizzle", 48), "spec mapped: arguments.map.swizzle: the swizzle must be 0 (none), 32, 64 or 128 bytes: "
                                 "'(48) == 0 or (48) == 32 or (48) == 64 or (48) == 128' holds for no configuration");
  EXPECT_EQ(with("box", {"BX // 4 + 1", "BY"}),
            "spec mapped: arguments.map.box[0]: the box's inner extent must be a multiple of 16 bytes (2-byte "
            "elements): '(BX // 4 + 1) * 2 % 16 == 0' holds for no configuration");
  Json j = mapped_spec();
  j["arguments"][2]["type"] = "const int*";
  j["arguments"][1]["oob_fill"] = "nan";
  EXPECT_EQ(testing::spec_error(j), "spec mapped: arguments.map.oob_fill: \"nan\" needs a floating-point buffer");
}

// A map read only by some configurations ("when"): the others are neither bound by its limits nor pruned before
// compute capability 9.0, and get zero bytes in its place.
Json conditional_spec() {
  Json j = mapped_spec();
  j["parameters"]["PATH"] = {0, 1};
  j["arguments"][1]["when"] = "PATH == 1";
  return j;
}

TEST(TensorMapWhen, OnlyTheConfigurationsThatReadTheMapAreBound) {
  const KernelSpec spec = testing::spec_from_json(conditional_spec());
  ASSERT_TRUE(spec.arguments[1].tensor_map->when);
  EXPECT_FALSE(tensor_map_used(spec, spec.arguments[1], spec.parse_config("BX=4,BY=512,SW=0,PATH=0")));
  EXPECT_TRUE(tensor_map_used(spec, spec.arguments[1], spec.parse_config("BX=8,BY=16,SW=0,PATH=1")));
  // PATH 0: all 16 combinations; PATH 1: the 6 of ImpliedConstraintsPruneTheSpace.
  const Space space = Space::enumerate(spec, spec.parse_shape("64x1024"), DeviceLimits{});
  EXPECT_EQ(space.size(), 16u + 6u);
  // Rows of 2056 bytes: only PATH 0 runs.
  EXPECT_EQ(Space::enumerate(spec, spec.parse_shape("64x1028"), DeviceLimits{}).size(), 16u);
  // Before compute capability 9.0 only PATH 1 needs what is missing.
  const Space ampere = Space::enumerate(spec, spec.parse_shape("64x1024"), limits_of_compute_capability(80));
  EXPECT_EQ(ampere.size(), 16u);
  EXPECT_EQ(ampere.removed_by_target(), 6u);
}

TEST(TensorMapWhen, Errors) {
  Json j = conditional_spec();
  j["arguments"][1]["when"] = "M > 4";
  EXPECT_EQ(testing::spec_error(j), "spec mapped: arguments.map.when: may use parameter names only, not the shape's M");
  j["arguments"][1]["when"] = "PATH ==";
  EXPECT_NE(testing::spec_error(j).find("spec mapped: arguments.map.when: "), std::string::npos);
  // A limit that no configuration reading the map can meet is still the spec's mistake.
  j = conditional_spec();
  j["arguments"][1]["box"] = {"64 * (1 + PATH)", "BY"};
  j["arguments"][1]["swizzle"] = 0;
  EXPECT_EQ(testing::spec_error(j), "(no error)");  // PATH 1: a box of 128 is fine without a swizzle
  j["arguments"][1]["box"] = {"256 * (1 + PATH)", "BY"};
  EXPECT_EQ(testing::spec_error(j),
            "spec mapped: arguments.map.box[0]: box extents must be 1 to 256: '1 <= (256 * (1 + PATH)) <= 256' holds for "
            "no configuration that reads the map (PATH == 1)");
}

// Given directly, the layout of an unread map is not asked for; a read one is computed from the spec.
TEST(TensorMapWhen, LayoutOfAReadMap) {
  const KernelSpec spec = testing::spec_from_json(conditional_spec());
  const TensorMapLayout l = tensor_map_layout(spec, spec.arguments[1], spec.parse_config("BX=64,BY=16,SW=128,PATH=1"),
                                              spec.parse_shape("300x1024"));
  EXPECT_EQ(l.box[0], 64u);
  EXPECT_EQ(l.swizzle, 128);
}

}  // namespace
}  // namespace cutune
