// Host-only tests of the L2 convention as a value: its names, the spec's "measure" defaults, the precedence of
// command line over spec over Read, and its trip to the worker process.
#include <gtest/gtest.h>

#include <string>

#include "cutune/error.hpp"
#include "cutune/l2_flush.hpp"
#include "cutune/spec.hpp"
#include "worker/worker_protocol.hpp"

namespace cutune {
namespace {

constexpr L2Flush kEvery[] = {L2Flush::Read, L2Flush::Write, L2Flush::None};

TEST(L2FlushNames, RoundTripAndRefuseOthers) {
  EXPECT_EQ(to_string(L2Flush::Read), "read");
  EXPECT_EQ(to_string(L2Flush::Write), "write");
  EXPECT_EQ(to_string(L2Flush::None), "none");
  for (const L2Flush f : kEvery) EXPECT_EQ(parse_l2_flush(to_string(f)), f);
  for (const char* bad : {"", "Read", "dirty", "clean", "read ", "no"}) EXPECT_FALSE(parse_l2_flush(bad)) << bad;
}

const char* kSpec = R"({
  "name": "k", "source": "k.cu", "kernel": "k", "shape": ["N"],
  "parameters": {"X": [1, 2]},
  "block": ["X"], "grid": [1],
  "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}],
  "reference": {"configuration": {"X": 1}},
  "metric": {"bytes": "4 * N"}MEASURE
})";

// The spec above with `measure` (JSON text) as its "measure" field; none when empty.
KernelSpec spec_measuring(const std::string& measure) {
  std::string text = kSpec;
  text.replace(text.find("MEASURE"), 7, measure.empty() ? "" : ", \"measure\": " + measure);
  return KernelSpec::from_json(text, "extern \"C\" __global__ void k(float*) {}", "k.cu");
}

std::string measure_error(const std::string& measure) {
  try {
    spec_measuring(measure);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SpecMeasure, FlushIsReadAndLeftOutOfTheVersion) {
  const KernelSpec plain = spec_measuring("");
  EXPECT_FALSE(plain.flush);
  EXPECT_FALSE(spec_measuring("{}").flush);
  const KernelSpec write = spec_measuring(R"({"flush": "write"})");
  EXPECT_EQ(write.flush, L2Flush::Write);
  EXPECT_EQ(spec_measuring(R"({"flush": "none"})").flush, L2Flush::None);
  EXPECT_EQ(spec_measuring(R"({"flush": "read"})").flush, L2Flush::Read);
  // A convention is stored beside each time, not in the kernel's version: specs that differ in it share one.
  EXPECT_EQ(write.hash, spec_measuring(R"({"flush": "none"})").hash);
  EXPECT_EQ(write.hash, spec_measuring("{}").hash);
  // The worker rebuilds the spec from its text: the field survives.
  EXPECT_EQ(KernelSpec::from_json(write.json, write.source, write.source_name).flush, L2Flush::Write);
}

TEST(SpecMeasure, BadFieldsAndValuesNameTheField) {
  const std::pair<const char*, const char*> bad[] = {
      {R"("write")", "spec k: measure: must be an object"},
      {R"({"flush": "dirty"})", "spec k: measure.flush: must be one of read, write, none, not \"dirty\""},
      {R"({"flush": true})", "spec k: measure.flush: must be one of read, write, none, not true"},
      {R"({"flush": "write", "repeats": 5})", "spec k: measure: unknown field 'repeats' (allowed: flush)"},
  };
  for (const auto& [measure, message] : bad) {
    const std::string error = measure_error(measure);
    EXPECT_NE(error.find(message), std::string::npos) << measure << ": " << error;
  }
}

TEST(SpecMeasure, CommandLineOverSpecOverRead) {
  const KernelSpec plain = spec_measuring("");
  const KernelSpec none = spec_measuring(R"({"flush": "none"})");
  EXPECT_EQ(plain.l2_flush(), L2Flush::Read);
  EXPECT_EQ(none.l2_flush(), L2Flush::None);
  for (const L2Flush asked : kEvery) {
    EXPECT_EQ(plain.l2_flush(asked), asked);
    EXPECT_EQ(none.l2_flush(asked), asked);
  }
}

// The options travel without a convention: the worker's is the one the tuner resolved, sent beside them.
TEST(WorkerProtocol, MeasureOptionsRoundTripAndTheConventionTravelsResolved) {
  MeasureOptions o;
  o.warmup = 3;
  o.repeats = 7;
  o.min_repeats = 2;
  o.max_measure_ms = 12.5;
  o.early_stop_ratio = 1.25;
  o.seed = 99;
  o.flush = L2Flush::Write;
  const MeasureOptions back = detail::measure_options_from_message(detail::to_message(o));
  EXPECT_FALSE(back.flush.has_value());
  EXPECT_EQ(back.warmup, 3);
  EXPECT_EQ(back.repeats, 7);
  EXPECT_EQ(back.min_repeats, 2);
  EXPECT_EQ(back.max_measure_ms, 12.5);
  EXPECT_EQ(back.early_stop_ratio, 1.25);
  EXPECT_EQ(back.seed, 99u);
  for (const L2Flush flush : kEvery) {
    EXPECT_EQ(detail::l2_flush_from_message(detail::Message(std::string(to_string(flush)))), flush);
  }
  EXPECT_THROW(detail::l2_flush_from_message(detail::Message("dirty")), InputError);
}

}  // namespace
}  // namespace cutune
