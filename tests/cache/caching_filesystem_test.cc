// File-level caching: every read through the cache equals the table's bytes,
// through hits, misses, rewrites, deletions, migrations and cache zone reuse.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <leveldb/env.h>
#include <leveldb/options.h>
#include <leveldb/table_builder.h>

#include "cache/caching_filesystem.h"
#include "hints/block_index_keeper.h"
#include "hints/file_kind.h"
#include "tests/fs/fs_fixture.h"
#include "tests/fs/read_counter.h"

namespace hintfs {
namespace {

using test::FsGeometry;
using test::FsTest;

// A LevelDB table of n keys whose values depend on seed.
std::string MakeTable(const std::string& host_path, int seed, int n) {
  leveldb::Options o;
  o.block_size = 2048;
  o.compression = leveldb::kNoCompression;
  leveldb::WritableFile* f = nullptr;
  EXPECT_TRUE(leveldb::Env::Default()->NewWritableFile(host_path, &f).ok());
  leveldb::TableBuilder b(o, f);
  std::mt19937_64 rng(static_cast<uint64_t>(seed));
  for (int i = 0; i < n; i++) {
    char key[32];
    std::snprintf(key, sizeof(key), "key%08d", i);
    std::string k = std::string(key) + std::string("\x01\x00\x00\x00\x00\x00\x00\x00", 8);
    std::string v(100, '\0');
    for (char& c : v) c = static_cast<char>(rng());
    b.Add(k, v);
  }
  EXPECT_TRUE(b.Finish().ok());
  EXPECT_TRUE(f->Close().ok());
  delete f;
  std::ifstream in(host_path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CachingFsTest : public FsTest {
 protected:
  void SetUp() override {
    FsTest::SetUp();
    FsGeometry g;
    g.fast = "zone_size=256KiB&zones=24";
    g.slow = "zone_size=256KiB&zones=64";
    Format(g);
    MakeCaching();
  }
  void TearDown() override {
    caching_->cache()->Close();
    caching_.reset();
    if (keeper_) keeper_->Detach();
    FsTest::TearDown();
  }

  // keep: the cache is kept across clean unmounts, as the mount runs it.
  void MakeCaching(bool keep = false) {
    std::shared_ptr<Filesystem> base(fs_.get(), [](Filesystem*) {});  // the fixture owns it
    BlockCacheOptions o;
    o.budget_bytes = 5 * (256 << 10);  // 4 zones for the cache: it must evict and reuse
    auto keys = std::make_shared<FileBlockKeys>(base.get());
    if (keep) o.keys = keys;
    std::unique_ptr<BlockCache> cache;
    ASSERT_OK(BlockCache::Open(base.get(), o, &cache));
    caching_ = std::make_shared<CachingFilesystem>(base, std::shared_ptr<BlockCache>(cache.release()), keys);
  }

  // Remounts as the mount does: a block index keeper observing the
  // filesystem (reads counted behind it), the cache taking its indexes.
  void MountWithKeeper() {
    caching_->cache()->Close();
    caching_.reset();
    // Reads of tables, not of the cache's or the keeper's files.
    reads_ = std::make_shared<test::ReadCounter>([](const std::string& path) { return IsTableFile(path); });
    keeper_ = std::make_shared<BlockIndexKeeper>(reads_);
    MountOptions o;
    o.observer = keeper_;
    Mount(o);
    ASSERT_OK(keeper_->Attach(fs_.get()));
    MakeCaching();
    caching_->UseBlockIndexes(keeper_);
  }

  // Writes table bytes to path and moves them to the slow tier.
  void Put(const std::string& path, const std::string& bytes) {
    WriteFile(path, bytes);
    MigrateResult r;
    ASSERT_OK(fs_->MigrateFile(path, Tier::kSlow, nullptr, &r));
  }

  std::string ReadVia(const std::string& path, uint64_t offset, size_t n) {
    std::unique_ptr<FileReader> r;
    EXPECT_OK(caching_->OpenReader(path, &r));
    std::string out(n, '\0');
    size_t got = 0;
    EXPECT_OK(r->Read(offset, n, &out[0], &got));
    out.resize(got);
    return out;
  }

  // Tables read, rewritten, replaced and migrated at random: every read
  // equals the table's bytes. With remount, the cache is kept across a
  // clean unmount about every hundred operations.
  void ReadRandomly(bool remount) {
    const int kTables = 6;
    std::map<std::string, std::string> tables;  // path -> expected bytes
    std::map<std::string, TableMap> maps;
    int version = 0;
    auto make = [&](const std::string& path) {
      std::string bytes = MakeTable(host_.File("t" + std::to_string(version)), version, 600);
      version++;
      Put(path, bytes);
      tables[path] = bytes;
      TableMap m;
      ASSERT_OK(ParseTable(bytes.size(), [&](uint64_t off, size_t n, std::string* out) {
        *out = bytes.substr(off, n);
        return Status::OK();
      }, &m));
      maps[path] = m;
    };
    for (int i = 0; i < kTables; i++) make("/t" + std::to_string(i) + ".ldb");
    if (remount) {
      caching_->cache()->Close();
      MakeCaching(/*keep=*/true);
    }
    uint64_t hits = 0, kept = 0;  // over every mount
    std::mt19937_64 rng(9);
    std::set<std::string> on_fast;
    for (int op = 0; op < 4000; op++) {
      std::string path = "/t" + std::to_string(rng() % kTables) + ".ldb";
      int what = static_cast<int>(rng() % 100);
      if (what < 3) {  // rewrite in place: new bytes under the same name
        std::unique_ptr<FileWriter> w;
        make(path);
        on_fast.erase(path);
      } else if (what < 5) {  // delete, then a new table at the same path
        ASSERT_OK(fs_->Unlink(path));
        make(path);
        on_fast.erase(path);
      } else if (what < 7) {  // migrate: the cache must stop serving it while fast
        MigrateResult r;
        Tier to = on_fast.count(path) ? Tier::kSlow : Tier::kFast;
        ASSERT_OK(fs_->MigrateFile(path, to, nullptr, &r));
        if (to == Tier::kFast) on_fast.insert(path); else on_fast.erase(path);
      } else if (remount && what == 10) {  // a clean unmount, and the cache kept for the next mount
        caching_->cache()->WaitForAdmissions();  // what was offered is in: the count below is the test's
        BlockCacheStats before = caching_->cache()->stats();
        hits += before.hits;
        caching_->cache()->Close();
        caching_.reset();
        Remount();
        MakeCaching(/*keep=*/true);
        kept += caching_->cache()->stats().kept_blocks;
      } else if (what < 10) {  // a read that is no data block (the footer)
        const std::string& t = tables[path];
        ASSERT_EQ(ReadVia(path, t.size() - 48, 48), t.substr(t.size() - 48)) << op;
      } else {  // a data block, skewed towards a few
        const TableMap& m = maps[path];
        size_t b = rng() % 4 == 0 ? rng() % m.data_blocks.size() : rng() % 4;
        const TableBlockHandle& h = m.data_blocks[b];
        size_t n = static_cast<size_t>(h.size + TableMap::kBlockTrailer);
        ASSERT_EQ(ReadVia(path, h.offset, n), tables[path].substr(h.offset, n)) << "op " << op << " " << path;
      }
    }
    BlockCacheStats s = caching_->cache()->stats();
    hits += s.hits;
    std::cout << "cache: " << hits << " hits, " << kept << " blocks kept across mounts, " << s.evicted_zones
              << " zones evicted in the last\n";
    EXPECT_GT(hits, 500u);
    EXPECT_EQ(s.bad_blocks, 0u);
    if (remount) {
      EXPECT_GT(kept, 1000u) << "the mounts must take blocks back";
    } else {
      EXPECT_GT(s.evicted_zones, 0u) << "the test must reuse cache zones";
    }
  }

  test::ScratchDir host_;
  std::shared_ptr<CachingFilesystem> caching_;
  std::shared_ptr<test::ReadCounter> reads_;
  std::shared_ptr<BlockIndexKeeper> keeper_;
};

TEST_F(CachingFsTest, EveryReadEqualsTheTableBytes) { ReadRandomly(/*remount=*/false); }

TEST_F(CachingFsTest, EveryReadEqualsTheTableBytesAcrossRemounts) { ReadRandomly(/*remount=*/true); }

// RocksDB with use_direct_reads (on the FUSE mount) reads a block rounded
// out to 4 KiB pages: such a read is cached as the block's, and one that is
// not a block's rounded out is not.
TEST_F(CachingFsTest, DirectIoReadsOfBlocksAreCached) {
  const std::string bytes = MakeTable(host_.File("t"), 1, 600);
  Put("/d.ldb", bytes);
  TableMap m;
  ASSERT_OK(ParseTable(bytes.size(), ReadTableBytes(bytes), &m));
  ASSERT_GT(m.data_blocks.size(), 8u);
  const TableBlockHandle& h = m.data_blocks[5];
  const uint64_t first = h.offset / 4096 * 4096;
  const uint64_t last = (h.offset + h.size + TableMap::kBlockTrailer + 4095) / 4096 * 4096;
  ASSERT_NE(first, h.offset) << "the test needs a block that starts inside a page";
  for (int i = 0; i < 2; i++) {
    ASSERT_EQ(ReadVia("/d.ldb", first, last - first), bytes.substr(first, last - first));
    caching_->cache()->WaitForAdmissions();
  }
  BlockCacheStats s = caching_->cache()->stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  // A page that does not start on a page boundary is no direct read of a
  // block: not looked up.
  ASSERT_EQ(ReadVia("/d.ldb", first + 512, 4096), bytes.substr(first + 512, 4096));
  EXPECT_EQ(caching_->cache()->stats().hits + caching_->cache()->stats().misses, 2u);
}

// With the mount's block indexes, a slow-tier table's blocks are cached
// without a read of its footer and index: the first read of a block is the
// only read of the table, the second is the cache's.
TEST_F(CachingFsTest, BlockIndexesSpareTheTableReadsOfItsMap) {
  MountWithKeeper();
  const std::string bytes = MakeTable(host_.File("t"), 2, 600);
  Put("/k.ldb", bytes);
  keeper_->WaitIdle();
  TableMap m;
  ASSERT_OK(ParseTable(bytes.size(), ReadTableBytes(bytes), &m));
  const TableBlockHandle& h = m.data_blocks[3];
  const size_t n = static_cast<size_t>(h.size + TableMap::kBlockTrailer);
  reads_->reads = 0;
  for (int i = 0; i < 2; i++) {
    ASSERT_EQ(ReadVia("/k.ldb", h.offset, n), bytes.substr(h.offset, n));
    caching_->cache()->WaitForAdmissions();
  }
  EXPECT_EQ(reads_->reads.load(), 1);
  EXPECT_EQ(caching_->cache()->stats().hits, 1u);
}

TEST_F(CachingFsTest, FastTierFilesAndOtherFilesAreNotCached) {
  std::string bytes = MakeTable(host_.File("x"), 1, 300);
  WriteFile("/fast.ldb", bytes);  // stays on the fast tier
  Put("/slow.ldb", bytes);
  WriteFile("/notes.txt", bytes);
  MigrateResult r;
  ASSERT_OK(fs_->MigrateFile("/notes.txt", Tier::kSlow, nullptr, &r));
  TableMap m;
  ASSERT_OK(ParseTable(bytes.size(), [&](uint64_t off, size_t n, std::string* out) {
    *out = bytes.substr(off, n);
    return Status::OK();
  }, &m));
  size_t n = static_cast<size_t>(m.data_blocks[0].size + 5);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(ReadVia("/fast.ldb", 0, n), bytes.substr(0, n));
    EXPECT_EQ(ReadVia("/notes.txt", 0, n), bytes.substr(0, n));
  }
  EXPECT_EQ(caching_->cache()->stats().lookups, 0u);
  EXPECT_EQ(ReadVia("/slow.ldb", 0, n), bytes.substr(0, n));
  caching_->cache()->WaitForAdmissions();  // the cache's thread writes the block
  EXPECT_EQ(ReadVia("/slow.ldb", 0, n), bytes.substr(0, n));
  EXPECT_EQ(caching_->cache()->stats().hits, 1u);
  // With the store hinting for itself, file-level admission stops.
  caching_->set_file_admission(false);
  EXPECT_EQ(ReadVia("/slow.ldb", 0, n), bytes.substr(0, n));
  EXPECT_EQ(caching_->cache()->stats().lookups, 2u);
}

TEST_F(CachingFsTest, ScannedBlocksAreServedButNotOffered) {
  std::string bytes = MakeTable(host_.File("s"), 3, 600);
  Put("/scan.ldb", bytes);
  TableMap m;
  ASSERT_OK(ParseTable(bytes.size(), [&](uint64_t off, size_t n, std::string* out) {
    *out = bytes.substr(off, n);
    return Status::OK();
  }, &m));
  ASSERT_GE(m.data_blocks.size(), 4u);
  // One handle, as stores keep a table open and read it from every thread.
  std::unique_ptr<FileReader> reader;
  ASSERT_OK(caching_->OpenReader("/scan.ldb", &reader));
  auto read_block = [&](size_t b) {
    const TableBlockHandle& h = m.data_blocks[b];
    size_t n = static_cast<size_t>(h.size + TableMap::kBlockTrailer);
    std::string out(n, '\0');
    size_t got = 0;
    ASSERT_OK(reader->Read(h.offset, n, &out[0], &got));
    ASSERT_EQ(out, bytes.substr(h.offset, n)) << b;
  };
  BlockCache* cache = caching_->cache();
  // A scan: blocks 0-3 in order. Only the first, which follows no read, is offered.
  for (size_t b = 0; b < 4; b++) read_block(b);
  cache->WaitForAdmissions();
  EXPECT_EQ(cache->stats().offered, 1u);
  // A point read of a scanned block is offered, and later served.
  read_block(1);
  cache->WaitForAdmissions();
  EXPECT_EQ(cache->stats().offered, 2u);
  const uint64_t hits = cache->stats().hits;
  read_block(3);
  read_block(1);
  EXPECT_EQ(cache->stats().hits, hits + 1);
}

TEST_F(CachingFsTest, HintedCachingKnowsWhichMissesTheSlowTierServed) {
  std::string bytes = MakeTable(host_.File("x"), 2, 300);
  WriteFile("/fast.ldb", bytes);
  Put("/slow.ldb", bytes);
  caching_->set_file_admission(false);  // the store hints its evictions
  size_t n = 4096;
  // A miss followed by a slow-tier read: the block may be cached, once.
  caching_->ExpectRead("a");
  EXPECT_EQ(ReadVia("/slow.ldb", 0, n), bytes.substr(0, n));
  EXPECT_TRUE(caching_->TakeReadFromSlowTier("a"));
  EXPECT_FALSE(caching_->TakeReadFromSlowTier("a"));
  // A miss the fast tier served: already on the SSD, never cached.
  caching_->ExpectRead("b");
  EXPECT_EQ(ReadVia("/fast.ldb", 0, n), bytes.substr(0, n));
  EXPECT_FALSE(caching_->TakeReadFromSlowTier("b"));
  // Only the first read after a miss is its block's; later reads are not.
  caching_->ExpectRead("c");
  EXPECT_EQ(ReadVia("/fast.ldb", 0, n), bytes.substr(0, n));
  EXPECT_EQ(ReadVia("/slow.ldb", 0, n), bytes.substr(0, n));
  EXPECT_FALSE(caching_->TakeReadFromSlowTier("c"));
  // A key that was never looked up, and a read on another thread.
  EXPECT_FALSE(caching_->TakeReadFromSlowTier("never"));
  caching_->ExpectRead("d");
  std::thread other([&] { EXPECT_EQ(ReadVia("/slow.ldb", 0, n), bytes.substr(0, n)); });
  other.join();
  EXPECT_FALSE(caching_->TakeReadFromSlowTier("d"));
  // The memory of slow reads is bounded: the oldest are forgotten.
  for (size_t i = 0; i <= CachingFilesystem::kRememberedSlowReads; i++) {
    caching_->ExpectRead("k" + std::to_string(i));
    caching_->NoteHintedRead(true);
  }
  EXPECT_FALSE(caching_->TakeReadFromSlowTier("k0"));
  EXPECT_TRUE(caching_->TakeReadFromSlowTier("k1"));
  EXPECT_EQ(caching_->cache()->stats().admitted, 0u) << "hinted caching admits in Insert, not here";
}

}  // namespace
}  // namespace hintfs
