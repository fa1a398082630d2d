// Databases and files from elsewhere are untrusted input: hostile rows are refused at merge, import, best and the
// runtime's choice, with a message naming the file and the value, and nothing already stored changes.
#include <SQLiteCpp/SQLiteCpp.h>

#include <sstream>

#include "cutune/error.hpp"
#include "cutune/exchange.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

const KernelIdentity kForeign{"my_kernel", "2222222222222222"};
const std::string kGoodTranspose = "TILE=32,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0";

class UntrustedRows : public TempDirTest {
 protected:
  // A database with one ok result of `kernel` at 1024x1024, whose row is then rewritten with `sql` (as someone
  // else's tool or a hand edit could leave it).
  fs::path hostile(const std::string& name, const KernelIdentity& kernel, const std::string& config,
                   const std::string& sql) {
    const fs::path file = path(name);
    {
      Database db(file);
      db.record(db.begin_run(gpu_, kernel, "tune"), "1024x1024", ok_result(config, 0.5));
    }
    SQLite::Database raw(file.string(), SQLite::OPEN_READWRITE);
    raw.exec(sql);
    return file;
  }
  std::string merge_error(const fs::path& input) {
    try {
      merge_databases({input}, path("out.db"));
    } catch (const InputError& e) {
      return e.what();
    }
    return "(merged)";
  }

  DeviceIdentity gpu_ = synthetic_device("NVIDIA H200", 9, 0, 132, "GPU-a");
};

TEST_F(UntrustedRows, MergeRefusesHostileConfigurationsAndWritesNothing) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"TILE=32 -include /etc/passwd", "invalid configuration 'TILE=32 -include /etc/passwd'"},
      {"TILE=32\nX=1", "invalid configuration 'TILE=32\\x0aX=1'"},
      {"TILE=32,-DEVIL=1", "invalid configuration"},
      {std::string(400000, 'A') + "=1", "(400002 characters)"},
  };
  int n = 0;
  for (const auto& [config, expected] : cases) {
    std::string text = config;
    std::string escaped;
    for (char c : text) escaped += c == '\'' ? std::string("''") : std::string(1, c);
    const fs::path file = hostile("h" + std::to_string(n++) + ".db", kForeign, "TILE=32",
                                  "UPDATE results SET config = '" + escaped + "'");
    const std::string message = merge_error(file);
    EXPECT_NE(message.find(file.string()), std::string::npos) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_LT(message.size(), 400u) << "the message repeats a huge value";
    EXPECT_FALSE(fs::exists(path("out.db"))) << "nothing is written when an input is refused";
  }
}

TEST_F(UntrustedRows, MergeRefusesTimesThatAreNotFiniteOrNegative) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"UPDATE results SET median_ms = -1", "invalid time -1"},
      {"UPDATE results SET median_ms = NULL", "ok but has no median time"},
      {"UPDATE results SET samples = '[0.5,-2]'", "invalid time sample -2"},
      {"UPDATE results SET min_ms = 1e999", "invalid time inf"},
  };
  int n = 0;
  for (const auto& [sql, expected] : cases) {
    const std::string message = merge_error(hostile("t" + std::to_string(n++) + ".db", kForeign, "TILE=32", sql));
    EXPECT_NE(message.find(expected), std::string::npos) << sql << ": " << message;
  }
  // The untouched database merges.
  EXPECT_EQ(merge_error(hostile("fine.db", kForeign, "TILE=32", "SELECT 1")), "(merged)");
}

TEST_F(UntrustedRows, MergeRefusesResourcesNoGpuReports) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"UPDATE results SET spill_bytes = -4", "invalid spill size -4"},
      {"UPDATE results SET threads_per_block = 100000", "invalid block size 100000"},
      {"UPDATE results SET blocks_per_sm = 99999", "invalid count of blocks per SM 99999"},
      {"UPDATE results SET static_smem = -1", "invalid static shared memory size -1"},
      {"UPDATE results SET peak = 1e999", "invalid peak inf"},
      {"UPDATE results SET metric = -3", "invalid metric -3"},
  };
  int n = 0;
  for (const auto& [sql, expected] : cases) {
    const std::string message = merge_error(hostile("r" + std::to_string(n++) + ".db", kForeign, "TILE=32", sql));
    EXPECT_NE(message.find(expected), std::string::npos) << sql << ": " << message;
  }
  // Real figures of a large GPU pass.
  EXPECT_EQ(merge_error(hostile("big.db", kForeign, "TILE=32",
                                "UPDATE results SET threads_per_block = 1024, static_smem = 232448, blocks_per_sm = 32, "
                                "blocks = 4294967296, peak = 989000")),
            "(merged)");
}

TEST_F(UntrustedRows, ConfigurationsOfAKnownKernelMustBeValid) {
  const KernelSpec spec = load_kernel("transpose");
  const KernelIdentity transpose{spec.name, spec.hash};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kGoodTranspose + ",EVIL=1", "unknown parameter 'EVIL'"},
      {"TILE=7,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0", "invalid value '7' for TILE"},
      {"TILE=16,VEC=4,ROWS=32,SMEM=1,PAD=1,COALESCE=0", "violates the constraint"},
      {"TILE=32,VEC=4,ROWS=8", "misses parameter SMEM"},
  };
  int n = 0;
  for (const auto& [config, expected] : cases) {
    const std::string message =
        merge_error(hostile("k" + std::to_string(n++) + ".db", transpose, kGoodTranspose,
                            "UPDATE results SET config = '" + config + "'"));
    EXPECT_NE(message.find(expected), std::string::npos) << config << ": " << message;
  }
  EXPECT_EQ(merge_error(hostile("good.db", transpose, kGoodTranspose, "SELECT 1")), "(merged)");
}

TEST_F(UntrustedRows, ImportRefusesAHostileFileAndKeepsWhatIsStored) {
  const fs::path source = hostile("source.db", kForeign, "TILE=32", "SELECT 1");
  std::ostringstream text;
  {
    Database db(source);
    export_runs(db, "json", text);
  }
  std::string json = text.str();
  json.replace(json.find("TILE=32"), 7, "TILE=32 -include /etc/passwd");
  write_bytes(path("hostile.json"), json);
  Database target(path("target.db"));
  target.record(target.begin_run(gpu_, kForeign, "tune"), "2048x2048", ok_result("TILE=64", 0.7));
  try {
    import_file(target, path("hostile.json"));
    FAIL() << "a hostile file was imported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hostile.json"), std::string::npos) << e.what();
  }
  EXPECT_EQ(target.results(gpu_, kForeign, "2048x2048").size(), 1u);
  EXPECT_TRUE(target.results(gpu_, kForeign, "1024x1024").empty());
}

TEST_F(UntrustedRows, TheRuntimeChoiceRefusesAStoredConfigurationThatIsNotTheSpecs) {
  const KernelSpec spec = load_kernel("transpose");
  const fs::path file = hostile("best.db", {spec.name, spec.hash}, kGoodTranspose,
                                "UPDATE results SET config = 'TILE=32 -include /etc/passwd'");
  Database db(file);
  try {
    choose_config(&db, spec, gpu_, spec.parse_shape("1024x1024"));
    FAIL() << "a hostile stored configuration was chosen";
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("best.db"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not valid"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cutune::testing
