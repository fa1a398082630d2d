// Tests of the runtime's rule among an operation's implementations (runtime/operation_choice.hpp), and of the order in
// which an operation's implementations have their first turns (requests/operation_tune.cpp).
#include "runtime/operation_choice.hpp"

#include <gtest/gtest.h>

#include "cutune/operation_budget.hpp"
#include "cutune/requests.hpp"

namespace cutune {
namespace {

const OperationSpec& matmul() {
  // gemm_bf16, gemm_bf16_cublaslt (untuned: the heuristic's answers by rank), gemm_bf16_cublaslt_config (by attributes)
  static const OperationSpec op = load_operation("matmul_bf16");
  return op;
}

detail::ImplementationAnswer answer(Match match, double ms, std::optional<double> untuned_there = std::nullopt,
                                    double distance = 0.3) {
  detail::ImplementationAnswer a;
  a.choice.match = match;
  a.choice.distance = distance;
  a.choice.result.status = Status::Ok;
  a.choice.result.median_ms = ms;
  a.untuned_ms_there = untuned_there;
  return a;
}

TEST(OperationChoice, TheFastestMeasuredAtTheShapeWins) {
  const auto unmeasured = answer(Match::Default, 0.0);
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Exact, 1.0), answer(Match::Exact, 1.1), unmeasured}),
            0u);
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Exact, 1.2), answer(Match::Exact, 1.1), unmeasured}),
            1u);
  // cuBLASLt configured by attributes, measured fastest at the shape.
  EXPECT_EQ(detail::choose_implementation(
                matmul(), {answer(Match::Exact, 1.2), answer(Match::Exact, 1.1), answer(Match::Exact, 1.05)}),
            2u);
  // One measured at the shape beats any prediction, however fast.
  EXPECT_EQ(detail::choose_implementation(
                matmul(), {answer(Match::Predicted, 0.1, 9.0), answer(Match::Exact, 1.1), unmeasured}),
            1u);
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Exact, 1.5), unmeasured, unmeasured}), 0u);
}

// A template faster than the library at the shape by less than kExactMargin (within what two tuning runs differ by)
// leaves the library launched.
TEST(OperationChoice, ATemplateWithinNoiseOfTheLibraryLeavesTheLibrary) {
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Exact, 1.0), answer(Match::Exact, 1.005)}), 1u);
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Exact, 1.0), answer(Match::Exact, 1.02)}), 0u);
  auto failed = answer(Match::Exact, 1.005);
  failed.choice.result.status = Status::WrongResult;
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Exact, 1.0), failed}), 0u);
  // With both cuBLASLt families measured, the faster of them stays.
  EXPECT_EQ(detail::choose_implementation(
                matmul(), {answer(Match::Exact, 1.0), answer(Match::Exact, 1.008), answer(Match::Exact, 1.004)}),
            2u);
}

TEST(OperationChoice, AFailedResultAtTheShapeDoesNotCount) {
  auto failed = answer(Match::Exact, 0.5);
  failed.choice.result.status = Status::WrongResult;
  EXPECT_EQ(detail::choose_implementation(matmul(), {failed, answer(Match::Default, 0.0), answer(Match::Default, 0.0)}),
            1u);
  auto refused = answer(Match::Exact, 0.01);  // a configuration cuBLASLt refused at the shape
  refused.choice.result.status = Status::LaunchError;
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Exact, 1.0), answer(Match::Exact, 1.1), refused}),
            0u);
}

// Nobody measured the shape: cuBLASLt's own choice, unless the template was predicted from a shape where it beat
// cuBLASLt's best by 5% or more, at a shape near this one.
TEST(OperationChoice, AtAnUntunedShapeTheLibraryUnlessATemplateWonClearlyNearby) {
  const auto unmeasured = answer(Match::Default, 0.0);
  EXPECT_EQ(detail::choose_implementation(matmul(), {unmeasured, unmeasured, unmeasured}), 1u);
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Predicted, 1.0), unmeasured, unmeasured}), 1u);
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Predicted, 1.0, 1.04), unmeasured, unmeasured}),
            1u);
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Predicted, 1.0, 1.05), unmeasured, unmeasured}),
            0u);
  // A margin measured far away is no evidence here, however large.
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Predicted, 1.0, 1.5, detail::kTemplateReach + 0.01),
                                                     answer(Match::Default, 0.0)}),
            1u);
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::Predicted, 1.0, 1.5, detail::kTemplateReach),
                                                     answer(Match::Default, 0.0)}),
            0u);
  // Another GPU's result (same compute capability) is no evidence about this one.
  EXPECT_EQ(detail::choose_implementation(matmul(), {answer(Match::SameArchitecture, 1.0, 2.0), unmeasured, unmeasured}),
            1u);
  // A configuration by attributes names one algorithm at the shape it was measured at: never launched elsewhere.
  EXPECT_EQ(detail::choose_implementation(matmul(), {unmeasured, unmeasured, answer(Match::Predicted, 0.5, 2.0)}), 1u);
  EXPECT_EQ(detail::choose_implementation(
                matmul(), {answer(Match::Predicted, 1.0, 1.2), unmeasured, answer(Match::Predicted, 0.5, 2.0)}),
            0u);
}

TEST(OperationChoice, WithoutAnUntunedImplementationTheFirstOnesFallback) {
  OperationSpec op = matmul();
  op.untuned.reset();
  EXPECT_EQ(detail::choose_implementation(
                op, {answer(Match::Predicted, 1.0), answer(Match::Default, 0.0), answer(Match::Default, 0.0)}),
            0u);
}

TEST(OperationBudget, TheLibraryHasItsFirstTurnFirst) {
  // cuBLASLt by rank, by attributes, then the template, which splits no first share with them.
  EXPECT_EQ(operation_tuning_order(matmul()), (std::vector<std::size_t>{1, 2, 0}));
  EXPECT_EQ(operation_share_groups(matmul()), (std::vector<std::size_t>{0, 1, 1}));
  EXPECT_EQ(operation_share_groups(load_operation("matmul_fp8_e5m2")), (std::vector<std::size_t>{0, 1}));
}

}  // namespace
}  // namespace cutune
