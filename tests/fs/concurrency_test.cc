// Several threads create, append, sync, read back and delete their own files
// while another runs GC, on devices small enough that zones are reused and
// collected all the time. Every read must see exactly what was written.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <thread>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

using test::FsGeometry;
using test::FsTest;

TEST_F(FsTest, ConcurrentWritersReadersAndGc) {
  FsGeometry g;
  g.fast = "zone_size=128KiB&zones=24";
  g.slow = "zone_size=128KiB&zones=32";
  Format(g);
  MountOptions opts;
  opts.write_buffer_bytes = 32 << 10;
  Mount(opts);
  constexpr int kThreads = 4;
  std::atomic<bool> failed{false};
  std::atomic<bool> done{false};
  std::vector<std::map<std::string, std::string>> finals(kThreads);
  auto worker = [&](int t) {
    std::mt19937_64 rng(100 + t);
    std::map<std::string, std::string>& files = finals[t];
    for (int step = 0; step < 300 && !failed; step++) {
      int kind = static_cast<int>(rng() % 4);
      if (files.size() < 2 || (kind == 0 && files.size() < 12)) {
        std::string name = "/t" + std::to_string(t) + "_" + std::to_string(step);
        std::string data = Random(&rng, 1 + rng() % 60000);
        std::unique_ptr<FileWriter> w;
        Status s = fs_->OpenWriter(name, WriteMode::kExclusive, &w);
        for (size_t off = 0; s.ok() && off < data.size(); off += 7000) s = w->Append(data.substr(off, 7000));
        if (s.ok() && rng() % 2) s = w->Sync();
        if (s.ok()) s = w->Close();
        if (!s.ok()) {
          ADD_FAILURE() << name << ": " << s.ToString();
          failed = true;
        }
        files[name] = data;
      } else {
        auto it = files.begin();
        std::advance(it, rng() % files.size());
        std::unique_ptr<FileReader> r;
        Status s = fs_->OpenReader(it->first, &r);
        std::string got(it->second.size(), '\0');
        size_t n = 0;
        if (s.ok()) s = r->Read(0, got.size(), &got[0], &n);
        if (!s.ok() || n != got.size() || got != it->second) {
          ADD_FAILURE() << it->first << ": read mismatch " << s.ToString();
          failed = true;
        }
        r.reset();
        if (kind >= 2) {
          s = fs_->Unlink(it->first);
          if (!s.ok()) {
            ADD_FAILURE() << it->first << ": " << s.ToString();
            failed = true;
          }
          files.erase(it);
        }
      }
    }
  };
  std::thread gc([&] {
    while (!done && !failed) {
      uint32_t freed = 0;
      Status s = fs_->CollectGarbage(2, &freed);
      if (!s.ok()) {
        ADD_FAILURE() << "gc: " << s.ToString();
        failed = true;
      }
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  done = true;
  gc.join();
  ASSERT_FALSE(failed);
  EXPECT_GT(fs_->Stats().zone_resets, 0u);
  Remount();
  for (const auto& files : finals) {
    for (const auto& [name, data] : files) EXPECT_EQ(ReadFile(name), data) << name;
  }
  ExpectClean();
}

// Writers that wait for space hold their files; GC must pass over the zones
// their data is in and collect others, so that no write fails while most of
// the devices are garbage (it once retried only the two zones with the most
// garbage, and a store's WAL write failed with a third of the device free to
// collect). No GC thread here: the writers' own allocations collect.
TEST_F(FsTest, WritersWaitingForSpaceDoNotStarveEachOther) {
  FsGeometry g;
  g.fast = "zone_size=128KiB&zones=16";
  g.slow = "zone_size=128KiB&zones=4";
  Format(g);
  MountOptions opts;
  opts.write_buffer_bytes = 16 << 10;
  Mount(opts);
  constexpr int kThreads = 8;
  std::atomic<bool> failed{false};
  auto worker = [&](int t) {
    std::mt19937_64 rng(200 + t);
    std::vector<std::string> live;
    for (int step = 0; step < 1000 && !failed; step++) {
      // At most four files of at most 30 KB per thread: well under half
      // the data zones' capacity is ever live.
      const std::string name = "/w" + std::to_string(t) + "_" + std::to_string(step);
      const std::string data = Random(&rng, 1 + rng() % 30000);
      std::unique_ptr<FileWriter> w;
      Status s = fs_->OpenWriter(name, WriteMode::kExclusive, &w);
      for (size_t off = 0; s.ok() && off < data.size(); off += 4000) s = w->Append(data.substr(off, 4000));
      if (s.ok()) s = w->Sync();
      if (s.ok()) s = w->Close();
      if (!s.ok()) {
        ADD_FAILURE() << name << " (step " << step << "): " << s.ToString();
        failed = true;
      }
      live.push_back(name);
      if (live.size() > 3) {
        const size_t victim = rng() % live.size();
        if (!fs_->Unlink(live[victim]).ok()) failed = true;
        live.erase(live.begin() + static_cast<long>(victim));
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  ASSERT_FALSE(failed);
  EXPECT_GT(fs_->Stats().gc_runs, 0u);
  ExpectClean();
}

// A store's long-lived files (its LOG, MANIFEST) take a block now and then,
// so after a while every zone holds some of each. When two of them wait for
// space at once, each holding its own file, every victim holds the other's
// blocks: GC must still move them (a waiting writer lends its file to GC),
// or both writes fail with half the device garbage.
TEST_F(FsTest, LongLivedWritersWaitingForSpaceDoNotBlockEachOthersGc) {
  FsGeometry g;
  g.fast = "zone_size=128KiB&zones=12";
  g.slow = "zone_size=128KiB&zones=6";
  Format(g);
  MountOptions opts;
  opts.write_buffer_bytes = 16 << 10;
  Mount(opts);
  std::mt19937_64 rng(7);
  std::string contents[2];
  const std::string names[2] = {"/LOG", "/MANIFEST"};
  auto append = [&](int f, size_t n) {
    std::unique_ptr<FileWriter> w;
    const std::string data = Random(&rng, n);
    ASSERT_OK(fs_->OpenWriter(names[f], WriteMode::kAppend, &w));
    ASSERT_OK(w->Append(data));
    ASSERT_OK(w->Close());
    contents[f] += data;
  };
  // Each round puts a block of each long-lived file and two of a short one
  // into the zone being filled, until only the zones GC keeps are empty.
  std::vector<std::string> short_files;
  auto empty_zones = [&] {
    std::vector<DeviceUsage> usage;
    EXPECT_OK(fs_->Usage(&usage));
    uint32_t n = 0;
    for (const DeviceUsage& u : usage) n += u.empty_zones;
    return n;
  };
  const uint32_t start_empty = empty_zones();
  while (empty_zones() > 4 && short_files.size() < 1000) {
    append(0, 4096);
    append(1, 4096);
    short_files.push_back("/short" + std::to_string(short_files.size()));
    WriteFile(short_files.back(), Random(&rng, 8192));
  }
  ASSERT_GT(start_empty, 10u);
  for (const std::string& f : short_files) ASSERT_OK(fs_->Unlink(f));
  // Both files append a zone and a half at once, in one call each: a call
  // holds its file from the first zone it waits for to the last.
  std::unique_ptr<FileWriter> writers[2];
  for (int f = 0; f < 2; f++) ASSERT_OK(fs_->OpenWriter(names[f], WriteMode::kAppend, &writers[f]));
  const std::string big[2] = {Random(&rng, 96 << 10), Random(&rng, 96 << 10)};
  std::atomic<int> ready{0};
  Status results[2];
  auto run = [&](int f) {
    ready++;
    while (ready < 2) std::this_thread::yield();
    results[f] = writers[f]->Append(big[f]);
    if (results[f].ok()) results[f] = writers[f]->Close();
  };
  std::thread t0(run, 0), t1(run, 1);
  t0.join();
  t1.join();
  for (int f = 0; f < 2; f++) {
    ASSERT_TRUE(results[f].ok()) << names[f] << ": " << results[f].ToString();
    EXPECT_EQ(ReadFile(names[f]), contents[f] + big[f]) << names[f];
  }
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
