// Migration between tiers: the bytes stay the same, the extents move, the
// old zones are reclaimed, readers are never disturbed, and a power cut at
// any write leaves the old copy or the new one with no zone leaked.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <random>
#include <set>
#include <thread>

#include "fs/device/fault_injection.h"
#include "fs/metadata.h"
#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

using test::FsGeometry;
using test::FsTest;

class MigrateTest : public FsTest {
 protected:
  // The tier of every extent of path (fails if they are mixed).
  Tier TierOf(const std::string& path) {
    FileStat st;
    EXPECT_OK(fs_->Stat(path, &st));
    EXPECT_FALSE(st.extents.empty());
    if (st.extents.empty()) return Tier::kFast;
    Tier t = fs_->superblock().members[st.extents[0].device].tier;
    for (const Extent& e : st.extents) {
      EXPECT_EQ(fs_->superblock().members[e.device].tier, t) << path << " has extents on both tiers";
    }
    return t;
  }

  // Zones with written bytes of which none is live and that nobody writes.
  int DeadZones() {
    std::vector<ZoneReport> zones;
    EXPECT_OK(fs_->Zones(&zones));
    int dead = 0;
    for (const ZoneReport& z : zones) {
      if (z.role != ZoneRole::kSuperblock && z.role != ZoneRole::kMetadata && z.write_pointer > z.start &&
          z.live_bytes == 0 && !z.writing) {
        dead++;
      }
    }
    return dead;
  }

  // Writes files on small zones, runs work once to count its device writes,
  // then once per write with the power cut after it. After each cut every
  // file reads whole, fsck is clean, no zone leaked, and check(path) holds.
  // Returns the writes of the uncut run; *crashed, the runs work failed.
  uint64_t CutPowerAtEveryWrite(const std::vector<std::pair<std::string, std::string>>& files,
                                const std::function<Status()>& work,
                                const std::function<void(const std::string&)>& check, int* crashed) {
    FsGeometry g;
    g.fast = "zone_size=64KiB&zones=20";
    g.slow = "zone_size=64KiB&zones=24";
    auto setup = [&](const std::string& domain, uint64_t cut) {
      Format(g);
      for (const auto& [name, data] : files) WriteFile(name, data);
      MountOptions o;
      o.device_params = "power_domain=" + domain;
      if (cut) o.device_params += "&power_cut_after=" + std::to_string(cut);
      Mount(o);
    };
    std::string domain = test::UniqueName("cut");
    setup(domain, 0);
    EXPECT_OK(work());
    uint64_t total = PowerDomain(domain, FaultPlan())->writes();
    fs_.reset();
    ResetPowerDomain(domain);
    *crashed = 0;
    for (uint64_t k = 1; k <= total; k++) {
      domain = test::UniqueName("cut");
      setup(domain, k);
      *crashed += !work().ok();
      fs_.reset();
      ResetPowerDomain(domain);
      Mount();
      for (const auto& [name, data] : files) {
        EXPECT_EQ(ReadFile(name), data) << "cut after write " << k << ": " << name;
        check(name);
      }
      ExpectClean();
      EXPECT_EQ(DeadZones(), 0) << "cut after write " << k << ": a zone leaked";
      if (HasFailure()) {
        ADD_FAILURE() << "cut after write " << k;
        break;
      }
    }
    return total;
  }

  uint64_t LiveBytes(Tier tier) {
    std::vector<DeviceUsage> usage;
    EXPECT_OK(fs_->Usage(&usage));
    uint64_t live = 0;
    for (const DeviceUsage& u : usage) {
      if (u.tier == tier) live += u.live_bytes;
    }
    return live;
  }
};

// Small reads are counted by the tier they came from; large ones are not.
TEST_F(MigrateTest, SmallReadsAreCountedByTier) {
  Format();
  std::mt19937_64 rng(3);
  std::string data = Random(&rng, 300 * 1024);
  WriteFile("/t.sst", data);
  auto read = [&](uint64_t offset, size_t n) {
    std::unique_ptr<FileReader> r;
    ASSERT_OK(fs_->OpenReader("/t.sst", &r));
    std::string buf(n, '\0');
    size_t got = 0;
    ASSERT_OK(r->Read(offset, n, buf.data(), &got));
    ASSERT_EQ(buf.substr(0, got), data.substr(offset, n));
  };
  FsStats before = fs_->Stats();
  read(0, 4096);
  read(100000, 4101);
  read(0, 256 * 1024);  // a compaction's read: not a small one
  FsStats mid = fs_->Stats();
  EXPECT_EQ(mid.small_reads[0] - before.small_reads[0], 2u);
  EXPECT_EQ(mid.small_reads[1] - before.small_reads[1], 0u);
  MigrateResult r;
  ASSERT_OK(fs_->MigrateFile("/t.sst", Tier::kSlow, nullptr, &r));
  read(8192, 64 * 1024);
  read(290 * 1024, 10 * 1024);
  // The move wrote those blocks to the slow tier just now: served from
  // memory, as a page cache would, and not counted as device reads.
  FsStats after = fs_->Stats();
  EXPECT_EQ(after.small_reads[0], mid.small_reads[0]);
  EXPECT_EQ(after.small_reads[1], mid.small_reads[1]);
  EXPECT_EQ(after.reads_from_written - mid.reads_from_written, 2u);
  EXPECT_EQ(after.bytes_from_written - mid.bytes_from_written, 74u * 1024);
  EXPECT_EQ(after.bytes_read[1], mid.bytes_read[1]);
  // After a remount they come from the device, every time: blocks only
  // read never serve the store's reads.
  Remount();
  for (int round = 0; round < 2; round++) {
    before = fs_->Stats();
    read(8192, 64 * 1024);
    read(290 * 1024, 20 * 1024);  // ends past the file's end: still one read
    after = fs_->Stats();
    EXPECT_EQ(after.small_reads[0], before.small_reads[0]);
    EXPECT_EQ(after.small_reads[1] - before.small_reads[1], 2u) << round;
    EXPECT_EQ(after.reads_from_written, 0u);
  }
}

