// The wanted shapes: the database's list (counts add up, times widen, untrusted entries refused whole), its JSON
// file, and the Runtime's log of them (stored at once, counts at the end, kept in memory when the database refuses).
#include <fstream>

#include "db_test_support.hpp"
#include "runtime/wanted_log.hpp"

namespace cutune::testing {
namespace {

WantedShape wanted(const std::string& shape, std::int64_t count, const std::string& first, const std::string& last) {
  WantedShape w;
  w.kernel = {"gemm_bf16", "0123456789abcdef"};
  w.device = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  w.flush = L2Flush::Write;
  w.shape = shape;
  w.count = count;
  w.first_at = first;
  w.last_at = last;
  return w;
}

class WantedTest : public TempDirTest {};

TEST_F(WantedTest, CountsAddUpAndTimesWiden) {
  Database db(path("w.db"));
  EXPECT_TRUE(db.wanted().empty());
  db.add_wanted({wanted("512x4096x4096", 3, "2026-01-02T00:00:00.000000Z", "2026-01-03T00:00:00.000000Z"),
                 wanted("1x4096x4096", 1, "2026-01-02T00:00:00.000000Z", "2026-01-02T00:00:00.000000Z")});
  db.add_wanted({wanted("512x4096x4096", 2, "2026-01-01T00:00:00.000000Z", "2026-01-02T12:00:00.000000Z")});
  const auto all = db.wanted();
  ASSERT_EQ(all.size(), 2u);
  const auto& big = all[0].shape == "512x4096x4096" ? all[0] : all[1];
  EXPECT_EQ(big.count, 5);
  EXPECT_EQ(big.first_at, "2026-01-01T00:00:00.000000Z");
  EXPECT_EQ(big.last_at, "2026-01-03T00:00:00.000000Z");
  EXPECT_EQ(big.flush, L2Flush::Write);
  EXPECT_EQ(big.kernel.hash, "0123456789abcdef");
  EXPECT_EQ(big.device.sm_count, 132);
  // Another L2 convention is another key.
  auto read = wanted("512x4096x4096", 1, "2026-01-05T00:00:00.000000Z", "2026-01-05T00:00:00.000000Z");
  read.flush = L2Flush::Read;
  db.add_wanted({read});
  EXPECT_EQ(db.wanted().size(), 3u);
}

TEST_F(WantedTest, AnInvalidEntryRefusesTheWholeListNamingIt) {
  Database db(path("w.db"));
  const auto good = wanted("64x64", 1, "2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:00.000000Z");
  for (auto bad : {wanted("64xx64", 1, good.first_at, good.last_at), wanted("64x64", 0, good.first_at, good.last_at),
                   wanted("64x64", 1, good.last_at, "2025-01-01T00:00:00.000000Z"),
                   wanted("64x64\n", 1, good.first_at, good.last_at)}) {
    const std::string message = error_of([&] { db.add_wanted({good, bad}, "file.json"); });
    EXPECT_NE(message.find("file.json: entry 2"), std::string::npos) << message;
  }
  EXPECT_TRUE(db.wanted().empty());
}

TEST_F(WantedTest, TheJsonFileRoundTripsAndIsCheckedWhenRead) {
  const std::vector<WantedShape> shapes{
      wanted("512x4096x4096", 3, "2026-01-02T00:00:00.000000Z", "2026-01-03T00:00:00.000000Z")};
  save_wanted(shapes, path("wanted.json"));
  const auto back = load_wanted(path("wanted.json"));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(same_key(back[0], shapes[0]));
  EXPECT_EQ(back[0].count, 3);
  EXPECT_EQ(back[0].last_at, shapes[0].last_at);

  write_bytes(path("bad.json"), R"([{"kernel": "gemm", "kernel_hash": "ab", "device": {"name": "X", "cc_major": 9,
    "cc_minor": 0, "sm_count": 132}, "flush": "hot", "shape": "8x8", "count": 1, "first_at": "a", "last_at": "a"}])");
  std::string message = error_of([&] { load_wanted(path("bad.json")); });
  EXPECT_NE(message.find("entry 1"), std::string::npos) << message;
  EXPECT_NE(message.find("hot"), std::string::npos) << message;
  write_bytes(path("bad.json"), R"({"kernel": "gemm"})");
  message = error_of([&] { load_wanted(path("bad.json")); });
  EXPECT_NE(message.find("not a list"), std::string::npos) << message;
  write_bytes(path("bad.json"), R"([{"kernel": "gemm"}])");
  message = error_of([&] { load_wanted(path("bad.json")); });
  EXPECT_NE(message.find("malformed"), std::string::npos) << message;
}

TEST_F(WantedTest, TheRuntimeLogStoresANewShapeAtOnceAndCountsWhenAsked) {
  Database db(path("w.db"));
  detail::WantedLog log;
  auto key = wanted("100x100", 0, "", "");
  auto& entry = log.note(key, &db);
  ASSERT_EQ(db.wanted().size(), 1u);
  EXPECT_EQ(db.wanted()[0].count, 1);
  detail::WantedLog::count(entry);
  log.note(key, &db);  // a second kernel() of the same key: counted, nothing written yet
  EXPECT_EQ(db.wanted()[0].count, 1);
  EXPECT_EQ(log.shapes()[0].count, 3);
  log.store(&db);
  EXPECT_EQ(db.wanted()[0].count, 3);
  log.store(&db);  // nothing new: nothing added twice
  EXPECT_EQ(db.wanted()[0].count, 3);
  EXPECT_LE(db.wanted()[0].first_at, db.wanted()[0].last_at);
}

TEST_F(WantedTest, ADatabaseThatRefusesKeepsTheShapesInMemory) {
  Database db(path("w.db"));
  {
    SQLite::Database raw(path("w.db").string(), SQLite::OPEN_READWRITE);
    raw.exec("DROP TABLE wanted");  // every write of a wanted shape now fails, as on a read-only file
  }
  detail::WantedLog log;
  log.note(wanted("100x100", 0, "", ""), &db);
  log.note(wanted("200x200", 0, "", ""), &db);
  log.store(&db);
  const auto kept = log.shapes();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1].shape, "200x200");
  save_wanted(kept, path("kept.json"));
  Database other(path("other.db"));
  other.add_wanted(load_wanted(path("kept.json")));
  EXPECT_EQ(other.wanted().size(), 2u);
}

TEST_F(WantedTest, AnOldDatabaseGainsTheList) {
  write_version1_database(path("old.db"));
  Database db(path("old.db"));
  EXPECT_TRUE(db.wanted().empty());
  db.add_wanted({wanted("8x8", 1, "2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:00.000000Z")});
  EXPECT_EQ(db.wanted().size(), 1u);
}

}  // namespace
}  // namespace cutune::testing
