// Filesystem behaviour: files, directories, space and reclaim.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <regex>
#include <thread>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

using test::FsGeometry;
using test::FsTest;

TEST_F(FsTest, WriteReadAcrossRemount) {
  Format();
  std::mt19937_64 rng(1);
  std::map<std::string, std::string> files;
  for (size_t size : {0ul, 1ul, 4095ul, 4096ul, 4097ul, 100000ul, 700000ul}) {
    std::string name = "/f" + std::to_string(size);
    files[name] = Random(&rng, size);
    WriteFile(name, files[name]);
  }
  for (auto& [name, data] : files) EXPECT_EQ(ReadFile(name), data) << name;
  Remount();
  for (auto& [name, data] : files) EXPECT_EQ(ReadFile(name), data) << name;
  ExpectClean();
}

TEST_F(FsTest, FileLargerThanAZoneSpansZonesAndDevices) {
  Format();
  std::mt19937_64 rng(2);
  std::string big = Random(&rng, 6 << 20);  // fast tier holds ~4.5 MiB of data zones
  WriteFile("/big", big);
  FileStat st;
  ASSERT_OK(fs_->Stat("/big", &st));
  EXPECT_EQ(st.size, big.size());
  std::set<uint32_t> devices, zones;
  for (const Extent& e : st.extents) devices.insert(e.device), zones.insert(e.zone);
  EXPECT_EQ(devices.size(), 2u) << "fills fast, then spills to slow";
  EXPECT_GT(zones.size(), 10u);
  Remount();
  EXPECT_EQ(ReadFile("/big"), big);
  ExpectClean();
}

// Appends of at least a buffer's worth with nothing buffered go to zones
// straight from the caller's bytes; mixed with buffered ones, every byte
// lands once, in order.
TEST_F(FsTest, LargeAndSmallAppendsInterleave) {
  Format();
  MountOptions o;
  o.write_buffer_bytes = 64 << 10;
  Mount(o);
  std::mt19937_64 rng(7);
  std::string expect;
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/mix", WriteMode::kTruncate, &w));
  for (size_t size : {200000ul, 100ul, 70000ul, 65536ul, 4096ul, 131072ul, 1ul, 300000ul}) {
    std::string part = Random(&rng, size);
    ASSERT_OK(w->Append(part));
    expect += part;
    if (size == 4096) ASSERT_OK(w->Sync());
  }
  EXPECT_EQ(w->Size(), expect.size());
  EXPECT_EQ(ReadFile("/mix"), expect);  // partly still buffered
  ASSERT_OK(w->Close());
  EXPECT_EQ(ReadFile("/mix"), expect);
  Remount();
  EXPECT_EQ(ReadFile("/mix"), expect);
  ExpectClean();
}

TEST_F(FsTest, ReadsAtOffsetsIncludingUnwrittenTail) {
  Format();
  std::mt19937_64 rng(3);
  std::string data = Random(&rng, 50000);
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/f", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append(data.substr(0, 30000)));
  ASSERT_OK(w->Flush());  // whole blocks on the device, the rest buffered
  ASSERT_OK(w->Append(data.substr(30000)));
  std::unique_ptr<FileReader> r;
  ASSERT_OK(fs_->OpenReader("/f", &r));
  for (uint64_t off : {0ul, 1ul, 4095ul, 28000ul, 29999ul, 45000ul}) {
    std::string buf(7000, '\0');
    size_t got = 0;
    ASSERT_OK(r->Read(off, buf.size(), &buf[0], &got));
    size_t want = std::min<size_t>(7000, data.size() - off);
    ASSERT_EQ(got, want);
    EXPECT_EQ(buf.substr(0, got), data.substr(off, want)) << off;
  }
  size_t got = 1;
  char c;
  ASSERT_OK(r->Read(data.size(), 1, &c, &got));
  EXPECT_EQ(got, 0u);
  ASSERT_OK(w->Close());
}

