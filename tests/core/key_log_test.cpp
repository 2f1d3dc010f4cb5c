// The key log (core/key_log.h) that docs/keys.md is generated from: each getter reports its key
// once, with type, bounds and default, whether the file has the key or not; with no log set
// nothing is reported.
#include <gtest/gtest.h>

#include <vector>

#include "core/config_map.h"
#include "core/key_log.h"

namespace kp {
namespace {

struct Recorder : KeyLog {
  std::vector<KeyUse> uses;
  void note(const KeyUse& use) override { uses.push_back(use); }
};

TEST(KeyLog, EachGetterReportsItsKeyOnceWithTypeBoundsAndDefault) {
  const ConfigDoc doc = ConfigDoc::parse("rows: 3\npower: {tdp: 70 W}\n", "mem.yaml");
  Recorder log;
  set_key_log(&log);
  ConfigMap root(doc, doc.root());
  EXPECT_EQ(root.integer_or("rows", 1, 9, 2), 3);  // present: read through integer(), reported once
  ConfigMap power = root.map("power");
  EXPECT_EQ(power.quantity_or("tdp", Dim::Watts, 1e-3, 1e5, 0.0), 70.0);
  EXPECT_TRUE(power.boolean_or("busy", true));  // absent: still reported, as optional
  root.choice_or("model", {"rental", "build"}, 1);
  set_key_log(nullptr);
  root.integer_or("unlogged", 1, 9, 2);
  ASSERT_EQ(log.uses.size(), 5u);
  const KeyUse& rows = log.uses[0];
  EXPECT_EQ(rows.origin, "mem.yaml");
  EXPECT_EQ(rows.key, "rows");
  EXPECT_EQ(rows.type, "integer");
  EXPECT_EQ(rows.range, "[1, 9]");
  EXPECT_EQ(rows.fallback, "2");
  EXPECT_FALSE(rows.required);
  EXPECT_EQ(log.uses[1].key, "power");
  EXPECT_EQ(log.uses[1].type, "map");
  const KeyUse& tdp = log.uses[2];
  EXPECT_EQ(tdp.key, "power.tdp");
  EXPECT_EQ(tdp.type, "power (mW, W, kW)");
  EXPECT_EQ(tdp.range, "[1 mW, 100 kW]");
  EXPECT_EQ(tdp.fallback, "none");  // a 0 fallback of quantity_or means "not given"
  EXPECT_EQ(log.uses[3].key, "power.busy");
  EXPECT_EQ(log.uses[3].fallback, "true");
  EXPECT_EQ(log.uses[4].type, "one of rental, build");
  EXPECT_EQ(log.uses[4].fallback, "build");
}

TEST(KeyLog, RequiredKeysAreReportedAsRequiredEvenWhenMissing) {
  const ConfigDoc doc = ConfigDoc::parse("name: x\n", "mem.yaml");
  Recorder log;
  set_key_log(&log);
  ConfigMap root(doc, doc.root());
  root.text("name");
  root.quantity("clock", Dim::Hertz, 1e6, 1e11);  // missing: an error, and still reported
  set_key_log(nullptr);
  ASSERT_EQ(log.uses.size(), 2u);
  EXPECT_TRUE(log.uses[0].required);
  EXPECT_EQ(log.uses[1].key, "clock");
  EXPECT_EQ(log.uses[1].range, "[1 MHz, 100 GHz]");
  EXPECT_TRUE(log.uses[1].required);
  EXPECT_FALSE(root.ok());
}

}  // namespace
}  // namespace kp