TEST_F(MigrateTest, MovesAFileToTheOtherTierAndBack) {
  Format();
  std::mt19937_64 rng(1);
  std::string data = Random(&rng, 700 * 1024 + 123);  // spans zones, ends mid-block
  WriteFile("/t.sst", data);
  ASSERT_EQ(TierOf("/t.sst"), Tier::kFast);
  uint64_t fast_live = LiveBytes(Tier::kFast);

  MigrateResult r;
  ASSERT_OK(fs_->MigrateFile("/t.sst", Tier::kSlow, nullptr, &r));
  EXPECT_TRUE(r.moved);
  EXPECT_EQ(r.bytes, data.size());
  EXPECT_EQ(TierOf("/t.sst"), Tier::kSlow);
  EXPECT_EQ(ReadFile("/t.sst"), data);
  EXPECT_LT(LiveBytes(Tier::kFast), fast_live - data.size() + 4096);
  EXPECT_EQ(DeadZones(), 0) << "the old zones are reset once the switch is durable";
  FsStats st = fs_->Stats();
  EXPECT_EQ(st.migrated_bytes[1], data.size());
  EXPECT_EQ(st.migrations[1], 1u);

  // Already there: nothing to do.
  ASSERT_OK(fs_->MigrateFile("/t.sst", Tier::kSlow, nullptr, &r));
  EXPECT_FALSE(r.moved);

  Remount();
  EXPECT_EQ(TierOf("/t.sst"), Tier::kSlow);
  EXPECT_EQ(ReadFile("/t.sst"), data);
  ASSERT_OK(fs_->MigrateFile("/t.sst", Tier::kFast, nullptr, &r));
  EXPECT_TRUE(r.moved);
  Remount();
  EXPECT_EQ(TierOf("/t.sst"), Tier::kFast);
  EXPECT_EQ(ReadFile("/t.sst"), data);
  ExpectClean();
}

TEST_F(MigrateTest, RefusesFilesBeingWrittenAndMissingFiles) {
  Format();
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/open", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append(std::string(10000, 'x')));
  ASSERT_OK(w->Sync());
  MigrateResult r;
  EXPECT_TRUE(fs_->MigrateFile("/open", Tier::kSlow, nullptr, &r).IsBusy());
  ASSERT_OK(w->Close());
  EXPECT_OK(fs_->MigrateFile("/open", Tier::kSlow, nullptr, &r));
  EXPECT_TRUE(fs_->MigrateFile("/missing", Tier::kSlow, nullptr, &r).IsNotFound());
  EXPECT_FALSE(fs_->MigrateFile("/", Tier::kSlow, nullptr, &r).ok());
}

TEST_F(MigrateTest, NoSpaceOnTheTargetTierLeavesTheFileAlone) {
  FsGeometry g;
  g.slow = "zone_size=256KiB&zones=3";  // superblock + 2 data zones, one kept for GC
  Format(g);
  std::mt19937_64 rng(2);
  std::string data = Random(&rng, 600 * 1024);
  WriteFile("/big", data);
  MigrateResult r;
  Status s = fs_->MigrateFile("/big", Tier::kSlow, nullptr, &r);
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_FALSE(r.moved);
  EXPECT_EQ(TierOf("/big"), Tier::kFast);
  EXPECT_EQ(ReadFile("/big"), data);
  uint32_t freed = 0;
  ASSERT_OK(fs_->CollectGarbage(4, &freed));
  EXPECT_EQ(DeadZones(), 0) << "the abandoned copy is reclaimed";
  Remount();
  EXPECT_EQ(ReadFile("/big"), data);
  ExpectClean();
}

