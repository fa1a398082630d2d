// Opening database files: an empty file becomes a database; files that are not cutune's (another SQLite schema,
// text, truncated or corrupt pages, a newer schema version, a missing folder) are refused with a DatabaseError and
// left as they were.
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

std::string open_error(const fs::path& path) {
  try {
    Database db(path);
  } catch (const DatabaseError& e) {
    return e.what();
  }
  return "(no error)";
}

class DatabaseFileTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    path_ = path("tune.db");
  }

  fs::path path_;
  DeviceIdentity device_ = synthetic_device("NVIDIA H200", 9, 0, 132);
  KernelIdentity kernel_{"gemm", "abc123"};
  std::string shape_ = "4096x4096x4096";
};

TEST_F(DatabaseFileTest, EmptyFileBecomesADatabase) {
  write_bytes(path_, "");
  Database db(path_);
  db.record(db.begin_run(device_, kernel_, "tune"), shape_, ok_result("A=1", 1.0));
  EXPECT_EQ(db.entries().size(), 1u);
}

TEST_F(DatabaseFileTest, ForeignSqliteFileIsRefusedUntouched) {
  {
    SQLite::Database other(path_.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("CREATE TABLE accounts(id INTEGER PRIMARY KEY, owner TEXT); INSERT INTO accounts VALUES(1, 'x')");
  }
  const std::string before = read_bytes(path_);
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(open_error(path_), "'" + path_.string() + "' is not a cutune database");
  EXPECT_EQ(read_bytes(path_), before);
  SQLite::Database other(path_.string());
  EXPECT_FALSE(other.tableExists("results"));
  EXPECT_FALSE(other.tableExists("meta"));
}

TEST_F(DatabaseFileTest, ForeignMetaTableIsRefused) {
  {
    SQLite::Database other(path_.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES('application', 'kt')");
  }
  const std::string before = read_bytes(path_);
  EXPECT_EQ(open_error(path_), "'" + path_.string() + "' is not a cutune database");
  EXPECT_EQ(read_bytes(path_), before);
}

TEST_F(DatabaseFileTest, TextFileIsRefused) {
  const std::string text = "these are not the pages you are looking for\n" + std::string(200, 'x');
  write_bytes(path_, text);
  EXPECT_EQ(open_error(path_), "'" + path_.string() + "' is not a cutune database (not SQLite)");
  EXPECT_EQ(read_bytes(path_), text);
}

TEST_F(DatabaseFileTest, TruncatedFileIsRefused) {
  {
    Database db(path_);
    const auto run = db.begin_run(device_, kernel_, "tune");
    for (int i = 0; i < 300; ++i) {
      db.record(run, shape_, ok_result("CONFIG=" + std::string(100, 'a' + i % 26) + std::to_string(i), i));
    }
  }
  const std::string whole = read_bytes(path_);
  ASSERT_GT(whole.size(), 16'384u);
  for (const std::size_t keep : {whole.size() / 2, whole.size() - 100, std::size_t{4096}, std::size_t{50}}) {
    write_bytes(path_, whole.substr(0, keep));
    const std::string message = open_error(path_);
    EXPECT_NE(message, "(no error)") << "kept " << keep << " bytes";
    EXPECT_NE(message.find(path_.string()), std::string::npos) << message;
  }
}

TEST_F(DatabaseFileTest, CorruptPagesGiveDatabaseError) {
  {
    Database db(path_);
    const auto run = db.begin_run(device_, kernel_, "tune");
    for (int i = 0; i < 300; ++i) db.record(run, shape_, ok_result("CONFIG=" + std::to_string(i) + std::string(100, 'q'), i));
  }
  std::string bytes = read_bytes(path_);
  std::mt19937 random(7);
  for (std::size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(random());
  write_bytes(path_, bytes);
  EXPECT_THROW(
      {
        Database db(path_);
        db.entries();
        db.results(device_, kernel_, shape_);
      },
      DatabaseError);
}

TEST_F(DatabaseFileTest, NewerSchemaVersionIsRefused) {
  { Database db(path_); }
  {
    SQLite::Database raw(path_.string(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE meta SET value = '" + std::to_string(Database::kSchemaVersion + 1) + "' WHERE key = 'schema_version'");
  }
  const std::string message = open_error(path_);
  EXPECT_NE(message.find("schema version " + std::to_string(Database::kSchemaVersion + 1)), std::string::npos) << message;
  EXPECT_NE(message.find("newer cutune"), std::string::npos) << message;
}

TEST_F(DatabaseFileTest, MissingDirectoryIsRefused) {
  EXPECT_EQ(open_error("/nonexistent_dir/x.db").rfind("cannot create database '/nonexistent_dir/x.db': ", 0), 0u);
  EXPECT_FALSE(fs::exists("/nonexistent_dir"));
  EXPECT_EQ(open_error(dir_ / "missing" / "x.db").rfind("cannot create database", 0), 0u);
  EXPECT_NE(open_error(dir_), "(no error)");  // a directory is not a database file
}

}  // namespace
}  // namespace cutune::testing