TEST_F(FsTest, ReopenForAppendAfterSyncAndRemount) {
  Format();
  WriteFile("/log", "hello ");
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/log", WriteMode::kAppend, &w));
  EXPECT_EQ(w->Size(), 6u);
  ASSERT_OK(w->Append("world"));
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Append("!"));
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  Remount();
  EXPECT_EQ(ReadFile("/log"), "hello world!");
  ASSERT_OK(fs_->OpenWriter("/log", WriteMode::kAppend, &w));
  ASSERT_OK(w->Append(" again"));
  ASSERT_OK(w->Close());
  EXPECT_EQ(ReadFile("/log"), "hello world! again");
  std::unique_ptr<FileWriter> second;
  EXPECT_TRUE(fs_->OpenWriter("/new", WriteMode::kExclusive, &second).ok());
  EXPECT_TRUE(fs_->OpenWriter("/log", WriteMode::kExclusive, &w).IsAlreadyExists());
  EXPECT_TRUE(fs_->OpenWriter("/new", WriteMode::kAppend, &w).IsBusy());
  ExpectClean();
}

TEST_F(FsTest, DirectoriesRenameLinkUnlink) {
  Format();
  ASSERT_OK(fs_->Mkdir("/db"));
  ASSERT_OK(fs_->Mkdir("/db/sub"));
  EXPECT_TRUE(fs_->Mkdir("/db").IsAlreadyExists());
  EXPECT_TRUE(fs_->Mkdir("/nope/x").IsNotFound());
  WriteFile("/db/a", "AAA");
  WriteFile("/db/b", "BBB");
  ASSERT_OK(fs_->Rename("/db/a", "/db/b"));  // replaces b
  EXPECT_EQ(ReadFile("/db/b"), "AAA");
  FileStat st;
  EXPECT_TRUE(fs_->Stat("/db/a", &st).IsNotFound());
  ASSERT_OK(fs_->Link("/db/b", "/db/sub/c"));
  ASSERT_OK(fs_->Stat("/db/b", &st));
  EXPECT_EQ(st.nlink, 2u);
  ASSERT_OK(fs_->Unlink("/db/b"));
  EXPECT_EQ(ReadFile("/db/sub/c"), "AAA");
  EXPECT_TRUE(fs_->Rmdir("/db/sub").IsInvalidArgument());  // not empty
  EXPECT_TRUE(fs_->Rename("/db", "/db/sub/x").IsInvalidArgument());
  EXPECT_TRUE(fs_->Unlink("/db").IsInvalidArgument());
  EXPECT_TRUE(fs_->Link("/db", "/d2").IsInvalidArgument());
  ASSERT_OK(fs_->Rename("/db/sub", "/moved"));
  std::vector<DirEntry> entries;
  ASSERT_OK(fs_->ReadDir("/", &entries));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "db");
  EXPECT_EQ(entries[1].name, "moved");
  ASSERT_OK(fs_->SyncMetadata());
  Remount();
  EXPECT_EQ(ReadFile("/moved/c"), "AAA");
  ASSERT_OK(fs_->ReadDir("/db", &entries));
  EXPECT_TRUE(entries.empty());
  ASSERT_OK(fs_->Unlink("/moved/c"));
  ASSERT_OK(fs_->Rmdir("/moved"));
  ASSERT_OK(fs_->Rmdir("/db"));
  Remount();
  ASSERT_OK(fs_->ReadDir("/", &entries));
  EXPECT_TRUE(entries.empty());
  ExpectClean();
}

TEST_F(FsTest, UnlinkedOpenFileStaysReadableUntilClosed) {
  Format();
  WriteFile("/f", std::string(10000, 'x'));
  std::unique_ptr<FileReader> r;
  ASSERT_OK(fs_->OpenReader("/f", &r));
  ASSERT_OK(fs_->Unlink("/f"));
  std::string buf(10000, '\0');
  size_t got = 0;
  ASSERT_OK(r->Read(0, buf.size(), &buf[0], &got));
  EXPECT_EQ(buf, std::string(10000, 'x'));
  r.reset();
  ASSERT_OK(fs_->SyncMetadata());
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  EXPECT_EQ(usage[0].live_bytes + usage[1].live_bytes, 0u);
  ExpectClean();
}