TEST_F(MigrateTest, ReadersSeeTheSameBytesThroughoutARateLimitedMove) {
  Format();
  std::mt19937_64 rng(3);
  std::string data = Random(&rng, 900 * 1024);
  WriteFile("/hot", data);
  std::unique_ptr<FileReader> reader;
  ASSERT_OK(fs_->OpenReader("/hot", &reader));
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0}, mismatches{0};
  std::thread t([&] {
    std::mt19937_64 r(4);
    std::string buf(8192, '\0');
    while (!stop) {
      uint64_t off = r() % (data.size() - buf.size());
      size_t got = 0;
      Status s = reader->Read(off, buf.size(), &buf[0], &got);
      if (!s.ok() || got != buf.size() || data.compare(off, got, buf) != 0) mismatches++;
      reads++;
    }
  });
  // 16 MiB/s: the move takes a few tenths of a second, spread over chunks.
  RateLimiter limiter(16 << 20, 256 << 10);
  for (int round = 0; round < 4; round++) {
    MigrateResult r;
    ASSERT_OK(fs_->MigrateFile("/hot", round % 2 == 0 ? Tier::kSlow : Tier::kFast, &limiter, &r));
    EXPECT_TRUE(r.moved);
  }
  stop = true;
  t.join();
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(ReadFile("/hot"), data);
  EXPECT_EQ(fs_->Stats().migrations[0] + fs_->Stats().migrations[1], 4u);
}

TEST_F(MigrateTest, AFileChangedDuringTheCopyKeepsItsNewBytes) {
  Format();
  std::mt19937_64 rng(5);
  std::string data = Random(&rng, 500 * 1024);
  WriteFile("/f", data);
  // Slow enough that the appender below lands inside the copy.
  RateLimiter limiter(1 << 20, 64 << 10);
  std::string extra = Random(&rng, 5000);
  std::thread appender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter("/f", WriteMode::kAppend, &w));
    ASSERT_OK(w->Append(extra));
    ASSERT_OK(w->Sync());
    ASSERT_OK(w->Close());
  });
  MigrateResult r;
  Status s = fs_->MigrateFile("/f", Tier::kSlow, &limiter, &r);
  appender.join();
  // Either the copy finished first (then the append came after) or the
  // migration saw the change and dropped its copy; the file is whole.
  if (!s.ok()) {
    EXPECT_TRUE(s.IsBusy()) << s.ToString();
    EXPECT_FALSE(r.moved);
    EXPECT_EQ(fs_->Stats().migrations_aborted, 1u);
  }
  EXPECT_EQ(ReadFile("/f"), data + extra);
  Remount();
  EXPECT_EQ(ReadFile("/f"), data + extra);
  ExpectClean();
  EXPECT_EQ(DeadZones(), 0);
}

// Issue 17: the file rewritten during the copy, its old zones dead: they are
// not reset under the copy (which would read past their write pointers), and
// the migration drops its copy.
TEST_F(MigrateTest, AFileRewrittenDuringTheCopyIsNotReadPastItsZones) {
  Format();
  std::mt19937_64 rng(6);
  std::string data = Random(&rng, 500 * 1024), fresh = Random(&rng, 7000);
  WriteFile("/f", data);
  RateLimiter limiter(1 << 20, 64 << 10);
  std::thread rewriter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    WriteFile("/f", fresh);  // truncates: the old extents die
    ASSERT_OK(fs_->SyncMetadata());  // and their zones would be reset at once
  });
  MigrateResult r;
  Status s = fs_->MigrateFile("/f", Tier::kSlow, &limiter, &r);
  rewriter.join();
  EXPECT_TRUE(s.ok() || s.IsBusy()) << s.ToString();
  EXPECT_EQ(ReadFile("/f"), fresh);
  ASSERT_OK(fs_->SyncMetadata());
  Remount();
  EXPECT_EQ(ReadFile("/f"), fresh);
  ExpectClean();
  EXPECT_EQ(DeadZones(), 0);
}

// Every write of a run of migrations is a crash point.
TEST_F(MigrateTest, PowerCutAtAnyWriteLeavesOneWholeCopy) {
  std::mt19937_64 rng(6);
  std::vector<std::pair<std::string, std::string>> files;
  for (int i = 0; i < 4; i++) files.emplace_back("/m" + std::to_string(i), Random(&rng, 20000 + 37000 * i));
  auto migrations = [&]() -> Status {
    MigrateResult r;
    for (const auto& f : files) {
      Status s = fs_->MigrateFile(f.first, Tier::kSlow, nullptr, &r);
      if (!s.ok()) return s;
    }
    for (size_t i = 0; i < files.size(); i += 2) {
      Status s = fs_->MigrateFile(files[i].first, Tier::kFast, nullptr, &r);
      if (!s.ok()) return s;
    }
    return Status::OK();
  };
  int crashed = 0;
  uint64_t total = CutPowerAtEveryWrite(files, migrations, [&](const std::string& name) {
    TierOf(name);  // never a mix of tiers
  }, &crashed);
  ASSERT_GE(total, 12u);
  EXPECT_GE(crashed, static_cast<int>(total) - 2);
}

// The file bytes [begin, end) of each of path's extents on tier.
std::vector<std::pair<uint64_t, uint64_t>> RangesOn(Filesystem* fs, const std::string& path, Tier tier) {
  FileStat st;
  EXPECT_OK(fs->Stat(path, &st));
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  uint64_t at = 0;
  for (const Extent& e : st.extents) {
    if (fs->superblock().members[e.device].tier == tier) {
      if (!ranges.empty() && ranges.back().second == at) {
        ranges.back().second += e.length;
      } else {
        ranges.emplace_back(at, at + e.length);
      }
    }
    at += e.length;
  }
  return ranges;
}

