// Host-only tests of --flush on the command line: its values, its errors, and `tune best` per L2 convention.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_support.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/templates.hpp"

namespace {

using cutune::test::CommandOutput;
using FlushCli = cutune::test::TuneCommandTest;

TEST_F(FlushCli, BadValuesAreOneErrorAndNoDatabase) {
  for (const char* args : {"--kernel transpose --shapes 64x64 --flush dirty",
                           "--kernel transpose --shapes 64x64 --flush",
                           "--kernel transpose --shapes 64x64 --flush none --no-flush",
                           "best --kernel transpose --shape 64x64 --flush READ"}) {
    const CommandOutput r = tune(args);
    EXPECT_NE(r.code, 0) << args;
    EXPECT_NE(r.err.find("--flush"), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "cutune.db")) << args;
  }
  const CommandOutput bad = tune("--kernel transpose --shapes 64x64 --flush dirty");
  EXPECT_NE(bad.err.find("dirty not in {read,write,none}"), std::string::npos) << bad.err;
  const std::string help = tune("--help").out;
  EXPECT_NE(help.find("--flush"), std::string::npos);
  EXPECT_NE(help.find("--no-flush"), std::string::npos);
  EXPECT_NE(tune("best --help").out.find("--flush"), std::string::npos);
}

TEST_F(FlushCli, GoodValuesParse) {
  if (cutune::Device::count() > 0) GTEST_SKIP() << "a CUDA device is present: these would tune";
  for (const char* flush : {"--flush read", "--flush write", "--flush none", "--no-flush"}) {
    const CommandOutput r = tune(std::string("--kernel transpose --shapes 64x64 ") + flush);
    EXPECT_EQ(r.code, 1) << flush;  // past the options: no GPU here
    EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << flush << ": " << r.err;
  }
}

TEST_F(FlushCli, BestAnswersUnderTheConventionAskedAndSaysIt) {
  if (cutune::Device::count() > 0) GTEST_SKIP() << "`best` would look up this machine's GPU, not the synthetic one";
  const cutune::DeviceIdentity gpu{"Synthetic GPU", 9, 0, 132};
  const cutune::KernelIdentity transpose{"transpose", cutune::load_kernel("transpose").hash};
  {
    cutune::Database db((dir_ / "r.db").string());
    cutune::Result read, write;
    read.config = "TILE=64,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
    read.median_ms = 0.125;
    write.config = "TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
    write.median_ms = 0.0625;  // faster, but after a written flush: never compared with the read one
    db.record(db.begin_run(gpu, transpose, "test", cutune::L2Flush::Read), "8192x8192", read);
    db.record(db.begin_run(gpu, transpose, "test", cutune::L2Flush::Write), "8192x8192", write);
  }
  const CommandOutput plain = tune("best --kernel transpose --shape 8192x8192 --db r.db");
  EXPECT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(plain.out.find("config   TILE=64,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("\nflush    read"), std::string::npos) << plain.out;
  const CommandOutput written = tune("best --kernel transpose --shape 4096x4096 --db r.db --flush write");
  EXPECT_EQ(written.code, 0) << written.err;
  EXPECT_NE(written.out.find("config   TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0"), std::string::npos)
      << written.out;
  EXPECT_NE(written.out.find("rule     predicted"), std::string::npos) << written.out;
  EXPECT_NE(written.out.find("\nflush    write"), std::string::npos) << written.out;
  const CommandOutput none = tune("best --kernel transpose --shape 8192x8192 --db r.db --flush none");
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.err.find("measured under L2 flush none"), std::string::npos) << none.err;
}

}  // namespace
