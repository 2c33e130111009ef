// ManifestWatcher on the MANIFESTs of real stores, fed as a store appends
// them: its hints name the store's own table files. A store reopened on a
// new mount rewrites its MANIFEST before it creates any table, so the
// watcher has to know LevelDB's names from the MANIFEST itself.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hints/manifest_watcher.h"
#include "tests/fs/test_util.h"
#include "tests/hints/test_stores.h"

namespace hintfs {
namespace {

// The hints a fresh watcher publishes for manifest's bytes, appended to
// "/db/MANIFEST-000001" in pieces of 1,000 bytes, after the creations in
// created.
std::vector<Hint> WatchManifest(const std::string& manifest, const std::vector<std::string>& created = {}) {
  auto bus = std::make_shared<HintBus>();
  std::vector<Hint> hints;
  bus->Subscribe([&](const Hint& h) { hints.push_back(h); });
  ManifestWatcher watcher(bus, nullptr);
  for (const std::string& path : created) watcher.OnCreate(path, ZoneRole::kData);
  const std::string bytes = test::Slurp(manifest);
  for (size_t at = 0; at < bytes.size(); at += 1000) {
    watcher.OnAppend("/db/MANIFEST-000001", std::string_view(bytes).substr(at, 1000));
  }
  return hints;
}

// The names of the tables the hints say are live at the end.
std::set<std::string> LiveTables(const std::vector<Hint>& hints) {
  std::set<std::string> live;
  for (const Hint& h : hints) {
    if (h.kind == Hint::Kind::kFileDeleted) live.erase(h.path);
    if (h.kind == Hint::Kind::kCompactionOutput) live.insert(h.path);
  }
  return live;
}

// The table files of the store in dir, each named as if dir were "/db".
std::set<std::string> StoreTables(const std::string& dir) {
  std::set<std::string> tables;
  for (const std::string& n : test::List(dir)) {
    if (n.size() > 4 && (n.substr(n.size() - 4) == ".ldb" || n.substr(n.size() - 4) == ".sst")) {
      tables.insert("/db/" + n);
    }
  }
  return tables;
}

TEST(ManifestWatcher, NamesLevelDbTablesBeforeSeeingOne) {
  test::ScratchDir dir;
  const std::string db = dir.File("level");
  const std::string manifest = test::WriteLevelDb(db);
  ASSERT_FALSE(manifest.empty());
  const std::set<std::string> tables = StoreTables(db);
  ASSERT_GT(tables.size(), 1u);
  ASSERT_EQ(tables.begin()->substr(tables.begin()->size() - 4), ".ldb");
  EXPECT_EQ(LiveTables(WatchManifest(manifest)), tables) << "no table of the store was created on this mount";
}

TEST(ManifestWatcher, NamesRocksDbTablesSst) {
  test::ScratchDir dir;
  const std::string db = dir.File("rocks");
  const std::string manifest = test::WriteRocksDb(db);
  ASSERT_FALSE(manifest.empty());
  const std::set<std::string> tables = StoreTables(db);
  ASSERT_GT(tables.size(), 1u);
  EXPECT_EQ(LiveTables(WatchManifest(manifest)), tables);
}

TEST(ManifestWatcher, NamesTablesAsTheStoreCreatedThem) {
  test::ScratchDir dir;
  const std::string db = dir.File("rocks");
  const std::string manifest = test::WriteRocksDb(db);
  ASSERT_FALSE(manifest.empty());
  // A RocksDB-style MANIFEST in a directory where a *.ldb table was created.
  for (const std::string& path : LiveTables(WatchManifest(manifest, {"/db/000001.ldb"}))) {
    EXPECT_EQ(path.substr(path.size() - 4), ".ldb") << path;
  }
}

}  // namespace
}  // namespace hintfs