TEST_F(MigrateTest, ARangeMovesOnlyItsOwnBytes) {
  Format();
  std::mt19937_64 rng(8);
  std::string data = Random(&rng, 700 * 1024 + 123);
  WriteFile("/t.sst", data);
  MigrateResult r;
  ASSERT_OK(fs_->MigrateRange("/t.sst", 300000, 100000, Tier::kSlow, ZoneRole::kFree, nullptr, &r));
  EXPECT_TRUE(r.moved);
  EXPECT_EQ(r.bytes, 100000u) << "cut exactly, inside device blocks";
  auto slow = RangesOn(fs_.get(), "/t.sst", Tier::kSlow);
  EXPECT_EQ(slow, (std::vector<std::pair<uint64_t, uint64_t>>{{300000, 400000}}));
  // Locate names the zone of a range's first byte.
  std::unique_ptr<FileReader> reader;
  ASSERT_OK(fs_->OpenReader("/t.sst", &reader));
  ReadLocation moved = reader->Locate(350000, 10), stayed = reader->Locate(100, 10);
  FileStat st;
  ASSERT_OK(fs_->Stat("/t.sst", &st));
  ASSERT_TRUE(moved.found && moved.slow && stayed.found && !stayed.slow);
  EXPECT_EQ(fs_->superblock().members[moved.device].tier, Tier::kSlow);
  EXPECT_EQ(stayed.device, st.extents[0].device);
  EXPECT_EQ(stayed.zone, st.extents[0].zone);
  EXPECT_FALSE(reader->Locate(data.size() + 10, 1).found) << "past the end";
  reader.reset();
  EXPECT_EQ(ReadFile("/t.sst"), data);
  ExpectClean();
  Remount();
  EXPECT_EQ(RangesOn(fs_.get(), "/t.sst", Tier::kSlow), slow);
  EXPECT_EQ(ReadFile("/t.sst"), data);

  // Already there: nothing to do. A range across both tiers moves its slow part.
  ASSERT_OK(fs_->MigrateRange("/t.sst", 320000, 50000, Tier::kSlow, ZoneRole::kFree, nullptr, &r));
  EXPECT_FALSE(r.moved);
  ASSERT_OK(fs_->MigrateRange("/t.sst", 250000, 100000, Tier::kFast, ZoneRole::kFree, nullptr, &r));
  EXPECT_TRUE(r.moved);
  EXPECT_LT(r.bytes, 100000u) << "only the part on the slow tier is copied";
  ASSERT_OK(fs_->MigrateRange("/t.sst", 0, data.size(), Tier::kFast, ZoneRole::kFree, nullptr, &r));
  EXPECT_EQ(TierOf("/t.sst"), Tier::kFast);
  EXPECT_EQ(ReadFile("/t.sst"), data);
  EXPECT_EQ(DeadZones(), 0);
  // The file's last byte.
  ASSERT_OK(fs_->MigrateRange("/t.sst", data.size() - 1, 1, Tier::kSlow, ZoneRole::kFree, nullptr, &r));
  EXPECT_EQ(RangesOn(fs_.get(), "/t.sst", Tier::kSlow),
            (std::vector<std::pair<uint64_t, uint64_t>>{{data.size() - 1, data.size()}}));
  Remount();
  EXPECT_EQ(ReadFile("/t.sst"), data);
  ExpectClean();
}