TEST_F(FsTest, TruncateShrinksAndGrows) {
  Format();
  std::mt19937_64 rng(4);
  std::string data = Random(&rng, 20000);
  WriteFile("/t", data);
  ASSERT_OK(fs_->Truncate("/t", 5000));
  EXPECT_EQ(ReadFile("/t"), data.substr(0, 5000));
  ASSERT_OK(fs_->Truncate("/t", 6000));
  EXPECT_EQ(ReadFile("/t"), data.substr(0, 5000) + std::string(1000, '\0'));
  ASSERT_OK(fs_->Truncate("/t", 0));
  EXPECT_EQ(ReadFile("/t"), "");
  WriteFile("/u", data);
  ASSERT_OK(fs_->Truncate("/u", 4096));
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/u", WriteMode::kAppend, &w));
  ASSERT_OK(w->Append("tail"));
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  Remount();
  EXPECT_EQ(ReadFile("/u"), data.substr(0, 4096) + "tail");
  EXPECT_EQ(ReadFile("/t"), "");
  ExpectClean();
}

// A reader walking a file in small pieces gets windows read ahead
// (fs/readahead.h), and never bytes the file no longer holds.
TEST_F(FsTest, SequentialReadersReadAheadAndSeeRewrites) {
  Format();
  std::mt19937_64 rng(9);
  std::string data = Random(&rng, 1 << 20);
  WriteFile("/t", data);
  std::unique_ptr<FileReader> r;
  ASSERT_OK(fs_->OpenReader("/t", &r));
  auto read = [&](uint64_t offset, size_t n) {
    std::string buf(n, '\0');
    size_t got = 0;
    EXPECT_OK(r->Read(offset, n, &buf[0], &got));
    buf.resize(got);
    return buf;
  };
  for (uint64_t off = 0; off < 64 * 1024; off += 4096) ASSERT_EQ(read(off, 4096), data.substr(off, 4096));
  FsStats st = fs_->Stats();
  EXPECT_GT(st.readahead_fetches, 0u);
  EXPECT_GT(st.readahead_reads_served, 10u);
  // The file is truncated and written again while the reader holds a window of it.
  std::string again = Random(&rng, 1 << 20);
  WriteFile("/t", again);
  EXPECT_EQ(read(64 * 1024, 4096), again.substr(64 * 1024, 4096));
  EXPECT_EQ(read(68 * 1024, 4096), again.substr(68 * 1024, 4096));
  r.reset();
  ExpectClean();
}

TEST_F(FsTest, LocksAreExclusive) {
  Format();
  std::unique_ptr<FileLock> a, b;
  ASSERT_OK(fs_->Lock("/LOCK", &a));
  EXPECT_TRUE(fs_->Lock("/LOCK", &b).IsBusy());
  a.reset();
  ASSERT_OK(fs_->Lock("/LOCK", &b));
}

TEST_F(FsTest, ManyFiles) {
  test::FsGeometry g;  // 2000 padded blocks need more than the default devices hold
  g.slow = "zone_size=256KiB&zones=32";
  Format(g);
  ASSERT_OK(fs_->Mkdir("/many"));
  for (int i = 0; i < 2000; i++) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter("/many/" + std::to_string(i), WriteMode::kTruncate, &w));
    ASSERT_OK(w->Append("file " + std::to_string(i)));
    ASSERT_OK(w->Close());
  }
  Remount();
  std::vector<DirEntry> entries;
  ASSERT_OK(fs_->ReadDir("/many", &entries));
  EXPECT_EQ(entries.size(), 2000u);
  for (int i = 0; i < 2000; i += 97) EXPECT_EQ(ReadFile("/many/" + std::to_string(i)), "file " + std::to_string(i));
  ExpectClean();
}

