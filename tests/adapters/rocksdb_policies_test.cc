// Every placement policy runs RocksDB end to end, and puts each table on the
// tier its level calls for (levels from HintfsEventListener's hints).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>

#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "fs/device/emulated_device.h"
#include "hints/file_tag.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

// Levels that must be on the fast tier (-1 stands for the WAL); -2: none.
int FastLevels(const std::string& policy) {
  if (policy == "all-slow") return -1;
  if (policy[0] == 'b') return policy[1] - '0';
  return 100;  // fast-first, all-fast
}

// Loads 120,000 random 100-byte values into /db on hintfs://mem:name?query
// with small tables (so levels L0-L2 fill), and returns the mount.
void LoadRocksDb(const std::string& name, const std::string& query, bool listener,
                 std::shared_ptr<Filesystem>* mounted,
                 const std::function<void(rocksdb::Options*)>& tune = nullptr) {
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::ConfigOptions cfg;
  ASSERT_TRUE(rocksdb::FileSystem::CreateFromString(cfg, "hintfs://mem:" + name + query, &fs).ok());
  ASSERT_TRUE(AcquireMount("mem:" + name, mounted).ok());
  auto env = rocksdb::NewCompositeEnv(fs);
  rocksdb::Options o;
  o.env = env.get();
  o.create_if_missing = true;
  o.write_buffer_size = 256 << 10;
  o.target_file_size_base = 256 << 10;
  o.max_bytes_for_level_base = 1 << 20;
  o.level0_file_num_compaction_trigger = 2;
  o.compression = rocksdb::kNoCompression;
  if (listener) o.listeners.push_back(NewHintRocksListener());
  if (tune) tune(&o);
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::mt19937_64 rng(1);
  std::string value(100, '\0');
  for (int i = 0; i < 120000; i++) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%09d", (i * 7919) % 120000);
    for (char& c : value) c = static_cast<char>(rng());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, value).ok());
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  // Let background compactions settle (a wait, not a timing check).
  for (int i = 0; i < 3000; i++) {
    uint64_t pending = 1, running = 1;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    if (pending == 0 && running == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::string v;
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "k000012345", &v).ok());
  EXPECT_EQ(v.size(), 100u);
  ASSERT_TRUE(db->Close().ok());
}

class RocksDbUnderPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(RocksDbUnderPolicy, TablesLandOnTheTierTheirLevelCallsFor) {
  const std::string policy = GetParam();
  std::string name = test::UniqueName("pol");
  setenv("HINTFS_MEM_FAST", "zone_size=2MiB&zones=200", 1);
  setenv("HINTFS_MEM_SLOW", "zone_size=2MiB&zones=400", 1);
  std::shared_ptr<Filesystem> fs;
  LoadRocksDb(name, "?policy=" + policy, /*listener=*/true, &fs);
  unsetenv("HINTFS_MEM_FAST");
  unsetenv("HINTFS_MEM_SLOW");
  ASSERT_TRUE(fs);
  EXPECT_EQ(fs->policy_name(), policy);
  std::vector<DirEntry> entries;
  ASSERT_TRUE(fs->ReadDir("/db", &entries).ok());
  int fast_levels = FastLevels(policy);
  int checked = 0, deep = 0;
  for (const auto& e : entries) {
    FileStat st;
    ASSERT_TRUE(fs->Stat("/db/" + e.name, &st).ok());
    bool is_sst = e.name.size() > 4 && e.name.substr(e.name.size() - 4) == ".sst";
    bool is_wal = e.name.size() > 4 && e.name.substr(e.name.size() - 4) == ".log";
    if ((!is_sst && !is_wal) || st.extents.empty()) continue;
    int level = is_wal ? -1 : FileTagOf(st.tag).level;
    ASSERT_TRUE(is_wal || level >= 0) << e.name << " has no recorded level";
    bool want_fast = level < fast_levels;
    for (const Extent& x : st.extents) {
      bool on_fast = fs->superblock().members[x.device].tier == Tier::kFast;
      // The fast tier is large enough here that nothing needs to spill. AUTO's
      // tiers follow measured throughput, so only its run is checked.
      if (policy != "auto") {
        EXPECT_EQ(on_fast, want_fast) << policy << ": " << e.name << " (level " << level << ")";
      }
    }
    checked++;
    deep += level >= 2;
  }
  EXPECT_GT(checked, 5);
  EXPECT_GT(deep, 0) << "the load must reach L2 to tell b2 from b3";
  fs.reset();
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

INSTANTIATE_TEST_SUITE_P(Policies, RocksDbUnderPolicy,
                         ::testing::Values("fast-first", "b1", "b2", "b3", "b4", "all-fast", "all-slow", "auto"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace hintfs

namespace hintfs {
namespace {

// HHZS with a fast tier too small for the data: the WAL and L0 stay fast, the
// deep levels spill, and the policy reports a tiering level.
TEST(RocksDbUnderHhzs, WalAndL0StayFastDeepLevelsSpill) {
  std::string name = test::UniqueName("hhzs");
  // As in HHZS, a zone holds one table (tables are sized a little below it).
  setenv("HINTFS_MEM_FAST", "zone_size=320KiB&zones=36", 1);
  setenv("HINTFS_MEM_SLOW", "zone_size=320KiB&zones=600", 1);
  std::shared_ptr<Filesystem> mounted;
  LoadRocksDb(name, "?policy=hhzs:table_bytes=320KiB,wal_budget=1MiB", /*listener=*/true, &mounted);
  unsetenv("HINTFS_MEM_FAST");
  unsetenv("HINTFS_MEM_SLOW");
  std::vector<DirEntry> entries;
  ASSERT_TRUE(mounted->ReadDir("/db", &entries).ok());
  int slow_tables = 0, fast_tables = 0;
  uint64_t bytes[2][8] = {};  // [fast][level]
  for (const auto& e : entries) {
    FileStat st;
    ASSERT_TRUE(mounted->Stat("/db/" + e.name, &st).ok());
    bool is_wal = e.name.size() > 4 && e.name.substr(e.name.size() - 4) == ".log";
    bool is_sst = e.name.size() > 4 && e.name.substr(e.name.size() - 4) == ".sst";
    for (const Extent& x : st.extents) {
      bool on_fast = mounted->superblock().members[x.device].tier == Tier::kFast;
      if (is_wal) {
        EXPECT_TRUE(on_fast) << e.name << " is on the slow tier";
      }
      if (is_sst) (on_fast ? fast_tables : slow_tables)++;
      if (is_sst && FileTagOf(st.tag).level >= 0 && FileTagOf(st.tag).level < 8) bytes[on_fast][FileTagOf(st.tag).level] += x.length;
    }
  }
  for (int l = 0; l < 5; l++) {
    std::cout << "L" << l << " fast " << bytes[1][l] << " slow " << bytes[0][l] << "\n";
  }
  EXPECT_GT(fast_tables, 0);
  EXPECT_GT(slow_tables, 0) << "the fast tier cannot hold everything";
  // The end state depends on how far background compactions got, so only
  // its shape is checked: 32 data zones of 320 KiB less a 1 MiB WAL budget
  // make at most (32 * 320 KiB - 1 MiB) / 320 KiB = 28 table slots, fewer
  // while zones hold other files (logs, manifests, a WAL beyond its budget).
  auto state = nlohmann::json::parse(mounted->PolicyStateJson());
  EXPECT_LE(state["capacity_slots"].get<int>(), 28) << state.dump();
  EXPECT_GE(state["capacity_slots"].get<int>(), 14) << state.dump();
  EXPECT_GT(state["fast_decisions"].get<int>(), 0) << state.dump();
  mounted.reset();
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

}  // namespace
}  // namespace hintfs

namespace hintfs {
namespace {

// No listener: placement estimates levels from what running compactions read
// and RocksDB's lifetime hints, and the MANIFEST (read as it is written)
// tells the truth afterwards; the policy counts how often the estimate was
// right.
TEST(RocksDbWithoutListener, LevelEstimatesAreScoredAgainstTheManifest) {
  std::string name = test::UniqueName("nolistener");
  setenv("HINTFS_MEM_FAST", "zone_size=2MiB&zones=200", 1);
  setenv("HINTFS_MEM_SLOW", "zone_size=2MiB&zones=400", 1);
  std::shared_ptr<Filesystem> mounted;
  LoadRocksDb(name, "?policy=b2", /*listener=*/false, &mounted);
  unsetenv("HINTFS_MEM_FAST");
  unsetenv("HINTFS_MEM_SLOW");
  auto state = nlohmann::json::parse(mounted->PolicyStateJson());
  auto k = state["level_knowledge"];  // as hhzs names it
  std::cout << "level estimates without a listener: " << k.dump() << "\n";
  EXPECT_GT(k["estimated_answers"].get<int>(), 0);
  EXPECT_GT(k["estimated_from_io"].get<int>(), 0) << "the I/O pattern gave guesses";
  EXPECT_GT(k["known_levels"].get<int>(), 0) << "the MANIFEST gave exact levels";
  // Every scored estimate is counted one way or the other. Lifetime hints
  // alone cannot tell L0 from the base level (about half right); the scans
  // of running compactions can, most of the time (docs/benchmarks.md).
  EXPECT_GT(k["estimates_confirmed"].get<int>(), k["estimates_wrong"].get<int>());
  EXPECT_LE(k["estimates_confirmed"].get<int>() + k["estimates_wrong"].get<int>(),
            k["estimated_answers"].get<int>());
  mounted.reset();
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

// RocksDB's own tiering (last_level_temperature) on hintfs: under the
// temperature policy the last level's tables land on the slow tier and
// everything else on the fast one, without the listener.
TEST(RocksDbTemperatures, TheLastLevelGoesWhereRocksDbSays) {
  std::string name = test::UniqueName("temp");
  setenv("HINTFS_MEM_FAST", "zone_size=2MiB&zones=200", 1);
  setenv("HINTFS_MEM_SLOW", "zone_size=2MiB&zones=400", 1);
  std::shared_ptr<Filesystem> fs;
  LoadRocksDb(name, "?policy=temperature", /*listener=*/false, &fs, [](rocksdb::Options* o) {
    o->num_levels = 3;
    o->last_level_temperature = rocksdb::Temperature::kCold;
  });
  unsetenv("HINTFS_MEM_FAST");
  unsetenv("HINTFS_MEM_SLOW");
  ASSERT_TRUE(fs);
  std::vector<DirEntry> entries;
  ASSERT_TRUE(fs->ReadDir("/db", &entries).ok());
  // Levels are recorded in the tags by the mount's own thread, from a
  // queue of the MANIFEST's hints: under load it may still be at work when
  // the store has closed (a table without its level failed this test in a
  // CI run). Wait for it, up to 30 s (a wait, not a timing check).
  auto all_levels_recorded = [&] {
    for (const auto& e : entries) {
      FileStat st;
      if (e.name.size() >= 4 && e.name.substr(e.name.size() - 4) == ".sst" && fs->Stat("/db/" + e.name, &st).ok() &&
          !st.extents.empty() && FileTagOf(st.tag).level < 0) {
        return false;
      }
    }
    return true;
  };
  for (int i = 0; i < 3000 && !all_levels_recorded(); i++) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  int last = 0, upper = 0;
  for (const auto& e : entries) {
    FileStat st;
    ASSERT_TRUE(fs->Stat("/db/" + e.name, &st).ok());
    if (e.name.size() < 4 || e.name.substr(e.name.size() - 4) != ".sst" || st.extents.empty()) continue;
    int level = FileTagOf(st.tag).level;  // recorded from the MANIFEST
    ASSERT_GE(level, 0) << e.name;
    bool want_fast = level < 2;
    for (const Extent& x : st.extents) {
      EXPECT_EQ(fs->superblock().members[x.device].tier == Tier::kFast, want_fast)
          << e.name << " (level " << level << ")";
    }
    (want_fast ? upper : last)++;
  }
  EXPECT_GT(last, 0);
  auto state = nlohmann::json::parse(fs->PolicyStateJson());
  EXPECT_GT(state["placed"]["cold"].get<int>(), 0) << state.dump();
  fs.reset();
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

}  // namespace
}  // namespace hintfs