// Range moves split extents, so the metadata only grows. They wait (NoSpace)
// long before the next journal snapshot could outgrow its metadata zone;
// the journal goes on taking every other change, and a whole-file move,
// which joins the file's extents again, makes room for more.
TEST_F(MigrateTest, RangeMovesWaitBeforeTheMetadataOutgrowsItsZone) {
  FsGeometry g;
  g.fast = "zone_size=32KiB&zones=200&block_size=512";
  g.slow = "zone_size=64KiB&zones=40&block_size=512";
  Format(g);
  std::mt19937_64 rng(21);
  // Enough blocks that splitting every other one would need more than a
  // metadata zone.
  std::string data = Random(&rng, 1500 * 1024);
  WriteFile("/t.sst", data);
  MigrateResult r;
  Status refused;
  int moves = 0;
  // Every other 512-byte block to the slow tier: two extents per move.
  for (uint64_t at = 512; at < data.size() && refused.ok(); at += 1024, moves++) {
    refused = fs_->MigrateRange("/t.sst", at, 512, Tier::kSlow, ZoneRole::kFree, nullptr, &r);
  }
  ASSERT_TRUE(refused.IsNoSpace()) << refused.ToString() << " after " << moves << " moves";
  FsStats st = fs_->Stats();
  EXPECT_GT(moves, 100) << "refused only once the metadata is large";
  EXPECT_EQ(st.range_moves_refused, 1u);
  EXPECT_EQ(st.journal_zone_capacity, 32u * 1024);
  EXPECT_GT(st.journal_snapshot_bound, st.journal_zone_capacity / 2);
  EXPECT_LT(st.journal_snapshot_bound, st.journal_zone_capacity);
  // A move of whole extents adds none and goes on: the block just moved,
  // and back.
  const uint64_t last = 512 + 1024 * (moves - 2);
  ASSERT_OK(fs_->MigrateRange("/t.sst", last, 512, Tier::kFast, ZoneRole::kFree, nullptr, &r));
  EXPECT_TRUE(r.moved);
  ASSERT_OK(fs_->MigrateRange("/t.sst", last, 512, Tier::kSlow, ZoneRole::kFree, nullptr, &r));
  EXPECT_TRUE(r.moved);
  // Everything else still commits, and rolls.
  WriteFile("/other", "written after the refusal");
  for (int i = 0; i < 300; i++) ASSERT_OK(fs_->Rename(i % 2 ? "/other2" : "/other", i % 2 ? "/other" : "/other2"));
  EXPECT_EQ(ReadFile("/t.sst"), data);
  Remount();
  EXPECT_EQ(ReadFile("/t.sst"), data);
  ExpectClean();
  // A whole-file move copies only the slow blocks: the extents stay split.
  ASSERT_OK(fs_->MigrateFile("/t.sst", Tier::kFast, nullptr, &r));
  FileStat stat;
  ASSERT_OK(fs_->Stat("/t.sst", &stat));
  EXPECT_GT(stat.extents.size(), static_cast<size_t>(moves));
  // A relayout joins them; range moves may go on.
  ASSERT_OK(fs_->RelayoutFile("/t.sst", Tier::kFast, nullptr, &r));
  EXPECT_EQ(r.bytes, data.size());
  ASSERT_OK(fs_->Stat("/t.sst", &stat));
  EXPECT_LE(stat.extents.size(), data.size() / (32 * 1024) + 4) << "about one extent per zone";
  ASSERT_OK(fs_->MigrateRange("/t.sst", 4096, 512, Tier::kSlow, ZoneRole::kFree, nullptr, &r));
  EXPECT_TRUE(r.moved);
  Remount();
  EXPECT_EQ(ReadFile("/t.sst"), data);
  ExpectClean();
}

// A copy of slow-tier blocks just written or read takes them from memory
// (fs/recent_blocks.h), not from the slow device again, and copies what the
// file holds either way.
TEST_F(MigrateTest, BlocksJustWrittenOrReadAreCopiedFromMemory) {
  Format();
  std::mt19937_64 rng(12);
  std::string data = Random(&rng, 300 * 1024 + 77);
  WriteFile("/t.sst", data);
  MigrateResult r;
  ASSERT_OK(fs_->MigrateRange("/t.sst", 0, data.size(), Tier::kSlow, ZoneRole::kFree, nullptr, &r));
  const FsStats before = fs_->Stats();
  ASSERT_OK(fs_->MigrateRange("/t.sst", 100000, 50000, Tier::kFast, ZoneRole::kFree, nullptr, &r));
  ASSERT_TRUE(r.moved);
  FsStats after = fs_->Stats();
  EXPECT_GT(after.copies_from_memory, before.copies_from_memory) << "written to the slow tier just now";
  EXPECT_EQ(after.copies_from_device, before.copies_from_device);
  EXPECT_EQ(ReadFile("/t.sst"), data);

  // After a remount nothing is in memory; a read of the slow tier puts its
  // blocks there.
  Remount();
  ASSERT_OK(fs_->MigrateRange("/t.sst", 0, 4096, Tier::kFast, ZoneRole::kFree, nullptr, &r));
  after = fs_->Stats();
  EXPECT_EQ(after.copies_from_memory, 0u);
  EXPECT_EQ(after.copies_from_device, 1u);
  std::unique_ptr<FileReader> reader;
  ASSERT_OK(fs_->OpenReader("/t.sst", &reader));
  std::string got(20000, '\0');
  size_t n = 0;
  ASSERT_OK(reader->Read(200000, got.size(), &got[0], &n));
  ASSERT_EQ(n, got.size());
  ASSERT_OK(fs_->MigrateRange("/t.sst", 204096, 8192, Tier::kFast, ZoneRole::kFree, nullptr, &r));
  ASSERT_TRUE(r.moved);
  EXPECT_EQ(fs_->Stats().copies_from_memory, 1u);
  reader.reset();  // handles go before their filesystem (fs/filesystem.h)
  EXPECT_EQ(ReadFile("/t.sst"), data);
  ExpectClean();
  Remount();
  EXPECT_EQ(ReadFile("/t.sst"), data);

  // Without the memory every copy reads the device.
  MountOptions none;
  none.recent_blocks_bytes = 0;
  fs_.reset();
  Mount(none);
  ASSERT_OK(fs_->MigrateRange("/t.sst", 0, data.size(), Tier::kSlow, ZoneRole::kFree, nullptr, &r));
  ASSERT_OK(fs_->MigrateRange("/t.sst", 0, data.size(), Tier::kFast, ZoneRole::kFree, nullptr, &r));
  EXPECT_EQ(fs_->Stats().copies_from_memory, 0u);
  EXPECT_EQ(ReadFile("/t.sst"), data);
}