TEST_F(FsTest, UsageAccountsForEveryByte) {
  Format();
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20; i++) WriteFile("/f" + std::to_string(i), Random(&rng, 1000 + i * 20000));
  for (int i = 0; i < 20; i += 3) ASSERT_OK(fs_->Unlink("/f" + std::to_string(i)));
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  uint64_t files = 0;
  for (const DeviceUsage& u : usage) {
    EXPECT_EQ(u.raw_bytes, u.reserved_bytes + u.unusable_bytes + u.live_bytes + u.garbage_bytes + u.free_bytes);
    EXPECT_GE(u.live_bytes, u.file_bytes);
    files += u.file_bytes;
  }
  uint64_t expected = 0;
  for (int i = 0; i < 20; i++) if (i % 3 != 0) expected += 1000 + i * 20000;
  EXPECT_EQ(files, expected);
}

TEST_F(FsTest, DeletedDataIsReclaimed) {
  Format();
  std::mt19937_64 rng(6);
  // Write and delete several times the whole capacity: only works if zones are reset.
  for (int round = 0; round < 10; round++) {
    std::string data = Random(&rng, 3 << 20);
    WriteFile("/cycle", data);
    EXPECT_EQ(ReadFile("/cycle"), data);
    ASSERT_OK(fs_->Unlink("/cycle"));
  }
  EXPECT_GT(fs_->Stats().zone_resets, 20u);
  ExpectClean();
}

TEST_F(FsTest, GarbageCollectionAvoidsFalseNoSpace) {
  Format();
  std::mt19937_64 rng(7);
  // Small files share zones; deleting every other one leaves every zone half
  // dead. Keeping about half the capacity live must never fail with NoSpace.
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  uint64_t capacity = 0;
  for (const auto& u : usage) capacity += u.free_bytes;
  std::map<std::string, std::string> live;
  uint64_t live_bytes = 0;
  int next = 0;
  for (int step = 0; step < 3000; step++) {
    if (live_bytes < capacity / 2) {
      std::string name = "/g" + std::to_string(next++);
      std::string data = Random(&rng, 4096 * (1 + rng() % 12));
      std::unique_ptr<FileWriter> w;
      ASSERT_OK(fs_->OpenWriter(name, WriteMode::kTruncate, &w));
      Status s = w->Append(data);
      if (s.ok()) s = w->Sync();
      ASSERT_TRUE(s.ok()) << "step " << step << " live " << live_bytes << ": " << s.ToString();
      ASSERT_OK(w->Close());
      live[name] = data;
      live_bytes += data.size();
    } else {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      live_bytes -= it->second.size();
      ASSERT_OK(fs_->Unlink(it->first));
      live.erase(it);
    }
  }
  FsStats st = fs_->Stats();
  EXPECT_GT(st.gc_bytes_moved, 0u);
  Remount();
  for (auto& [name, data] : live) ASSERT_EQ(ReadFile(name), data) << name;
  ExpectClean();
}

TEST_F(FsTest, ExplicitGcFreesMostlyDeadZones) {
  Format();
  std::mt19937_64 rng(8);
  std::map<std::string, std::string> files;
  for (int i = 0; i < 60; i++) {
    files["/s" + std::to_string(i)] = Random(&rng, 40000);
    WriteFile("/s" + std::to_string(i), files["/s" + std::to_string(i)]);
  }
  for (int i = 0; i < 60; i++) {
    if (i % 4 != 0) {
      ASSERT_OK(fs_->Unlink("/s" + std::to_string(i)));
      files.erase("/s" + std::to_string(i));
    }
  }
  ASSERT_OK(fs_->SyncMetadata());
  uint32_t freed = 0;
  ASSERT_OK(fs_->CollectGarbage(100, &freed));
  EXPECT_GT(freed, 0u);
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  // What is left is the padding after the files' last bytes, less than a
  // block each (live bytes are exact).
  EXPECT_LT(usage[0].garbage_bytes + usage[1].garbage_bytes, files.size() * 4096);
  Remount();
  for (auto& [name, data] : files) EXPECT_EQ(ReadFile(name), data);
  ExpectClean();
}

