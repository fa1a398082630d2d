// Lookups stay fast as the database grows: SQLite's plan for each lookup statement reads an index in the order the
// answer needs (no sort of every configuration, no scan of the results table). A plan that sorts made the exact
// lookup 8x slower once (the 'unverified' status ordered by an expression the index could not give), and no timing
// test would have caught it on a loaded CI machine.
#include <SQLiteCpp/SQLiteCpp.h>

#include <string>
#include <vector>

#include "db/lookup.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

std::vector<std::string> plan_of(SQLite::Database& db, const SQLite::Statement& statement) {
  SQLite::Statement explain(db, "EXPLAIN QUERY PLAN " + statement.getQuery());
  std::vector<std::string> steps;
  while (explain.executeStep()) steps.push_back(explain.getColumn(3).getString());
  return steps;
}

std::string joined(const std::vector<std::string>& steps) {
  std::string all;
  for (const auto& s : steps) all += s + "; ";
  return all;
}

class LookupPlanTest : public TempDirTest {};


TEST_F(LookupPlanTest, NoLookupSortsOrScansTheResults) {
  {
    Database db(path("plan.db"));
    const auto run = db.begin_run(synthetic_device("NVIDIA H200", 9, 0, 132), {"gemm", "aaaaaaaaaaaaaaaa"}, "tune");
    for (int c = 0; c < 50; ++c) db.record(run, "1024x1024", ok_result("A=" + std::to_string(c), 1.0 + c));
    Result faster = ok_result("A=99", 0.5);
    faster.status = Status::Unverified;  // faster, but a verified result outranks it
    db.record(run, "1024x1024", faster);
    EXPECT_EQ(db.best({"gemm", "aaaaaaaaaaaaaaaa", synthetic_device("NVIDIA H200", 9, 0, 132), "1024x1024"})
                  ->result.config, "A=0");
  }
  SQLite::Database raw(path("plan.db").string(), SQLite::OPEN_READWRITE);
  Database::Statements statements(raw);
  const std::vector<std::pair<std::string, const SQLite::Statement*>> lookups{
      {"exact", &statements.exact},
      {"device_shapes", &statements.device_shapes},
      {"arch_shapes", &statements.arch_shapes},
      {"find_device", &statements.find_device},
      {"find_kernel", &statements.find_kernel}};
  for (const auto& [name, statement] : lookups) {
    const std::string plan = joined(plan_of(raw, *statement));
    EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << name << " sorts: " << plan;
    EXPECT_EQ(plan.find("SCAN r"), std::string::npos) << name << " scans the results: " << plan;
  }
  const std::string exact = joined(plan_of(raw, statements.exact));
  EXPECT_NE(exact.find("USING INDEX results_best"), std::string::npos) << exact;
}

// Answers are remembered between lookups (lookup_memo.hpp) only while the file is unchanged: a commit of this
// connection or of another one is seen by the next lookup.
TEST_F(LookupPlanTest, RememberedAnswersFollowEveryCommit) {
  const DeviceIdentity h200 = synthetic_device("NVIDIA H200", 9, 0, 132);
  const KernelIdentity kernel{"gemm", "aaaaaaaaaaaaaaaa"};
  const BestQuery exact{kernel.name, kernel.hash, h200, "1024x1024"};
  BestQuery nearest = exact;
  nearest.shape = "1000x1000";
  Database reader(path("memo.db"));
  const auto run = reader.begin_run(h200, kernel, "tune");
  reader.record(run, "1024x1024", ok_result("A=1", 2.0));
  EXPECT_EQ(reader.best(exact)->result.config, "A=1");
  EXPECT_EQ(reader.best_with_fallback(nearest)->result.config, "A=1");
  EXPECT_FALSE(reader.best(nearest).has_value());

  reader.record(run, "1024x1024", ok_result("A=2", 1.0));  // this connection
  EXPECT_EQ(reader.best(exact)->result.config, "A=2");
  EXPECT_EQ(reader.best_with_fallback(nearest)->result.config, "A=2");

  {
    Database writer(path("memo.db"));  // another connection, as another process would be
    const auto other = writer.begin_run(h200, kernel, "tune");
    writer.record(other, "1024x1024", ok_result("A=3", 0.5));
    writer.record(other, "1000x1000", ok_result("A=4", 0.5));
  }
  EXPECT_EQ(reader.best(exact)->result.config, "A=3");
  EXPECT_EQ(reader.best_with_fallback(nearest)->result.config, "A=4");
  EXPECT_EQ(reader.best_with_fallback(nearest)->match, Match::Exact);
  EXPECT_EQ(reader.best(nearest)->result.config, "A=4");
}

}  // namespace
}  // namespace cutune::testing