// Ranges moved into a file class of their own share its zones, whatever
// class their files are of (block tiering's moved blocks).
TEST_F(MigrateTest, RangesMovedIntoAClassShareItsZones) {
  Format();
  std::mt19937_64 rng(10);
  std::vector<std::string> data;
  const ZoneRole moved = FileClass(7);
  for (int i = 0; i < 4; i++) {
    data.push_back(Random(&rng, 100000));
    WriteFile("/f" + std::to_string(i), data.back());
  }
  MigrateResult r;
  std::set<std::pair<uint32_t, uint32_t>> zones;
  for (int i = 0; i < 4; i++) {
    std::string path = "/f" + std::to_string(i);
    ASSERT_OK(fs_->MigrateRange(path, 40000, 5000, Tier::kSlow, moved, nullptr, &r));
    EXPECT_TRUE(r.moved);
    FileStat st;
    ASSERT_OK(fs_->Stat(path, &st));
    for (const Extent& e : st.extents) {
      if (fs_->superblock().members[e.device].tier == Tier::kSlow) zones.emplace(e.device, e.zone);
    }
  }
  EXPECT_EQ(zones.size(), 1u) << "four small ranges, one zone";
  std::vector<ZoneReport> reports;
  ASSERT_OK(fs_->Zones(&reports));
  for (const ZoneReport& z : reports) {
    if (zones.count({z.device, z.zone})) {
      EXPECT_EQ(z.role, moved);
    }
  }
  EXPECT_TRUE(fs_->MigrateRange("/f0", 0, 10, Tier::kSlow, ZoneRole::kMetadata, nullptr, &r).IsInvalidArgument());
  Remount();
  for (int i = 0; i < 4; i++) EXPECT_EQ(ReadFile("/f" + std::to_string(i)), data[i]);
  ExpectClean();
}

// The class a copy gives a zone is journaled: a remount gives it back, not
// the class of the zone's files (blocks moved up from many tables must stay
// found as moved blocks, and take no table's appends).
TEST_F(MigrateTest, ZonesKeepTheClassTheirCopiesGaveThemAcrossRemounts) {
  Format();
  std::mt19937_64 rng(11);
  const ZoneRole moved = FileClass(7);
  std::vector<std::string> data;
  for (int i = 0; i < 3; i++) {
    data.push_back(Random(&rng, 60000));
    WriteFile("/g" + std::to_string(i), data.back());
    MigrateResult r;
    ASSERT_OK(fs_->MigrateRange("/g" + std::to_string(i), 8192, 8192, Tier::kSlow, moved, nullptr, &r));
    ASSERT_TRUE(r.moved);
  }
  auto moved_zones = [&] {
    std::set<std::pair<uint32_t, uint32_t>> zones;
    std::vector<ZoneReport> reports;
    EXPECT_OK(fs_->Zones(&reports));
    for (const ZoneReport& z : reports) {
      if (z.role == moved && z.live_bytes > 0) zones.emplace(z.device, z.zone);
    }
    return zones;
  };
  const auto before = moved_zones();
  ASSERT_EQ(before.size(), 1u);
  Remount();
  EXPECT_EQ(moved_zones(), before) << "the zone read back with its files' class";
  for (int i = 0; i < 3; i++) EXPECT_EQ(ReadFile("/g" + std::to_string(i)), data[i]);
  ExpectClean();
}

TEST(ZoneClassOpTest, RoundTripsIsForgottenAtResetAndRejectsBadClasses) {
  MetadataOp op;
  op.type = MetadataOp::Type::kZoneClass;
  op.device = 1;
  op.zone = 9;
  op.inode.role = FileClass(7);
  std::string bytes;
  EncodeOp(op, &bytes);
  std::string_view in(bytes);
  MetadataOp back;
  ASSERT_OK(DecodeOp(&in, &back));
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(back.type, MetadataOp::Type::kZoneClass);
  EXPECT_EQ(back.device, 1u);
  EXPECT_EQ(back.zone, 9u);
  EXPECT_EQ(back.inode.role, FileClass(7));
  MetadataImage image;
  ASSERT_OK(image.Apply(back));
  ASSERT_EQ(image.zone_classes().size(), 1u);
  // A snapshot carries it.
  std::vector<MetadataOp> ops;
  image.SnapshotOps(&ops);
  MetadataImage again;
  for (const MetadataOp& o : ops) ASSERT_OK(again.Apply(o));
  EXPECT_EQ(again.zone_classes(), image.zone_classes());
  // Checksums written from block 0 keep it; the zone's reset forgets it.
  MetadataOp sums;
  sums.type = MetadataOp::Type::kBlockSums;
  sums.device = 1;
  sums.zone = 9;
  sums.crcs = {1, 2};
  ASSERT_OK(image.Apply(sums));
  EXPECT_EQ(image.zone_classes().size(), 1u);
  sums.crcs.clear();
  ASSERT_OK(image.Apply(sums));
  EXPECT_TRUE(image.zone_classes().empty());
  // The filesystem's own roles are no class a copy gives.
  for (ZoneRole bad : {ZoneRole::kFree, ZoneRole::kMetadata, ZoneRole::kSuperblock, FileClass(16)}) {
    op.inode.role = bad;
    bytes.clear();
    EncodeOp(op, &bytes);
    in = bytes;
    EXPECT_TRUE(DecodeOp(&in, &back).IsCorruption()) << static_cast<int>(bad);
  }
  bytes.resize(bytes.size() - 1);  // cut short
  in = bytes;
  EXPECT_FALSE(DecodeOp(&in, &back).ok());
}