// GC copies a zone without its files' locks (a zone of moved blocks holds
// blocks of hundreds of tables, every one of them hot): a file in the victim
// zone is read while the copy runs, and one rewritten meanwhile keeps its
// new bytes (its copy is dropped).
TEST_F(FsTest, GcCopiesWithoutHoldingItsFilesLocks) {
  FsGeometry g;
  g.fast = "zone_size=1MiB&zones=12&profile=hotrap-hdd";  // 2.5 ms a random read: the copy takes a while
  Format(g);
  std::mt19937_64 rng(21);
  std::map<std::string, std::string> files;
  for (int i = 0; i < 240; i++) {
    const std::string name = "/g" + std::to_string(i);
    files[name] = Random(&rng, 3000);
    WriteFile(name, files[name]);
  }
  for (int i = 0; i < 240; i++) {
    if (i % 3 == 0) continue;
    ASSERT_OK(fs_->Unlink("/g" + std::to_string(i)));
    files.erase("/g" + std::to_string(i));
  }
  ASSERT_OK(fs_->SyncMetadata());
  std::atomic<bool> done{false};
  std::thread gc([&] {
    uint32_t freed = 0;
    EXPECT_OK(fs_->CollectGarbage(1, &freed));
    done = true;
  });
  // GC holds its victim like a writer's zone while it copies.
  bool copying = false;
  while (!copying && !done) {
    std::vector<ZoneReport> zones;
    ASSERT_OK(fs_->Zones(&zones));
    for (const ZoneReport& z : zones) copying = copying || (z.writing && z.live_bytes > 0);
  }
  ASSERT_TRUE(copying) << "GC ended before it was seen copying";
  EXPECT_EQ(ReadFile("/g0"), files["/g0"]);
  const std::string fresh = Random(&rng, 100);
  {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter("/g3", WriteMode::kAppend, &w));
    ASSERT_OK(w->WriteAt(10, fresh));
    ASSERT_OK(w->Close());
    files["/g3"].replace(10, fresh.size(), fresh);
  }
  EXPECT_FALSE(done) << "a read and a rewrite waited for GC's copy";
  gc.join();
  for (auto& [name, data] : files) ASSERT_EQ(ReadFile(name), data) << name;
  Remount();
  for (auto& [name, data] : files) ASSERT_EQ(ReadFile(name), data) << name;
  ExpectClean();
}

TEST_F(FsTest, NoSpaceIsAnErrorNotCorruption) {
  Format();
  std::mt19937_64 rng(9);
  std::string data = Random(&rng, 20 << 20);
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/huge", WriteMode::kTruncate, &w));
  Status s = w->Append(data);
  if (s.ok()) s = w->Sync();
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  // The error says where the space is, zone by zone: here every data zone
  // is full but those kept back empty, and none waits for a reset.
  std::smatch m;
  const std::string message = s.ToString();
  ASSERT_TRUE(std::regex_search(message, m,
                                std::regex("data zones: (\\d+) empty, (\\d+) held by writers \\([^)]*\\), (\\d+) partly "
                                           "written \\([^)]*\\), (\\d+) dead awaiting reset, (\\d+) full")))
      << message;
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  uint32_t data_zones = 0, empty_zones = 0;
  for (const DeviceUsage& u : usage) data_zones += u.data_zones, empty_zones += u.empty_zones;
  EXPECT_EQ(std::stoul(m[1]), empty_zones) << message;
  EXPECT_EQ(std::stoul(m[4]), 0u) << message;
  EXPECT_EQ(std::stoul(m[1]) + std::stoul(m[2]) + std::stoul(m[3]) + std::stoul(m[4]) + std::stoul(m[5]), data_zones)
      << message;
  w.reset();
  ASSERT_OK(fs_->Unlink("/huge"));
  WriteFile("/after", "still works");
  Remount();
  EXPECT_EQ(ReadFile("/after"), "still works");
  ExpectClean();
}

TEST_F(FsTest, ReadOnlyMountRefusesWrites) {
  Format();
  WriteFile("/f", "x");
  ASSERT_OK(fs_->Unmount());
  MountOptions ro;
  ro.read_only = true;
  Mount(ro);
  EXPECT_EQ(ReadFile("/f"), "x");
  std::unique_ptr<FileWriter> w;
  EXPECT_TRUE(fs_->OpenWriter("/g", WriteMode::kTruncate, &w).IsNotSupported());
  EXPECT_TRUE(fs_->Mkdir("/d").IsNotSupported());
}

