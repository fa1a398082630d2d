// Tests of the references a spec's "follow" asks for, on the host: which reference a configuration is checked
// against (its key), and the shelf that keeps the reference outputs of other followed values.
#include <gtest/gtest.h>

#include "measure/reference_shelf.hpp"
#include "measure/workbench.hpp"
#include "spec_sample.hpp"

namespace cutune {
namespace {

using testing::spec_sample::Json;
using testing::spec_sample::kSpec;
using testing::spec_sample::parse;

KernelSpec following_pad() {
  Json j = Json::parse(kSpec);
  j["reference"] = {{"configuration", {{"TILE", 16}, {"ROWS", 4}}}, {"follow", {"PAD"}}};
  return parse(j.dump());
}

TEST(ReferenceChoice, FollowedValuesChooseTheReference) {
  const KernelSpec s = following_pad();
  const Config a = s.parse_config("TILE=64,ROWS=8,PAD=1");
  const Config b = s.parse_config("TILE=32,ROWS=2,PAD=1");
  const Config c = s.parse_config("TILE=64,ROWS=8,PAD=0");
  const detail::ReferenceChoice for_a = detail::reference_choice(s, VerifyMode::Reference, &a);
  ASSERT_TRUE(for_a.config.has_value());
  EXPECT_EQ(for_a.name, "the configuration TILE=16,ROWS=4,PAD=1");
  // Configurations with the same followed values share a reference (its canonical form is the key); others do not.
  EXPECT_EQ(*detail::reference_choice(s, VerifyMode::Reference, &b).config, *for_a.config);
  EXPECT_EQ(s.format(*detail::reference_choice(s, VerifyMode::Reference, &c).config), "TILE=16,ROWS=4,PAD=0");
  // Unasked for a configuration, the reference is the spec's, named with what it follows.
  EXPECT_EQ(detail::reference_choice(s, VerifyMode::Reference).name,
            "the configuration TILE=16,ROWS=4,PAD=0 with each configuration's PAD");
  // --verify default: the default configuration follows the same parameters.
  EXPECT_EQ(detail::reference_choice(s, VerifyMode::Default, &a).name,
            "the default configuration TILE=32,ROWS=8,PAD=1");
  // A reference kernel follows nothing.
  EXPECT_FALSE(detail::reference_choice(parse(kSpec), VerifyMode::Reference, &a).config.has_value());
}

TEST(ReferenceShelf, KeepsOneSetPerReferenceAndGivesUpTheLeastRecentlyUsed) {
  detail::ReferenceShelf<int> shelf(100);
  shelf.put("PAD=0", 10, 40);
  shelf.put("PAD=1", 11, 40);
  EXPECT_EQ(shelf.bytes(), 80u);
  EXPECT_EQ(shelf.take("PAD=0"), 10);  // taken off the shelf while it is in use
  EXPECT_FALSE(shelf.take("PAD=0").has_value());
  EXPECT_EQ(shelf.bytes(), 40u);
  shelf.put("PAD=0", 10, 40);  // back: now the most recently used
  shelf.put("PAD=2", 12, 40);  // 120 bytes would not fit: PAD=1, the least recently used, is given up
  EXPECT_EQ(shelf.size(), 2u);
  EXPECT_FALSE(shelf.take("PAD=1").has_value());
  EXPECT_EQ(shelf.take("PAD=2"), 12);
  shelf.put("PAD=0", 20, 30);  // the same key again replaces its set
  EXPECT_EQ(shelf.size(), 1u);
  EXPECT_EQ(shelf.bytes(), 30u);
  shelf.put("PAD=3", 13, 101);  // larger than the whole shelf: not kept, and nothing else given up for it
  EXPECT_FALSE(shelf.take("PAD=3").has_value());
  EXPECT_EQ(shelf.take("PAD=0"), 20);
  shelf.put("PAD=0", 20, 30);
  shelf.set_capacity(10);  // a smaller shelf gives up what no longer fits
  EXPECT_EQ(shelf.size(), 0u);
  EXPECT_EQ(shelf.bytes(), 0u);
}

}  // namespace
}  // namespace cutune