// A copy to a fast tier whose zones are full but partly dead collects that
// garbage first, as a writer would, rather than fail for space: in a
// read-only phase no writer ever does, and moved blocks found no room.
TEST_F(MigrateTest, ACopyToTheFastTierCollectsItsGarbageFirst) {
  FsGeometry g;
  g.fast = "zone_size=256KiB&zones=10";
  Format(g);
  std::mt19937_64 rng(12);
  std::vector<std::string> names;
  std::string spilled;
  for (int i = 0; i < 64 && spilled.empty(); i++) {
    names.push_back("/f" + std::to_string(i));
    WriteFile(names.back(), Random(&rng, 128 * 1024));
    if (!RangesOn(fs_.get(), names.back(), Tier::kSlow).empty()) spilled = names.back();
  }
  ASSERT_FALSE(spilled.empty()) << "the fast tier never filled";
  for (size_t i = 0; i + 1 < names.size(); i += 2) ASSERT_OK(fs_->Unlink(names[i]));
  const std::string data = ReadFile(spilled);
  MigrateResult r;
  ASSERT_OK(fs_->MigrateRange(spilled, 0, data.size(), Tier::kFast, ZoneRole::kFree, nullptr, &r));
  EXPECT_TRUE(r.moved);
  EXPECT_EQ(TierOf(spilled), Tier::kFast);
  EXPECT_EQ(ReadFile(spilled), data);
  Remount();
  EXPECT_EQ(ReadFile(spilled), data);
  for (size_t i = 1; i < names.size(); i += 2) EXPECT_FALSE(ReadFile(names[i]).empty());
  ExpectClean();
}

// Zones that moved ranges fill to the last block are sealed, so the device
// never counts more active zones than the filesystem plans with.
TEST_F(MigrateTest, ZonesFilledByMovedRangesDoNotStayActive) {
  FsGeometry g;
  g.slow = "zone_size=64KiB&zones=64&max_active=4&max_open=4";
  Format(g);
  std::mt19937_64 rng(11);
  std::vector<std::string> data;
  for (int i = 0; i < 6; i++) {
    data.push_back(Random(&rng, 120000));
    WriteFile("/f" + std::to_string(i), data.back());
  }
  MigrateResult r;
  for (uint64_t at = 0; at + 4096 < 120000; at += 8192) {  // about eight zones of single blocks
    for (int i = 0; i < 6; i++) {
      ASSERT_OK(fs_->MigrateRange("/f" + std::to_string(i), at, 1, Tier::kSlow, FileClass(7), nullptr, &r));
    }
  }
  for (int i = 0; i < 6; i++) ASSERT_OK(fs_->MigrateFile("/f" + std::to_string(i), Tier::kSlow, nullptr, &r));
  for (int i = 0; i < 6; i++) EXPECT_EQ(ReadFile("/f" + std::to_string(i)), data[i]);
  Remount();
  for (int i = 0; i < 6; i++) EXPECT_EQ(ReadFile("/f" + std::to_string(i)), data[i]);
  ExpectClean();
}

TEST_F(MigrateTest, ARangeMustLieInsideTheFile) {
  Format();
  WriteFile("/f", std::string(10000, 'x'));
  MigrateResult r;
  EXPECT_TRUE(fs_->MigrateRange("/f", 0, 0, Tier::kSlow, ZoneRole::kFree, nullptr, &r).IsInvalidArgument());
  EXPECT_TRUE(fs_->MigrateRange("/f", 10000, 1, Tier::kSlow, ZoneRole::kFree, nullptr, &r).IsInvalidArgument());
  EXPECT_TRUE(fs_->MigrateRange("/f", 9000, 1001, Tier::kSlow, ZoneRole::kFree, nullptr, &r).IsInvalidArgument());
  EXPECT_TRUE(fs_->MigrateRange("/f", 1, UINT64_MAX, Tier::kSlow, ZoneRole::kFree, nullptr, &r).IsInvalidArgument());
  EXPECT_TRUE(fs_->MigrateRange("/missing", 0, 1, Tier::kSlow, ZoneRole::kFree, nullptr, &r).IsNotFound());
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/f", WriteMode::kAppend, &w));
  EXPECT_TRUE(fs_->MigrateRange("/f", 0, 100, Tier::kSlow, ZoneRole::kFree, nullptr, &r).IsBusy());
  ASSERT_OK(w->Close());
  ASSERT_OK(fs_->MigrateRange("/f", 0, 100, Tier::kSlow, ZoneRole::kFree, nullptr, &r));
  EXPECT_TRUE(r.moved);
  EXPECT_EQ(ReadFile("/f"), std::string(10000, 'x'));
}