TEST_F(FsTest, JournalRollsWhenMetadataZoneFills) {
  FsGeometry g;
  g.fast = "zone_size=64KiB&zones=64";
  g.slow = "zone_size=64KiB&zones=16";
  Format(g);
  for (int i = 0; i < 400; i++) WriteFile("/r" + std::to_string(i % 50), "v" + std::to_string(i));
  EXPECT_GT(fs_->Stats().journal_rolls, 3u);
  Remount();
  for (int i = 350; i < 400; i++) EXPECT_EQ(ReadFile("/r" + std::to_string(i % 50)), "v" + std::to_string(i));
  ExpectClean();
}

TEST_F(FsTest, MkfsRefusesToOverwriteWithoutForce) {
  Format();
  fs_.reset();
  MkfsOptions opts;
  opts.devices = {{Tier::kFast, "mem:" + fast_}, {Tier::kSlow, "mem:" + slow_}};
  Status s = Filesystem::Mkfs(opts);
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  Mount();  // untouched
  opts.force = true;
  fs_.reset();
  ASSERT_OK(Filesystem::Mkfs(opts));
  Mount();
  std::vector<DirEntry> entries;
  ASSERT_OK(fs_->ReadDir("/", &entries));
  EXPECT_TRUE(entries.empty());
}

TEST_F(FsTest, TagsPersistThroughRemountAndJournalRolls) {
  FsGeometry g;
  g.fast = "zone_size=64KiB&zones=64";
  Format(g);
  WriteFile("/a", "data");
  const std::string tag("\x01\x00opaque\xff", 10);  // bytes the filesystem never reads
  ASSERT_OK(fs_->SetTag("/a", tag));
  WriteFile("/b", "data");
  ASSERT_OK(fs_->SetTag("/b", std::string(kMaxFileTag, 'x')));
  EXPECT_TRUE(fs_->SetTag("/b", std::string(kMaxFileTag + 1, 'x')).IsInvalidArgument());
  for (int i = 0; i < 200; i++) WriteFile("/churn", std::to_string(i));  // forces rolls
  EXPECT_GT(fs_->Stats().journal_rolls, 0u);
  Remount();
  FileStat st;
  ASSERT_OK(fs_->Stat("/a", &st));
  EXPECT_EQ(st.tag, tag);
  ASSERT_OK(fs_->Stat("/b", &st));
  EXPECT_EQ(st.tag, std::string(kMaxFileTag, 'x'));
  ASSERT_OK(fs_->SetTag("/a", ""));
  Remount();
  ASSERT_OK(fs_->Stat("/a", &st));
  EXPECT_EQ(st.tag, "");
  EXPECT_TRUE(fs_->SetTag("/missing", tag).IsNotFound());
}

TEST_F(FsTest, KeepOnFastTierGivesADirectorysFilesItsClassAndTheFastTierOnly) {
  FsGeometry g;
  g.fast = "zone_size=64KiB&zones=16";
  g.slow = "zone_size=64KiB&zones=32";
  Format(g);
  const ZoneRole kPinned = FileClass(9);
  ASSERT_OK(fs_->Mkdir("/pinned"));
  EXPECT_TRUE(fs_->KeepOnFastTier("/missing", kPinned).IsNotFound());
  EXPECT_TRUE(fs_->KeepOnFastTier("/pinned", ZoneRole::kMetadata).IsInvalidArgument());
  EXPECT_TRUE(fs_->KeepOnFastTier("/pinned", FileClass(kZoneRoleCount)).IsInvalidArgument());
  ASSERT_OK(fs_->KeepOnFastTier("/pinned", kPinned));
  WriteFile("/plain", "x");
  FileStat st;
  ASSERT_OK(fs_->Stat("/plain", &st));
  EXPECT_EQ(st.role, ZoneRole::kData);
  // Fill past the fast tier: the pinned files never spill to the slow one.
  const std::string block(48 << 10, 'p');
  auto write = [&](const std::string& path) {
    std::unique_ptr<FileWriter> w;
    Status s = fs_->OpenWriter(path, WriteMode::kTruncate, &w);
    if (s.ok()) s = w->Append(block);
    if (s.ok()) s = w->Sync();
    Status c = w ? w->Close() : Status::OK();
    return s.ok() ? c : s;
  };
  Status s;
  int written = 0;
  for (; written < 64 && s.ok(); written++) s = write("/pinned/" + std::to_string(written));
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  for (int i = 0; i + 1 < written; i++) {
    ASSERT_OK(fs_->Stat("/pinned/" + std::to_string(i), &st));
    EXPECT_EQ(st.role, kPinned);
    for (const Extent& x : st.extents) EXPECT_EQ(fs_->superblock().members[x.device].tier, Tier::kFast);
  }
}

