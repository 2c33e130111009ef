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

}  // namespace
}  // namespace hintfs
