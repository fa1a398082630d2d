// Tests of verification the user controls, on the host: the spec's "verify" section (good and bad input), tolerances
// and regions at a shape, the mismatch message, the early-stop decision and the worker messages that carry them.
#include <gtest/gtest.h>

#include "cutune/error.hpp"
#include "measure/workbench.hpp"
#include "worker/worker_protocol.hpp"
#include "spec_sample.hpp"
#include "tuner/verify_stop.hpp"

namespace cutune {
namespace {

using testing::spec_sample::error_after;
using testing::spec_sample::Json;
using testing::spec_sample::kSpec;
using testing::spec_sample::message_of;
using testing::spec_sample::parse;

KernelSpec with_verify(const Json& verify) {
  Json j = Json::parse(kSpec);
  j["verify"] = verify;
  return parse(j.dump());
}

std::string verify_error(const Json& verify) {
  return error_after([&](Json& j) { j["verify"] = verify; });
}

TEST(VerifySpec, AbsentMeansTheReferenceAndTheSpecsTolerance) {
  const KernelSpec s = parse(kSpec);
  EXPECT_EQ(s.verify_mode(), VerifyMode::Reference);
  EXPECT_EQ(s.verify_mode(VerifyMode::None), VerifyMode::None);
  EXPECT_DOUBLE_EQ(s.tolerance_at(Shape{{4, 4}}, "out").atol, 0.5);
  EXPECT_FALSE(s.region_at(Shape{{4, 4}}, "out", 16).has_value());
}

TEST(VerifySpec, ModeAndPerOutputBoundsOverrideTheSpec) {
  const KernelSpec s = with_verify({{"mode", "default"}, {"outputs", {{"out", {{"rtol", "1e-3 * N"}}}}}});
  EXPECT_EQ(s.verify_mode(), VerifyMode::Default);
  EXPECT_EQ(s.verify_mode(VerifyMode::Reference), VerifyMode::Reference);  // the command line wins
  const Tolerance t = s.tolerance_at(Shape{{4, 8}}, "out");
  EXPECT_DOUBLE_EQ(t.atol, 0.5);   // the spec's "tolerance", as the output gives no atol
  EXPECT_DOUBLE_EQ(t.rtol, 8e-3);  // the output's own, over the shape
  EXPECT_EQ(with_verify({{"mode", "none"}}).verify_mode(), VerifyMode::None);
}

TEST(VerifySpec, AKernelWithoutOutputsTunesByTimeAloneWhenItComparesNothing) {
  Json j = Json::parse(kSpec);
  j["arguments"][0]["output"] = false;
  j["verify"] = {{"mode", "none"}};
  EXPECT_EQ(parse(j.dump()).verify_mode(), VerifyMode::None);
  const KernelSpec timed = parse(j.dump());
  EXPECT_NO_THROW(check_verification(timed, Shape{{4, 4}}, VerifyMode::None));
  EXPECT_EQ(message_of<InputError>([&] { check_verification(timed, Shape{{4, 4}}, VerifyMode::Reference); }),
            "spec transpose has no output buffer to compare with a reference: tune it with --verify none");
  j["verify"] = {{"mode", "default"}};
  EXPECT_NE(message_of<SpecError>([&] { parse(j.dump()); }).find("no buffer has \"output\": true"), std::string::npos);
}

TEST(VerifySpec, TheVerifySectionIsPartOfTheKernelVersion) {
  // Results of another verification are not resumed as if they were this one's.
  EXPECT_NE(parse(kSpec).hash, with_verify({{"mode", "none"}}).hash);
}

TEST(VerifySpec, MarginRegionComparesTheInterior) {
  const KernelSpec s = with_verify({{"outputs", {{"out", {{"region", {{"extents", {"N", "M"}}, {"margin", 1}}}}}}}});
  const auto r = s.region_at(Shape{{6, 8}}, "out", 48);  // M = 6 rows of N = 8
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rank, 2);
  EXPECT_EQ(r->extents, (std::array<std::int64_t, 3>{8, 6, 1}));
  EXPECT_EQ(r->begin, (std::array<std::int64_t, 3>{1, 1, 0}));
  EXPECT_EQ(r->end, (std::array<std::int64_t, 3>{7, 5, 1}));
  EXPECT_EQ(r->count(), 24);
  EXPECT_EQ(r->coordinates(17), "[1, 2]");
}

TEST(VerifySpec, MarginPerDimensionAndBeginEnd) {
  const KernelSpec a =
      with_verify({{"outputs", {{"out", {{"region", {{"extents", {"N", "M"}}, {"margin", {"2", 0}}}}}}}}});
  const auto ra = a.region_at(Shape{{4, 8}}, "out", 32);
  ASSERT_TRUE(ra.has_value());
  EXPECT_EQ(ra->begin, (std::array<std::int64_t, 3>{2, 0, 0}));
  EXPECT_EQ(ra->end, (std::array<std::int64_t, 3>{6, 4, 1}));

  const KernelSpec b = with_verify(
      {{"outputs", {{"out", {{"region", {{"extents", {"M * N"}}, {"begin", {3}}, {"end", {"M * N - 1"}}}}}}}}});
  const auto rb = b.region_at(Shape{{4, 8}}, "out", 32);
  ASSERT_TRUE(rb.has_value());
  EXPECT_EQ(rb->rank, 1);
  EXPECT_EQ(rb->count(), 28);
  EXPECT_EQ(rb->coordinates(5), "[5]");
}

TEST(VerifySpec, ARegionThatDoesNotFitIsOneClearError) {
  const KernelSpec s = with_verify({{"outputs", {{"out", {{"region", {{"extents", {"N", "M"}}, {"margin", "N // 2"}}}}}}}});
  EXPECT_EQ(message_of<InputError>([&] { s.region_at(Shape{{8, 8}}, "out", 60); }),
            "spec transpose: the verify region of out at shape 8x8: the extents multiply to 64, but out has 60 "
            "elements");
  EXPECT_EQ(message_of<InputError>([&] { s.region_at(Shape{{8, 8}}, "out", 64); }),
            "spec transpose: the verify region of out at shape 8x8: dimension 0 of extent 8 would compare indices 4 "
            "to 3, which hold no element of the array");
}

TEST(VerifySpec, CheckVerificationRefusesAShapeTheRegionDoesNotFit) {
  const KernelSpec s = with_verify({{"outputs", {{"out", {{"region", {{"extents", {"N", 4}}, {"margin", 1}}}}}}}});
  EXPECT_NO_THROW(check_verification(s, Shape{{4, 8}}, VerifyMode::Reference));
  EXPECT_EQ(message_of<InputError>([&] { check_verification(s, Shape{{5, 8}}, VerifyMode::Reference); }),
            "spec transpose: the verify region of out at shape 5x8: the extents multiply to 32, but out has 40 "
            "elements");
  EXPECT_NO_THROW(check_verification(parse(kSpec), Shape{{5, 8}}, VerifyMode::Reference));
}

TEST(VerifySpec, BadSectionsAreOneClearErrorEach) {
  const auto region = [](const Json& r) { return Json{{"outputs", {{"out", {{"region", r}}}}}}; };
  const std::vector<std::pair<Json, std::string>> cases = {
      {Json("none"), "spec transpose: verify: must be an object with \"mode\" and/or \"outputs\""},
      {{{"modes", "none"}}, "spec transpose: verify: unknown field 'modes' (allowed: mode, outputs)"},
      {{{"mode", "sometimes"}}, "spec transpose: verify.mode: must be reference, default or none, not \"sometimes\""},
      {{{"outputs", {1, 2}}}, "spec transpose: verify.outputs: must be an object of output name: {atol, rtol, region}"},
      {{{"outputs", {{"in", Json::object()}}}}, "spec transpose: verify.outputs.in: 'in' is not an output buffer (outputs: out)"},
      {{{"outputs", {{"nope", Json::object()}}}},
       "spec transpose: verify.outputs.nope: 'nope' is not an output buffer (outputs: out)"},
      {{{"outputs", {{"out", 1}}}}, "spec transpose: verify.outputs.out: must be an object with atol, rtol and/or region"},
      {{{"outputs", {{"out", {{"tol", 1}}}}}},
       "spec transpose: verify.outputs.out: unknown field 'tol' (allowed: atol, rtol, region)"},
      {{{"outputs", {{"out", {{"atol", -1}}}}}}, "spec transpose: verify.outputs.out.atol: must be a number >= 0"},
      {{{"outputs", {{"out", {{"rtol", "TILE * 1e-3"}}}}}},
       "spec transpose: verify.outputs.out.rtol: may use shape names only, not the parameter TILE"},
      {region(Json::object()), "spec transpose: verify.outputs.out.region.extents: missing"},
      {region({{"extents", {"N", "M", 1, 1}}, {"margin", 1}}),
       "spec transpose: verify.outputs.out.region.extents: must be a list of 1 to 3 expressions, innermost first"},
      {region({{"extents", {"N", "M"}}, {"margin", 1}, {"begin", {0, 0}}}),
       "spec transpose: verify.outputs.out.region: give \"margin\" or \"begin\" and \"end\", not both"},
      {region({{"extents", {"N", "M"}}, {"begin", {0, 0}}}),
       "spec transpose: verify.outputs.out.region: needs \"margin\", or both \"begin\" and \"end\""},
      {region({{"extents", {"N", "M"}}, {"margin", {1}}}),
       "spec transpose: verify.outputs.out.region.margin: must be a list of 2 expressions, one per extent"},
      {region({{"extents", {"N", "K"}}, {"margin", 1}}),
       "spec transpose: verify.outputs.out.region.extents[1]: unknown name 'K' in 'K'"},
      {region({{"extents", {"N", "M"}}, {"margin", 1}, {"step", 2}}),
       "spec transpose: verify.outputs.out.region: unknown field 'step' (allowed: extents, margin, begin, end)"},
  };
  for (const auto& [verify, message] : cases) EXPECT_EQ(verify_error(verify), message) << verify.dump();
}

TEST(VerifyModeNames, RoundTrip) {
  for (VerifyMode m : {VerifyMode::Reference, VerifyMode::Default, VerifyMode::None}) {
    EXPECT_EQ(parse_verify_mode(to_string(m)), m);
  }
  EXPECT_FALSE(parse_verify_mode("None").has_value());
  EXPECT_FALSE(parse_verify_mode("").has_value());
}

TEST(DisagreementMessage, ShowsWhereWithTheReferencesValues) {
  const Disagreement d{"out", 288, 0, 16777216};
  const std::vector<detail::MismatchSample> samples = {{0, 1e18, 0.25}, {1, -3.5, 2}};
  EXPECT_EQ(detail::describe_disagreement("out", d, 1e18, samples, std::nullopt),
            "288 of 16777216 elements of out differ from the reference (first at index 0, largest error 1e+18): "
            "out[0] = 1e+18 (reference 0.25), out[1] = -3.5 (reference 2), ...");
  Region r;
  r.rank = 2;
  r.extents = {8, 8, 1};
  r.begin = {1, 1, 0};
  r.end = {7, 7, 1};
  const Disagreement inside{"out", 1, 10, 36};
  EXPECT_EQ(detail::describe_disagreement("out", inside, 0.5, {{10, 1.5, 1}}, r),
            "1 of 36 compared elements of out differ from the reference (first at index 10 [2, 1], largest error "
            "0.5): out[10] = 1.5 (reference 1)");
}

Result wrong(const std::string& config, const std::string& output, std::uint64_t count, std::uint64_t first) {
  Result r;
  r.config = config;
  r.status = Status::WrongResult;
  r.message = std::to_string(count) + " of 100 elements of " + output + " differ from the reference";
  r.disagreement = Disagreement{output, count, first, 100};
  return r;
}

Result with_status(const std::string& config, Status status) {
  Result r;
  r.config = config;
  r.status = status;
  return r;
}

TEST(SameDisagreement, SameOutputAndFirstIndexOrCount) {
  using detail::same_disagreement;
  EXPECT_TRUE(same_disagreement({wrong("A=1", "out", 64, 0), wrong("A=2", "out", 288, 0)}));     // same first index
  EXPECT_TRUE(same_disagreement({wrong("A=1", "out", 64, 0), wrong("A=2", "out", 64, 4095)}));   // same count
  EXPECT_FALSE(same_disagreement({wrong("A=1", "out", 64, 0), wrong("A=2", "out", 65, 7)}));     // neither
  EXPECT_FALSE(same_disagreement({wrong("A=1", "out", 64, 0), wrong("A=2", "out2", 64, 0)}));    // other output
  EXPECT_FALSE(same_disagreement({wrong("A=1", "out", 64, 0), with_status("A=2", Status::Ok)}));
  Result no_detail = wrong("A=3", "out", 64, 0);
  no_detail.disagreement.reset();  // a wrong result read back from the database
  EXPECT_FALSE(same_disagreement({wrong("A=1", "out", 64, 0), no_detail}));
  EXPECT_FALSE(same_disagreement({}));
}

TEST(DisagreementWatch, StopsOnlyWhenTheFirstThatRanAllAgree) {
  detail::DisagreementWatch watch(3);
  EXPECT_FALSE(watch.hear(wrong("A=1", "out", 64, 0)));
  EXPECT_FALSE(watch.hear(with_status("A=2", Status::CompileError)));  // did not run: not counted
  EXPECT_FALSE(watch.hear(wrong("A=3", "out", 100, 0)));
  EXPECT_TRUE(watch.hear(wrong("A=4", "out", 288, 0)));
  EXPECT_TRUE(watch.stopped());
  EXPECT_FALSE(watch.hear(wrong("A=5", "out", 288, 0)));  // decided once
  const std::string message = watch.message("transpose_reference");
  EXPECT_EQ(message.rfind("stopped early: the first 3 configurations that ran all differ from the reference "
                          "(transpose_reference) in the same way",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("\n  A=1: 64 of 100 elements of out differ"), std::string::npos) << message;
  EXPECT_EQ(message.find("A=2"), std::string::npos) << message;
  for (const char* way : {"--verify none", "--atol", "--rtol", "\"verify\" region", "fill range"}) {
    EXPECT_NE(message.find(way), std::string::npos) << way;
  }
}

TEST(DisagreementWatch, GoesOnWhenOneIsRightOrTheyDiffer) {
  detail::DisagreementWatch right(2);
  EXPECT_FALSE(right.hear(wrong("A=1", "out", 64, 0)));
  EXPECT_FALSE(right.hear(with_status("A=2", Status::Ok)));
  EXPECT_FALSE(right.hear(wrong("A=3", "out", 64, 0)));
  EXPECT_FALSE(right.stopped());

  detail::DisagreementWatch differ(2);
  EXPECT_FALSE(differ.hear(wrong("A=1", "out", 64, 0)));
  EXPECT_FALSE(differ.hear(wrong("A=2", "out", 3, 9)));
  EXPECT_FALSE(differ.stopped());

  detail::DisagreementWatch never(0);
  EXPECT_FALSE(never.hear(wrong("A=1", "out", 64, 0)));
  EXPECT_FALSE(never.stopped());
}

TEST(VerifyMessages, MeasureOptionsAndDisagreementsReachTheWorker) {
  MeasureOptions o;
  o.verify = VerifyMode::Default;
  o.atol = 1e-3;
  const MeasureOptions back = detail::measure_options_from_message(detail::to_message(o));
  EXPECT_EQ(back.verify, VerifyMode::Default);
  EXPECT_EQ(back.atol, 1e-3);
  EXPECT_FALSE(back.rtol.has_value());
  const MeasureOptions plain = detail::measure_options_from_message(detail::to_message(MeasureOptions{}));
  EXPECT_FALSE(plain.verify.has_value());
  EXPECT_FALSE(plain.atol.has_value());

  // Every number of the table travels: each set to a value of its own, off its default.
  MeasureOptions numbers;
  double value = 2.0;
  for (const auto& f : kMeasureOptionFields) set_option(numbers, f, value++);
  const MeasureOptions numbers_back = detail::measure_options_from_message(detail::to_message(numbers));
  value = 2.0;
  for (const auto& f : kMeasureOptionFields) EXPECT_EQ(option_value(numbers_back, f), value++) << f.name;

  detail::Message m = detail::to_message(o);
  m["verify"] = "sometimes";
  EXPECT_THROW(detail::measure_options_from_message(m), InputError);

  const Result r = detail::result_from_message(detail::to_message(wrong("A=1", "out", 64, 7)));
  ASSERT_TRUE(r.disagreement.has_value());
  EXPECT_EQ(r.disagreement->output, "out");
  EXPECT_EQ(r.disagreement->count, 64u);
  EXPECT_EQ(r.disagreement->first, 7u);
  EXPECT_EQ(r.disagreement->compared, 100u);
  EXPECT_FALSE(detail::result_from_message(detail::to_message(with_status("A=2", Status::Unverified))).disagreement);
  EXPECT_EQ(detail::result_from_message(detail::to_message(with_status("A=2", Status::Unverified))).status,
            Status::Unverified);
}

TEST(VerifySupportKernels, CompileThroughNvrtcWithoutAGpu) {
  // The comparison over a region and the look for a few differing elements, for every element type.
  for (std::size_t part = 0; part < detail::kSupportParts; ++part) {
    EXPECT_NO_THROW(detail::cache_support_kernels("sm_90", nullptr, part));
  }
}

}  // namespace
}  // namespace cutune