TEST_F(FsTest, AttributesPersistThroughRemountAndJournalRolls) {
  FsGeometry g;
  g.fast = "zone_size=64KiB&zones=64";
  Format(g);
  ASSERT_OK(fs_->SetAttribute("migration", "{\"to_fast_bytes\":1}"));
  ASSERT_OK(fs_->SetAttribute("gone", "soon"));
  ASSERT_OK(fs_->SetAttribute("gone", ""));
  for (int i = 0; i < 200; i++) WriteFile("/churn", std::to_string(i));  // forces rolls
  EXPECT_GT(fs_->Stats().journal_rolls, 0u);
  Remount();
  std::map<std::string, std::string> want = {{"migration", "{\"to_fast_bytes\":1}"}};
  EXPECT_EQ(fs_->Attributes(), want);
  EXPECT_TRUE(fs_->SetAttribute("", "x").IsInvalidArgument());
  EXPECT_TRUE(fs_->SetAttribute(std::string(65, 'n'), "x").IsInvalidArgument());
  EXPECT_TRUE(fs_->SetAttribute("big", std::string(8193, 'v')).IsInvalidArgument());
  ASSERT_OK(fs_->SetAttribute("big", std::string(8192, 'v')));
  Remount();
  EXPECT_EQ(fs_->Attributes()["big"].size(), 8192u);
  ExpectClean();
}

TEST_F(FsTest, LongPolicyNamesSurviveJournalRolls) {
  FsGeometry g;
  g.fast = "zone_size=64KiB&zones=64";
  Format(g);
  // Policies carry their options in their names; placement/ makes long ones.
  std::string name(300, 'p');
  Remount();
  fs_.reset();
  MountOptions o;
  o.policy_factory = [&](const std::string& n, std::shared_ptr<AllocationPolicy>* p) {
    *p = std::make_shared<FastFirstPolicy>();
    return n == name || n == "fast-first" ? Status::OK() : Status::NotFound(n);
  };
  struct Named : FastFirstPolicy {
    std::string n;
    std::string name() const override { return n; }
  };
  auto named = std::make_shared<Named>();
  named->n = name;
  o.policy = named;
  ASSERT_OK(Filesystem::Mount("mem:" + fast_, o, &fs_));
  for (int i = 0; i < 200; i++) WriteFile("/churn", std::to_string(i));  // forces rolls
  EXPECT_GT(fs_->Stats().journal_rolls, 0u);
  fs_.reset();
  o.policy = nullptr;
  ASSERT_OK(Filesystem::Mount("mem:" + fast_, o, &fs_));
  EXPECT_EQ(ReadFile("/churn"), "199");
  named->n = std::string(kMaxPolicyName + 1, 'p');
  o.policy = named;
  fs_.reset();
  EXPECT_TRUE(Filesystem::Mount("mem:" + fast_, o, &fs_).IsInvalidArgument());
}

TEST_F(FsTest, MountThroughAnyMember) {
  Format();
  WriteFile("/x", "member");
  fs_.reset();
  ASSERT_OK(Filesystem::Mount("mem:" + slow_, MountOptions(), &fs_));
  EXPECT_EQ(ReadFile("/x"), "member");
}

}  // namespace
}  // namespace hintfs
