// Crash safety of RocksDB and LevelDB on hintfs: (a) a child process writing
// keys is killed with SIGKILL at a random moment, with sync=true and with the
// stores' default sync=false — every Put that returned before the kill
// survives, as on a kernel filesystem; (b) the emulated devices lose power
// after a random number of writes — every write acknowledged with sync=true
// survives. The DB and hintfs fsck must be consistent afterwards.
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

#include "adapters/bench/kv_store.h"
#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "fs/device/emulated_device.h"
#include "fs/device/fault_injection.h"
#include "tests/adapters/crash_keys.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

using test::CrashKey;
using test::CrashValue;

// Opens the store in this process, checks keys [0, acked) and returns the
// count of keys present (it may exceed acked: a write can land before its
// ack). The filesystem under it must pass fsck too.
long VerifyStore(const std::string& engine, const std::string& spec, const std::string& db_options,
                 long acked, std::string* error) {
  long present = acked;
  {
    KvStoreOptions options;
    options.engine = engine;
    options.hintfs_spec = spec;
    options.db_options = db_options;
    std::unique_ptr<KvStore> store;
    bool usage_error = false;
    if (!OpenKvStore(options, &store, error, &usage_error)) return -1;
    for (long i = 0; i < acked; i++) {
      std::string v;
      if (!store->Get(CrashKey(i), &v) || v != CrashValue(i)) {
        *error = "acknowledged key " + std::to_string(i) + " of " + std::to_string(acked) + " lost";
        return -1;
      }
    }
    std::string v;
    while (store->Get(CrashKey(present), &v) && v == CrashValue(present)) present++;
    if (!store->Close()) {
      *error = "close failed";
      return -1;
    }
  }
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

struct KillCase {
  const char* engine;
  bool sync;
};

class StoreKill : public ::testing::TestWithParam<KillCase> {};

// Zones of 256 KiB: the WAL (1 MiB memtables) crosses zones and tables span
// them, on both tiers. Each run adds up to 3,000 keys and then rewrites them,
// so flushes and compactions go on while the database stays small.
TEST_P(StoreKill, SigkillLosesNoAcknowledgedWrite) {
  const KillCase c = GetParam();
  const char* child = std::getenv("HINTFS_CRASH_CHILD");
  ASSERT_NE(child, nullptr) << "set HINTFS_CRASH_CHILD to the store_crash_child binary";
  int cycles = std::getenv("HINTFS_CRASH_CYCLES") ? std::atoi(std::getenv("HINTFS_CRASH_CYCLES")) : 40;
  const std::string db_options = std::string(c.engine) == "rocksdb"
      ? "write_buffer_size=1048576;target_file_size_base=524288;max_bytes_for_level_base=4194304"
      : "write_buffer_size=1048576;max_file_size=524288";
  test::ScratchDir dir;
  std::string spec = "file:" + dir.File("ssd.img");
  MkfsOptions mkfs;
  mkfs.devices = {{Tier::kFast, spec + "?zone_size=256KiB&zones=48"},
                  {Tier::kSlow, "file:" + dir.File("hdd.img") + "?zone_size=256KiB&zones=600"}};
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
      execl(child, child, c.engine, spec.c_str(), start.c_str(), c.sync ? "sync" : "nosync", "3000",
            db_options.c_str(), static_cast<char*>(nullptr));
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
    long present = VerifyStore(c.engine, spec, db_options, last + 1, &error);
    ASSERT_GE(present, 0) << "cycle " << cycle << ": " << error;
    verified_writes += last + 1;
    acked = present;
  }
  ExpectFsckClean(spec);
  std::cout << c.engine << (c.sync ? " sync=true" : " sync=false") << " sigkill cycles: " << cycles
            << ", acknowledged writes verified: " << verified_writes << ", keys in the final DB: " << acked
            << "\n";
  EXPECT_GT(acked, cycles);
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreKill,
                         ::testing::Values(KillCase{"rocksdb", true}, KillCase{"rocksdb", false},
                                           KillCase{"leveldb", true}, KillCase{"leveldb", false}),
                         [](const auto& info) {
                           return std::string(info.param.engine) + (info.param.sync ? "Sync" : "NoSync");
                         });

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
          if (!db->Put(wo, CrashKey(i), CrashValue(i)).ok()) break;
          last = i;
        }
        db->Close();  // fails on the dead devices; the process "dies" here
      }
    }
    unsetenv("HINTFS_DEVICE_PARAMS");
    ResetPowerDomain(domain);
    std::string error;
    long present = VerifyStore("rocksdb", spec, "", last + 1, &error);
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
