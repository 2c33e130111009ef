// Crash safety of RocksDB on hintfs: every write acknowledged with sync=true
// survives (a) SIGKILL of the writing process at a random moment and (b) a
// power cut of the emulated devices after a random number of device writes.
// The DB and hintfs fsck must be consistent afterwards.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>

#include <rocksdb/db.h>
#include <rocksdb/convenience.h>
#include <rocksdb/env.h>

#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "fs/emulated_device.h"
#include "fs/fault_injection.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

std::string Key(long i) {
  char key[32];
  std::snprintf(key, sizeof(key), "key%010ld", i);
  return key;
}

// Opens the DB in this process, checks keys [0, acked) and returns the count
// of keys present (it may exceed acked: a write can land before its ack).
long VerifyDb(const std::string& spec, long acked, std::string* error) {
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::ConfigOptions cfg;
  rocksdb::Status s = rocksdb::FileSystem::CreateFromString(cfg, "hintfs://" + spec, &fs);
  if (!s.ok()) {
    *error = "mount: " + s.ToString();
    return -1;
  }
  auto env = rocksdb::NewCompositeEnv(fs);
  rocksdb::Options options;
  options.env = env.get();
  options.create_if_missing = true;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(options, "/db", &raw);
  if (!s.ok()) {
    *error = "open: " + s.ToString();
    return -1;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  for (long i = 0; i < acked; i++) {
    std::string v;
    s = db->Get(rocksdb::ReadOptions(), Key(i), &v);
    if (!s.ok() || v != "value-" + Key(i) + std::string(100, 'x')) {
      *error = "acknowledged key " + std::to_string(i) + " of " + std::to_string(acked) + ": " + s.ToString();
      return -1;
    }
  }
  long present = acked;
  std::string v;
  while (db->Get(rocksdb::ReadOptions(), Key(present), &v).ok()) present++;
  s = db->Close();
  if (!s.ok()) {
    *error = "close: " + s.ToString();
    return -1;
  }
  // The filesystem under the recovered DB is consistent too.
  std::shared_ptr<Filesystem> mounted;
  FsckReport report;
  Status fs_status = AcquireMount(spec, &mounted);
  if (fs_status.ok()) fs_status = mounted->Check(false, &report, nullptr);
  if (!fs_status.ok() || !report.ok()) {
    *error = "fsck: " + (fs_status.ok() ? report.errors[0] : fs_status.ToString());
    return -1;
  }
  return present;
}

void ExpectFsckClean(const std::string& spec) {
  std::shared_ptr<Filesystem> fs;
  ASSERT_TRUE(AcquireMount(spec, &fs).ok());
  FsckReport report;
  ASSERT_TRUE(fs->Check(false, &report, nullptr).ok());
  EXPECT_TRUE(report.ok()) << report.errors[0];
}

TEST(RocksDbCrash, SigkillNeverLosesSyncedWrites) {
  const char* child = std::getenv("HINTFS_CRASH_CHILD");
  ASSERT_NE(child, nullptr) << "set HINTFS_CRASH_CHILD to the rocksdb_crash_child binary";
  int cycles = std::getenv("HINTFS_CRASH_CYCLES") ? std::atoi(std::getenv("HINTFS_CRASH_CYCLES")) : 50;
  test::ScratchDir dir;
  std::string spec = "file:" + dir.File("ssd.img");
  MkfsOptions mkfs;
  mkfs.devices = {{Tier::kFast, spec + "?zone_size=8MiB&zones=32"},
                  {Tier::kSlow, "file:" + dir.File("hdd.img") + "?zone_size=8MiB&zones=64"}};
  ASSERT_TRUE(Filesystem::Mkfs(mkfs).ok());
  std::mt19937_64 rng(20261121);
  long acked = 0;
  long verified_writes = 0;
  for (int cycle = 0; cycle < cycles; cycle++) {
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      std::string start = std::to_string(acked);
      execl(child, child, spec.c_str(), "/db", start.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    // Read acknowledgements until a random deadline, then kill.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(30 + rng() % 250);
    std::string buf;
    long last = acked - 1;
    while (std::chrono::steady_clock::now() < deadline) {
      struct pollfd p = {out[0], POLLIN, 0};
      if (poll(&p, 1, 5) <= 0) continue;
      char chunk[4096];
      ssize_t n = read(out[0], chunk, sizeof(chunk));
      if (n <= 0) break;
      buf.append(chunk, static_cast<size_t>(n));
      size_t nl;
      while ((nl = buf.find('\n')) != std::string::npos) {
        last = std::atol(buf.substr(0, nl).c_str());
        buf.erase(0, nl + 1);
      }
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    close(out[0]);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited by itself (status " << status << ") in cycle " << cycle;
    std::string error;
    long present = VerifyDb(spec, last + 1, &error);
    ASSERT_GE(present, 0) << "cycle " << cycle << ": " << error;
    verified_writes += last + 1;
    acked = present;
  }
  ExpectFsckClean(spec);
  std::cout << "sigkill cycles: " << cycles << ", acknowledged writes verified: " << verified_writes
            << ", keys in the final DB: " << acked << "\n";
  EXPECT_GT(acked, cycles);
}

TEST(RocksDbCrash, PowerCutNeverLosesSyncedWrites) {
  int cycles = std::getenv("HINTFS_CRASH_CYCLES") ? std::atoi(std::getenv("HINTFS_CRASH_CYCLES")) : 50;
  std::string name = test::UniqueName("rpower");
  std::string spec = "mem:" + name;
  std::mt19937_64 rng(7);
  long acked = 0, verified_writes = 0;
  for (int cycle = 0; cycle < cycles; cycle++) {
    std::string domain = name + "-" + std::to_string(cycle);
    uint64_t cut_after = 20 + rng() % 400;
    setenv("HINTFS_DEVICE_PARAMS", ("power_domain=" + domain + "&power_cut_after=" + std::to_string(cut_after)).c_str(), 1);
    long last = acked - 1;
    {
      std::shared_ptr<rocksdb::FileSystem> fs;
      rocksdb::ConfigOptions cfg;
      ASSERT_TRUE(rocksdb::FileSystem::CreateFromString(cfg, "hintfs://" + spec, &fs).ok());
      auto env = rocksdb::NewCompositeEnv(fs);
      rocksdb::Options options;
      options.env = env.get();
      options.create_if_missing = true;
      options.write_buffer_size = 64 << 10;
      options.target_file_size_base = 64 << 10;
      rocksdb::DB* raw = nullptr;
      rocksdb::Status s = rocksdb::DB::Open(options, "/db", &raw);
      if (s.ok()) {
        std::unique_ptr<rocksdb::DB> db(raw);
        rocksdb::WriteOptions wo;
        wo.sync = true;
        for (long i = acked; i < acked + 100000; i++) {
          if (!db->Put(wo, Key(i), "value-" + Key(i) + std::string(100, 'x')).ok()) break;
          last = i;
        }
        db->Close();  // fails on the dead devices; the process "dies" here
      }
    }
    unsetenv("HINTFS_DEVICE_PARAMS");
    ResetPowerDomain(domain);
    std::string error;
    long present = VerifyDb(spec, last + 1, &error);
    ASSERT_GE(present, 0) << "cycle " << cycle << " (cut after " << cut_after << " writes): " << error;
    verified_writes += last + 1;
    acked = present;
  }
  ExpectFsckClean(spec);
  std::cout << "power-cut cycles: " << cycles << ", acknowledged writes verified: " << verified_writes
            << ", keys in the final DB: " << acked << "\n";
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

}  // namespace
}  // namespace hintfs