// Every write of a run of range moves, and of the relayout that joins what
// they split, is a crash point: after the power comes back, each file reads
// whole, fsck is clean and no zone leaked.
TEST_F(MigrateTest, RangesMovedTogetherShareDeviceBlocks) {
  Format();
  std::mt19937_64 rng(12);
  std::vector<std::pair<std::string, std::string>> files;
  for (int i = 0; i < 3; i++) {
    files.emplace_back("/b" + std::to_string(i), Random(&rng, 100000 + 3333 * i));
    WriteFile(files.back().first, files.back().second);
  }
  // 20 blocks of 1,000 bytes from each file, at no block boundary.
  std::vector<RangeMove> ranges;
  for (const auto& [name, data] : files) {
    for (uint64_t at = 123; ranges.size() % 20 != 0 || at == 123; at += 4900) ranges.push_back({name, at, 1000});
  }
  ASSERT_EQ(ranges.size(), 60u);
  ranges.push_back({"/missing", 0, 10});
  std::unique_ptr<FileWriter> open_file;
  ASSERT_OK(fs_->OpenWriter("/being-written", WriteMode::kTruncate, &open_file));
  ASSERT_OK(open_file->Append(std::string(5000, 'x')));
  ranges.push_back({"/being-written", 0, 10});
  std::vector<MigrateResult> results;
  ASSERT_OK(fs_->MigrateRanges(ranges, Tier::kSlow, ZoneRole::kFree, nullptr, &results));
  ASSERT_EQ(results.size(), ranges.size());
  for (size_t i = 0; i < 60; i++) {
    EXPECT_TRUE(results[i].moved) << i;
    EXPECT_EQ(results[i].bytes, 1000u) << i;
  }
  EXPECT_TRUE(results[60].status.IsNotFound());
  EXPECT_TRUE(results[61].status.IsBusy());
  EXPECT_FALSE(results[60].moved || results[61].moved);
  // 60,000 bytes on the slow tier in 60,000 bytes of device blocks and a
  // padded last block, where one device block or more each would take
  // 120,000 (4 KiB blocks) or more.
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  for (const DeviceUsage& u : usage) {
    if (u.tier != Tier::kSlow) continue;
    EXPECT_EQ(u.live_bytes, 60000u);
    EXPECT_LT(u.live_bytes + u.garbage_bytes, 60000u + 4096);
  }
  for (const auto& [name, data] : files) EXPECT_EQ(ReadFile(name), data) << name;
  ASSERT_OK(open_file->Close());
  Remount();
  for (const auto& [name, data] : files) EXPECT_EQ(ReadFile(name), data) << name;
  ExpectClean();
  // And back up: the files are whole on the fast tier again.
  ranges.resize(60);
  ASSERT_OK(fs_->MigrateRanges(ranges, Tier::kFast, ZoneRole::kFree, nullptr, &results));
  for (const auto& [name, data] : files) {
    EXPECT_EQ(TierOf(name), Tier::kFast);
    EXPECT_EQ(ReadFile(name), data) << name;
  }
  std::vector<RangeMove> empty{{"/b0", 0, 0}};
  EXPECT_TRUE(fs_->MigrateRanges(empty, Tier::kFast, ZoneRole::kFree, nullptr, &results).IsInvalidArgument());
  // The usage's file bytes are the files' bytes, cut extents and all.
  uint64_t file_bytes = 0, sizes = 5000;  // /being-written
  ASSERT_OK(fs_->Usage(&usage));
  for (const DeviceUsage& u : usage) file_bytes += u.file_bytes;
  for (const auto& [name, data] : files) sizes += data.size();
  EXPECT_EQ(file_bytes, sizes);
  ExpectClean();
}

TEST_F(MigrateTest, PowerCutAtAnyWriteOfRangeMovesLeavesEveryByte) {
  std::mt19937_64 rng(9);
  std::vector<std::pair<std::string, std::string>> files;
  for (int i = 0; i < 3; i++) files.emplace_back("/r" + std::to_string(i), Random(&rng, 50000 + 41000 * i));
  auto moves = [&]() -> Status {
    MigrateResult r;
    for (const auto& [name, data] : files) {
      uint64_t third = data.size() / 3;
      for (Status s : {fs_->MigrateRange(name, third, third, Tier::kSlow, ZoneRole::kFree, nullptr, &r),
                       fs_->MigrateRange(name, 10, 5000, Tier::kSlow, ZoneRole::kFree, nullptr, &r),
                       fs_->MigrateRange(name, third + 100, 9000, Tier::kFast, ZoneRole::kFree, nullptr, &r)}) {
        if (!s.ok()) return s;
      }
      Status s = fs_->RelayoutFile(name, Tier::kFast, nullptr, &r);
      if (!s.ok()) return s;
    }
    // Small ranges of every file down and up again, packed together.
    std::vector<RangeMove> ranges;
    for (const auto& [name, data] : files) {
      for (uint64_t at = 777; at + 1000 < data.size(); at += data.size() / 5) ranges.push_back({name, at, 1000});
    }
    std::vector<MigrateResult> results;
    for (Tier to : {Tier::kSlow, Tier::kFast}) {
      Status s = fs_->MigrateRanges(ranges, to, ZoneRole::kFree, nullptr, &results);
      if (!s.ok()) return s;
    }
    return Status::OK();
  };
  int crashed = 0;
  EXPECT_GE(CutPowerAtEveryWrite(files, moves, [](const std::string&) {}, &crashed), 12u);
}

}  // namespace
}  // namespace hintfs
